/* The CUDA backend's judge side, built as build/libkforge-cuda.so and loaded by kforge only when
 * the cuda backend is asked for (so kforge runs where no CUDA is installed). It provides the
 * buffer-area operations of eval/judge/area.h on device memory shared with runners through CUDA IPC,
 * and describes the device for speed of light: the peak table, clocks (NVML) and measured
 * ceilings. */
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cJSON.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "common/buf.h"
#include "eval/judge/area.h"
#include "eval/judge/gpu/cuda_kernels.h"
#include "eval/tasks/tensor.h"

#define KF_CUDA_COPY_BYTES (1ull << 30) /* the device-to-device copy ceiling is measured on 1 GiB */
#define KF_CUDA_COPY_REPS 10
#define KF_CUDA_FLUSH_FACTOR 2          /* flush buffer = 2 x L2 (DESIGN.md §6) */
#define KF_SFU_OPS_PER_SM_CLOCK 16      /* exp2/log2/rcp/rsqrt/sin per SM per clock, compute capability
					   5.0 to 9.0 (CUDA C++ Programming Guide, arithmetic throughput) */

_Static_assert((int)KF_CUDA_BF16 == (int)KF_DTYPE_BF16 && (int)KF_CUDA_I32 == (int)KF_DTYPE_I32, "dtype codes must match");
_Static_assert((int)KF_CUDA_DIST_TIES == (int)KF_DIST_TIES && (int)KF_CUDA_DIST_INT == (int)KF_DIST_INT, "dist codes must match");

struct kf_area {
	int device;
	unsigned long long *scratch; /* one device word for reductions */
	struct kf_cuda_cmp *cmp;     /* a comparison's result */
	size_t bytes;
	char *dev;                      /* the shared buffers, mapped at a granularity-aligned address */
	CUmemGenericAllocationHandle mem;
	size_t mapped;                  /* bytes rounded up to the allocation granularity */
	int fd;                         /* the buffers' shareable handle, for a runner to import */
	cudaStream_t stream;
	void *flush;
	size_t flush_len;
	struct kf_sampler *sampler; /* host_fill's, made at its first use: the table takes 2^16 normal draws */
};

static int cuda_fail(kf_err *err, const char *what, cudaError_t e)
{
	return kf_errf(err, KF_EINTERNAL, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

static int cu_fail(kf_err *err, const char *what, CUresult r)
{
	const char *name = NULL;
	cuGetErrorName(r, &name);
	return kf_errf(err, KF_EINTERNAL, "%s: %s", what, name ? name : "unknown CUDA driver error");
}

/* The buffers a runner shares are a virtual-memory-management allocation exported as a file
 * descriptor, which the runner imports and maps as local memory of its own context. Legacy CUDA IPC
 * (cudaIpcOpenMemHandle) maps it as peer memory instead: on the H100 a reference that rereads a small
 * operand from every block (layernorm_bf16's gamma and beta) ran 58% slower in the runner than in one
 * process (bench/timing-evidence.md), so times taken through it were not the kernel's. */
static int share_alloc(struct kf_area *a, size_t bytes, kf_err *err)
{
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = a->device;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	size_t gran = 0;
	CUdeviceptr ptr = 0;
	CUresult r = cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
	if (r != CUDA_SUCCESS)
		return cu_fail(err, "cannot read the device's allocation granularity", r);
	a->mapped = (bytes + gran - 1) / gran * gran;
	if ((r = cuMemCreate(&a->mem, a->mapped, &prop, 0)) != CUDA_SUCCESS)
		return cu_fail(err, "cannot allocate the shared device buffers", r);
	CUmemAccessDesc access = { .location = prop.location, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	if ((r = cuMemAddressReserve(&ptr, a->mapped, gran, 0, 0)) != CUDA_SUCCESS ||
	    (r = cuMemMap(ptr, a->mapped, 0, a->mem, 0)) != CUDA_SUCCESS ||
	    (r = cuMemSetAccess(ptr, a->mapped, &access, 1)) != CUDA_SUCCESS)
		return cu_fail(err, "cannot map the shared device buffers", r);
	a->dev = (char *)ptr;
	if ((r = cuMemExportToShareableHandle(&a->fd, a->mem, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)) !=
	    CUDA_SUCCESS)
		return cu_fail(err, "cannot export the shared device buffers", r);
	if (fcntl(a->fd, F_SETFD, FD_CLOEXEC) != 0) /* only the runner it is given to may hold it */
		return kf_errno(err, KF_EINTERNAL, "cannot mark the device buffers' handle close-on-exec");
	return KF_OK;
}

static void share_free(struct kf_area *a)
{
	if (a->dev) {
		cuMemUnmap((CUdeviceptr)a->dev, a->mapped);
		cuMemAddressFree((CUdeviceptr)a->dev, a->mapped);
	}
	if (a->mem)
		cuMemRelease(a->mem);
	if (a->fd >= 0)
		close(a->fd);
}

static void area_free(struct kf_area *a)
{
	share_free(a);
	cudaFree(a->flush);
	cudaFree(a->scratch);
	cudaFree(a->cmp);
	kf_sampler_free(a->sampler);
	if (a->stream)
		cudaStreamDestroy(a->stream);
	free(a);
}

static int area_create(size_t bytes, int device, struct kf_area **out, kf_err *err)
{
	struct kf_area *a = kf_xcalloc(1, sizeof *a);
	a->device = device;
	a->bytes = bytes;
	a->fd = -1;
	int l2 = 0;
	cudaError_t e = cudaSetDevice(device);
	if (e == cudaSuccess)
		e = cudaFree(NULL); /* the primary context, current for the driver calls below */
	if (e != cudaSuccess || (e = cudaStreamCreateWithFlags(&a->stream, cudaStreamNonBlocking)) != cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device)) != cudaSuccess)
		goto cuda_error;
	if (share_alloc(a, bytes, err) != KF_OK)
		goto fail;
	a->flush_len = (size_t)l2 * KF_CUDA_FLUSH_FACTOR;
	if ((e = cudaMalloc(&a->flush, a->flush_len)) != cudaSuccess ||
	    (e = cudaMalloc((void **)&a->scratch, sizeof *a->scratch)) != cudaSuccess ||
	    (e = cudaMalloc((void **)&a->cmp, sizeof *a->cmp)) != cudaSuccess)
		goto cuda_error;
	*out = a;
	return KF_OK;
cuda_error:
	cuda_fail(err, "cannot set up device buffers", e);
fail:
	area_free(a);
	return KF_EINTERNAL;
}

/* Device memory has no guard pages: the guards are redzones, patterned and checked by the judge. */
static int area_create_laid_out(const struct kf_area_layout *l, int device, struct kf_area **out, kf_err *err)
{
	return area_create(l->bytes, device, out, err);
}

static void area_destroy(struct kf_area *a)
{
	if (!a)
		return;
	cudaStreamSynchronize(a->stream);
	area_free(a);
}

static int area_runner_fd(struct kf_area *a, size_t *bytes)
{
	*bytes = a->mapped;
	return a->fd;
}

static int area_runner_ro_fd(struct kf_area *a, size_t *bytes)
{
	(void)a;
	*bytes = 0;
	return -1;
}

static void *area_ptr(struct kf_area *a, size_t off) { return a->dev + off; }

static int area_pattern_fill(struct kf_area *a, size_t off, size_t bytes, uint8_t pattern, kf_err *err)
{
	cudaError_t e = cudaMemsetAsync(a->dev + off, pattern, bytes, a->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(a->stream);
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "patterning redzones on the GPU", e);
}

static int area_pattern_check(struct kf_area *a, size_t off, size_t bytes, uint8_t pattern, int64_t *first, kf_err *err)
{
	unsigned long long f = 0;
	cudaError_t e = kf_cuda_pattern_check(a->dev + off, (int64_t)bytes, pattern, a->scratch, &f, a->stream);
	*first = f == ~0ull ? -1 : (int64_t)f;
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "checking redzones on the GPU", e);
}

static void *area_host_view(struct kf_area *a, size_t off)
{
	(void)a, (void)off;
	return NULL;
}

/* Every operation runs on the area's own stream and waits for it: the stream does not order
 * itself after the legacy default stream (it is non-blocking), so nothing may be left half done
 * when the next step, a kernel on that stream or another process's call, starts. */
static int area_upload(struct kf_area *a, size_t off, const void *src, size_t bytes, kf_err *err)
{
	cudaError_t e = cudaMemcpyAsync(a->dev + off, src, bytes, cudaMemcpyHostToDevice, a->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(a->stream);
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "copying inputs to the GPU", e);
}

static int area_download(struct kf_area *a, size_t off, void *dst, size_t bytes, kf_err *err)
{
	cudaError_t e = cudaMemcpyAsync(dst, a->dev + off, bytes, cudaMemcpyDeviceToHost, a->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(a->stream);
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "copying outputs from the GPU", e);
}

static int area_poison(struct kf_area *a, size_t off, enum kf_dtype d, int64_t n, kf_err *err)
{
	CUdeviceptr p = (CUdeviceptr)(a->dev + off);
	CUstream s = (CUstream)a->stream;
	CUresult r;
	switch (kf_dtype_size(d)) {
	case 1: r = cuMemsetD8Async(p, KF_POISON_8, (size_t)n, s); break;
	case 2: r = cuMemsetD16Async(p, KF_POISON_16, (size_t)n, s); break;
	case 8: /* KF_POISON_64: the low word of each element, then the high word, a column of words apart */
		r = cuMemsetD32Async(p, (unsigned)(KF_POISON_64 & 0xffffffffu), 2 * (size_t)n, s);
		if (r == CUDA_SUCCESS)
			r = cuMemsetD2D32Async(p + 4, 8, (unsigned)(KF_POISON_64 >> 32), 1, (size_t)n, s);
		break;
	default: r = cuMemsetD32Async(p, KF_POISON_F32, (size_t)n, s);
	}
	if (r == CUDA_SUCCESS)
		r = cuStreamSynchronize(s);
	return r == CUDA_SUCCESS ? KF_OK : kf_errf(err, KF_EINTERNAL, "poisoning outputs on the GPU failed (CUresult %d)", r);
}

/* The kinds kf_cuda_fill draws on the device. Format v2's generators (permutations, sorted offsets,
 * page tables, top-k rows, choices, block scales...) relate elements to each other: they are drawn on
 * the host by the CPU judge's own code and uploaded. Drawn any other way they would be wrong values
 * that every check and every time of the task then runs on (all-zero page tables gathered one page). */
static bool device_draws(enum kf_dist_kind k)
{
	return k == KF_DIST_NORMAL || k == KF_DIST_UNIFORM || k == KF_DIST_TIES || k == KF_DIST_INT;
}

static int host_fill(struct kf_area *a, size_t off, enum kf_dtype d, int64_t n, const struct kf_dist *dist,
		     uint64_t seed, kf_err *err)
{
	size_t bytes = (size_t)n * kf_dtype_size(d);
	void *host = kf_xmalloc(bytes ? bytes : 1);
	if (!a->sampler)
		a->sampler = kf_sampler_new();
	kf_rng r;
	kf_rng_seed(&r, seed);
	kf_tensor_fill(a->sampler, &r, dist, d, host, n);
	int rc = area_upload(a, off, host, bytes, err);
	free(host);
	return rc;
}

static int area_fill(struct kf_area *a, size_t off, enum kf_dtype d, int64_t n, const struct kf_dist *dist,
		     uint64_t seed, kf_err *err)
{
	if (!device_draws(dist->kind))
		return host_fill(a, off, d, n, dist, seed, err);
	struct kf_cuda_dist cd = { (int)dist->kind, dist->a, dist->b, dist->levels };
	cudaError_t e = kf_cuda_fill(a->dev + off, (int)d, n, cd, seed, a->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(a->stream);
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "drawing inputs on the GPU", e);
}

static int area_diff(struct kf_area *a, size_t off, struct kf_area *b, size_t b_off, size_t bytes, int64_t *first,
		     kf_err *err)
{
	unsigned long long f = 0;
	cudaError_t e = kf_cuda_diff(a->dev + off, b->dev + b_off, (int64_t)bytes, a->scratch, &f, a->stream);
	*first = f == ~0ull ? -1 : (int64_t)f;
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "comparing buffers on the GPU", e);
}

static int area_count_poison(struct kf_area *a, size_t off, enum kf_dtype d, int64_t n, int64_t *out, kf_err *err)
{
	unsigned long long c = 0;
	*out = 0;
	if (kf_dtype_size(d) != 2 && kf_dtype_size(d) != 4) /* no counting kernel: the comparison sees them */
		return KF_OK;
	cudaError_t e = kf_cuda_count_poison(a->dev + off, (int)kf_dtype_size(d), n, a->scratch, &c, a->stream);
	*out = (int64_t)c;
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "checking outputs on the GPU", e);
}

static int area_copy_from(struct kf_area *dst, size_t dst_off, struct kf_area *src, size_t src_off, size_t bytes,
			  kf_err *err)
{
	cudaError_t e = cudaMemcpyAsync(dst->dev + dst_off, src->dev + src_off, bytes, cudaMemcpyDeviceToDevice, dst->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(dst->stream);
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "copying inputs on the GPU", e);
}

static double bits_double(unsigned long long b)
{
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

static int area_compare(struct kf_area *a, size_t got_off, struct kf_area *want, size_t want_off, enum kf_dtype d,
			int64_t n, struct kf_tolerance tol, struct kf_cmp *out, kf_err *err)
{
	struct kf_cuda_cmp c;
	memset(out, 0, sizeof *out);
	out->first_bad = -1;
	cudaError_t e = kf_cuda_compare(a->dev + got_off, want->dev + want_off, (int)d, n, tol.atol, tol.rtol, a->cmp, &c,
					a->stream);
	if (e != cudaSuccess)
		return cuda_fail(err, "comparing outputs on the GPU", e);
	out->n_bad = (int64_t)c.n_bad;
	out->pass = c.n_bad == 0;
	out->max_abs = bits_double(c.max_abs);
	out->max_rel = bits_double(c.max_rel);
	out->margin = bits_double(c.margin);
	if (out->pass)
		return KF_OK;
	out->first_bad = (int64_t)c.first_bad;
	size_t sz = kf_dtype_size(d), at = (size_t)out->first_bad * sz;
	unsigned char g[sizeof(double)], w[sizeof(double)];
	if (area_download(a, got_off + at, g, sz, err) != KF_OK || area_download(want, want_off + at, w, sz, err) != KF_OK)
		return err->code;
	out->got = kf_tensor_get(d, g, 0);
	out->want = kf_tensor_get(d, w, 0);
	return KF_OK;
}

static void *area_stream(struct kf_area *a) { return a->stream; }

static int area_sync(struct kf_area *a, kf_err *err)
{
	cudaError_t e = cudaStreamSynchronize(a->stream);
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "the judge's GPU work failed", e);
}

/* Persisting lines first (a candidate may have pinned data with an access-policy window), then
 * a write over twice the L2: the next call finds nothing of the last one in cache. */
static int area_flush(struct kf_area *a, uint64_t salt, kf_err *err)
{
	cudaError_t e = cudaCtxResetPersistingL2Cache();
	if (e == cudaSuccess)
		e = cudaMemsetAsync(a->flush, (int)(salt & 0xff), a->flush_len, a->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(a->stream);
	return e == cudaSuccess ? KF_OK : cuda_fail(err, "flushing the GPU's L2", e);
}

static size_t area_flush_bytes(struct kf_area *a) { return a->flush_len; }

/* ---- the device for speed of light ---- */

/* Dense peak rates from the vendor's datasheets (SXM parts), by device name. */
struct peak_row {
	const char *name_has;
	double bw_bytes_s, f32, tf32, bf16, f16, fp8;
};
static const struct peak_row peak_table[] = {
	{ "H200", 4.8e12, 66.9e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12 },
	{ "H100 80GB HBM3", 3.35e12, 66.9e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12 },
	{ "H100 PCIe", 2.0e12, 51.2e12, 378.0e12, 756.0e12, 756.0e12, 1513.0e12 },
	{ "H100", 3.35e12, 66.9e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12 },
	{ "A100", 2.0e12, 19.5e12, 156.0e12, 312.0e12, 312.0e12, 0 },
};

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_handle_fn)(unsigned int, void **);
typedef int (*nvml_clock_fn)(void *, int, unsigned int *);
typedef int (*nvml_reasons_fn)(void *, unsigned long long *);

/* NVML, loaded and initialised once per process (it is sampled every timed iteration). */
struct nvml {
	bool tried;
	nvml_handle_fn handle;
	nvml_clock_fn clock;
	nvml_reasons_fn reasons;
};

static const struct nvml *nvml(void)
{
	static struct nvml n;
	if (n.tried)
		return n.clock ? &n : NULL;
	n.tried = true;
	void *so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	nvml_init_fn init = so ? (nvml_init_fn)dlsym(so, "nvmlInit_v2") : NULL;
	if (!init || init() != 0)
		return NULL;
	n.handle = (nvml_handle_fn)dlsym(so, "nvmlDeviceGetHandleByIndex_v2");
	n.reasons = (nvml_reasons_fn)dlsym(so, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!n.reasons)
		n.reasons = (nvml_reasons_fn)dlsym(so, "nvmlDeviceGetCurrentClocksThrottleReasons");
	n.clock = n.handle ? (nvml_clock_fn)dlsym(so, "nvmlDeviceGetClockInfo") : NULL;
	return n.clock ? &n : NULL;
}

/* SM and memory clocks now (MHz) and NVML's mask of reasons the clocks are held down; zeros when
 * unknown. */
static void read_clocks(int device, unsigned *sm, unsigned *mem, unsigned long long *reasons)
{
	*sm = *mem = 0;
	*reasons = 0;
	const struct nvml *n = nvml();
	void *h = NULL;
	enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
	if (!n || n->handle((unsigned)device, &h) != 0)
		return;
	n->clock(h, NVML_CLOCK_SM, sm);
	n->clock(h, NVML_CLOCK_MEM, mem);
	if (n->reasons)
		n->reasons(h, reasons);
}

/* The best device-to-device copy bandwidth over a few 1 GiB copies; 0 with err filled on failure. */
static double measure_copy(kf_err *err)
{
	void *a = NULL, *b = NULL;
	cudaEvent_t t0 = NULL, t1 = NULL;
	double best = 0;
	const char *what = "allocating 2 GiB";
	cudaError_t e = cudaMalloc(&a, KF_CUDA_COPY_BYTES);
	if (e == cudaSuccess)
		e = cudaMalloc(&b, KF_CUDA_COPY_BYTES);
	if (e == cudaSuccess) {
		what = "preparing the copy";
		if ((e = cudaMemset(a, 1, KF_CUDA_COPY_BYTES)) == cudaSuccess && (e = cudaEventCreate(&t0)) == cudaSuccess)
			e = cudaEventCreate(&t1);
	}
	for (int r = 0; r < KF_CUDA_COPY_REPS && e == cudaSuccess; r++) {
		float ms = 0;
		what = "timing the copy";
		if ((e = cudaEventRecord(t0, 0)) == cudaSuccess &&
		    (e = cudaMemcpyAsync(b, a, KF_CUDA_COPY_BYTES, cudaMemcpyDeviceToDevice, 0)) == cudaSuccess &&
		    (e = cudaEventRecord(t1, 0)) == cudaSuccess && (e = cudaEventSynchronize(t1)) == cudaSuccess &&
		    (e = cudaEventElapsedTime(&ms, t0, t1)) == cudaSuccess && ms > 0)
			best = fmax(best, 2.0 * KF_CUDA_COPY_BYTES / (ms / 1e3));
	}
	if (e != cudaSuccess) {
		best = 0;
		kf_errf(err, KF_EINTERNAL, "measuring the copy bandwidth: %s failed: %s (%s)", what, cudaGetErrorName(e),
			cudaGetErrorString(e));
	} else if (!(best > 0)) {
		kf_errf(err, KF_EINTERNAL, "measuring the copy bandwidth: no copy took measurable time");
	}
	if (t0)
		cudaEventDestroy(t0);
	if (t1)
		cudaEventDestroy(t1);
	cudaFree(a);
	cudaFree(b);
	return best;
}

static int describe_device(int device, char **json, kf_err *err)
{
	struct cudaDeviceProp p;
	cudaError_t e = cudaGetDeviceProperties(&p, device);
	if (e != cudaSuccess)
		return cuda_fail(err, "no usable GPU", e);
	cudaSetDevice(device);
	int drv = 0, rt = 0;
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	const struct peak_row *row = NULL;
	for (size_t i = 0; i < sizeof peak_table / sizeof peak_table[0] && !row; i++)
		if (strstr(p.name, peak_table[i].name_has))
			row = &peak_table[i];
	double copy = measure_copy(err);
	if (!(copy > 0))
		return KF_EINTERNAL;
	/* Unknown devices: memory bandwidth from the bus width and clock; the arithmetic rate from
	 * the SM count and clock at the Hopper per-SM rates (an over-estimate elsewhere, which only
	 * makes t_SOL smaller: never a false faster_than_light). */
	int mem_khz = 0, bus = 0, sm_khz = 0;
	cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device);
	cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, device);
	cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device);
	double sms = p.multiProcessorCount, ghz = sm_khz / 1e6;
	struct peak_row generic = { "", 2.0 * mem_khz * 1e3 * bus / 8, sms * 256 * ghz * 1e9, sms * 2048 * ghz * 1e9,
				    sms * 4096 * ghz * 1e9, sms * 4096 * ghz * 1e9, sms * 8192 * ghz * 1e9 };
	if (!row)
		row = &generic;
	unsigned sm_mhz, mem_mhz;
	unsigned long long reasons;
	read_clocks(device, &sm_mhz, &mem_mhz, &reasons);
	cJSON *j = cJSON_CreateObject();
	char key[400];
	snprintf(key, sizeof key, "cuda:%s:sm_%d%d:%d", p.name, p.major, p.minor, p.multiProcessorCount);
	cJSON_AddStringToObject(j, "key", key);
	cJSON_AddStringToObject(j, "device", p.name);
	/* The measured copy can beat the datasheet a little; the ceiling is whichever is higher. */
	cJSON_AddNumberToObject(j, "bw_bytes_s", copy > row->bw_bytes_s ? copy : row->bw_bytes_s);
	cJSON *f = cJSON_AddObjectToObject(j, "flops_s");
	/* Every dtype a task's arithmetic can run in: the 8-bit formats (and fp4, which Hopper upcasts) at the
	 * 8-bit tensor-core rate (twice bf16's where the table has none), the rest on the CUDA cores. */
	double eight_bit = row->fp8 > 0 ? row->fp8 : 2 * row->bf16;
	for (int d = 0; d < KF_DTYPE_COUNT; d++) {
		double rate = row->f32;
		switch ((enum kf_dtype)d) {
		case KF_DTYPE_BF16: rate = row->bf16; break;
		case KF_DTYPE_F16: rate = row->f16; break;
		case KF_DTYPE_I8: case KF_DTYPE_U8: case KF_DTYPE_FP8_E4M3: case KF_DTYPE_FP8_E5M2:
		case KF_DTYPE_FP4_E2M1X2: rate = eight_bit; break;
		default: break;
		}
		cJSON_AddNumberToObject(f, kf_dtype_name((enum kf_dtype)d), rate);
	}
	cJSON_AddNumberToObject(j, "sfu_ops_s", sms * KF_SFU_OPS_PER_SM_CLOCK * ghz * 1e9);
	cJSON *peaks = cJSON_AddObjectToObject(j, "datasheet");
	cJSON_AddNumberToObject(peaks, "bw_bytes_s", row->bw_bytes_s);
	cJSON_AddNumberToObject(peaks, "tf32_flops_s", row->tf32);
	cJSON_AddNumberToObject(peaks, "fp8_flops_s", row->fp8);
	cJSON_AddStringToObject(peaks, "source", row == &generic ? "derived from device properties" : "vendor datasheet (dense)");
	cJSON *m = cJSON_AddObjectToObject(j, "measured");
	cJSON_AddNumberToObject(m, "copy_bytes_s", copy);
	cJSON_AddNumberToObject(j, "sm_count", p.multiProcessorCount);
	cJSON_AddNumberToObject(j, "l2_bytes", p.l2CacheSize);
	cJSON_AddNumberToObject(j, "persisting_l2_max_bytes", p.persistingL2CacheMaxSize);
	cJSON_AddNumberToObject(j, "compute_capability", p.major * 10 + p.minor);
	cJSON_AddNumberToObject(j, "driver_version", drv);
	cJSON_AddNumberToObject(j, "runtime_version", rt);
	cJSON_AddNumberToObject(j, "sm_clock_mhz", sm_mhz);
	cJSON_AddNumberToObject(j, "mem_clock_mhz", mem_mhz);
	*json = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return KF_OK;
}

static int current_clocks(int device, unsigned *sm_mhz, unsigned *mem_mhz, unsigned long long *reasons)
{
	read_clocks(device, sm_mhz, mem_mhz, reasons);
	return KF_OK;
}

static int device_arch(int device)
{
	int major = 0, minor = 0;
	if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
	    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
		return 0;
	return major * 10 + minor;
}

static int device_uuid(int device, char *out, size_t len)
{
	struct cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
		out[0] = '\0';
		return -1;
	}
	const unsigned char *b = (const unsigned char *)p.uuid.bytes;
	snprintf(out, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
		 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}

static const struct kf_area_ops cuda_ops = {
	.name = "cuda",
	.create = area_create,
	.create_laid_out = area_create_laid_out,
	.destroy = area_destroy,
	.runner_fd = area_runner_fd,
	.runner_ro_fd = area_runner_ro_fd,
	.ptr = area_ptr,
	.host_view = area_host_view,
	.upload = area_upload,
	.download = area_download,
	.poison = area_poison,
	.fill = area_fill,
	.diff = area_diff,
	.pattern_fill = area_pattern_fill,
	.pattern_check = area_pattern_check,
	.count_poison = area_count_poison,
	.copy_from = area_copy_from,
	.compare = area_compare,
	.stream = area_stream,
	.sync = area_sync,
	.flush = area_flush,
	.flush_bytes = area_flush_bytes,
	.describe_device = describe_device,
	.clocks = current_clocks,
	.arch = device_arch,
	.uuid = device_uuid,
};

const struct kf_area_ops *kf_cuda_area_ops(void) { return &cuda_ops; }
