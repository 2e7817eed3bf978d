/* The CUDA runner program: the runner core plus a CUDA context created before the seccomp
 * filter (its initialisation opens device files and starts driver threads, which TSYNC then
 * covers), device buffers opened from the judge's IPC handle, calls timed with events on the
 * candidate's stream followed by a device-wide synchronisation, sticky errors reported by name,
 * a cap on device allocations enforced by wrappers the candidate's cudaMalloc binds to, and, for
 * a kernel the task allows to call cuBLAS, cuBLAS loaded and initialised before the filter. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cuda_runtime_api.h>

#include "eval/cuda_shared.h"
#include "sandbox/runner_core.h"

struct cuda_state {
	cudaStream_t stream;
	cudaEvent_t start, stop;
};

/* ---- device allocation cap ---- */

static size_t g_cap;
static _Atomic size_t g_allocated;
typedef cudaError_t (*malloc_fn)(void **, size_t);
typedef cudaError_t (*malloc_async_fn)(void **, size_t, cudaStream_t);
typedef cudaError_t (*malloc_managed_fn)(void **, size_t, unsigned int);
typedef cudaError_t (*malloc_pitch_fn)(void **, size_t *, size_t, size_t);
static malloc_fn real_malloc;
static malloc_async_fn real_malloc_async;
static malloc_managed_fn real_malloc_managed;
static malloc_pitch_fn real_malloc_pitch;

/* Counts what the candidate asks for; frees are not credited back, so the cap bounds the total
 * a candidate can ever hold and a free/alloc loop cannot walk past it. */
static void charge(size_t bytes)
{
	if (atomic_fetch_add(&g_allocated, bytes) + bytes > g_cap)
		kf_runner_report_memory(bytes);
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
	charge(bytes);
	return real_malloc(p, bytes);
}

cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t s)
{
	charge(bytes);
	return real_malloc_async(p, bytes, s);
}

/* Managed memory can oversubscribe and hang the GPU (DESIGN.md §7): charged like the rest. */
cudaError_t cudaMallocManaged(void **p, size_t bytes, unsigned int flags)
{
	charge(bytes);
	return real_malloc_managed(p, bytes, flags);
}

cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height)
{
	charge(width * height);
	return real_malloc_pitch(p, pitch, width, height);
}

/* ---- vendor libraries ---- */

/* cuBLAS (and the cuBLASLt it sits on), by the soname of this CUDA major version. */
static const char *const vendor_libs[] = { "libcublasLt.so.%d", "libcublas.so.%d" };
typedef int (*cublas_create_fn)(void **);
typedef int (*cublas_destroy_fn)(void *);

/* Loaded globally now, so the kernel's own dlopen finds them in memory and opens no file under
 * the filter; one handle created and destroyed so cuBLAS's one-time set-up happens here too. */
static int load_vendor_libs(char *why, size_t len)
{
	void *so = NULL;
	for (size_t i = 0; i < sizeof vendor_libs / sizeof vendor_libs[0]; i++) {
		char name[64];
		snprintf(name, sizeof name, vendor_libs[i], CUDART_VERSION / 1000);
		if (!(so = dlopen(name, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE))) {
			snprintf(why, len, "cannot load the vendor library %s: %s", name, dlerror());
			return -1;
		}
	}
	cublas_create_fn create = (cublas_create_fn)dlsym(so, "cublasCreate_v2");
	cublas_destroy_fn destroy = (cublas_destroy_fn)dlsym(so, "cublasDestroy_v2");
	void *handle = NULL;
	int st = create && destroy ? create(&handle) : -1;
	if (st != 0) {
		snprintf(why, len, "cannot initialise cuBLAS (status %d)", st);
		return -1;
	}
	destroy(handle);
	return 0;
}

/* ---- backend hooks ---- */

static int fail(char *why, size_t len, const char *what, cudaError_t e)
{
	snprintf(why, len, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
	return -1;
}

static int cuda_setup(void **state, int device, size_t mem_cap, bool vendor, char *why, size_t why_len)
{
	real_malloc = (malloc_fn)dlsym(RTLD_NEXT, "cudaMalloc");
	real_malloc_async = (malloc_async_fn)dlsym(RTLD_NEXT, "cudaMallocAsync");
	real_malloc_managed = (malloc_managed_fn)dlsym(RTLD_NEXT, "cudaMallocManaged");
	real_malloc_pitch = (malloc_pitch_fn)dlsym(RTLD_NEXT, "cudaMallocPitch");
	if (!real_malloc || !real_malloc_async || !real_malloc_managed || !real_malloc_pitch) {
		snprintf(why, why_len, "cannot find the CUDA runtime's allocators");
		return -1;
	}
	g_cap = mem_cap;
	static struct cuda_state st;
	cudaError_t e = cudaSetDevice(device);
	if (e == cudaSuccess)
		e = cudaFree(NULL); /* creates the context now, before the filter */
	if (e != cudaSuccess)
		return fail(why, why_len, "cannot initialise the GPU", e);
	if ((e = cudaStreamCreateWithFlags(&st.stream, cudaStreamNonBlocking)) != cudaSuccess ||
	    (e = cudaEventCreate(&st.start)) != cudaSuccess || (e = cudaEventCreate(&st.stop)) != cudaSuccess)
		return fail(why, why_len, "cannot create the runner's stream and events", e);
	if (vendor && load_vendor_libs(why, why_len) != 0)
		return -1;
	*state = &st;
	return 0;
}

/* The inputs live in the device area too: no read-only host mapping on this backend. */
static void *cuda_map(void *state, int shm_fd, size_t shm_bytes, int ro_fd, size_t ro_bytes, size_t *area_bytes,
		      char *why, size_t why_len)
{
	(void)state, (void)ro_fd, (void)ro_bytes;
	if (shm_bytes < sizeof(struct kf_cuda_shared)) {
		snprintf(why, why_len, "the shared area is too small for a CUDA handle");
		return NULL;
	}
	struct kf_cuda_shared *sh = mmap(NULL, shm_bytes, PROT_READ, MAP_SHARED, shm_fd, 0);
	if (sh == MAP_FAILED || sh->magic != KF_CUDA_SHARED_MAGIC) {
		snprintf(why, why_len, "no CUDA handle in the shared area");
		return NULL;
	}
	cudaIpcMemHandle_t h;
	memcpy(&h, sh->ipc_handle, sizeof h);
	void *dev = NULL;
	cudaError_t e = cudaIpcOpenMemHandle(&dev, h, cudaIpcMemLazyEnablePeerAccess);
	*area_bytes = sh->bytes;
	munmap(sh, shm_bytes);
	if (e != cudaSuccess) {
		fail(why, why_len, "cannot open the judge's device buffers", e);
		return NULL;
	}
	return dev;
}

static int cuda_call(void *state, kf_shim_call_fn fn, void *const *bufs, const long long *ints, int *rc,
		     int64_t *device_ns, char *why, size_t why_len)
{
	struct cuda_state *st = state;
	*device_ns = -1;
	cudaError_t e = cudaEventRecord(st->start, st->stream);
	if (e != cudaSuccess)
		return fail(why, why_len, "CUDA error before the call", e);
	*rc = fn(bufs, ints, st->stream);
	cudaEventRecord(st->stop, st->stream);
	/* The whole device: work hidden on other streams must finish before the judge looks. */
	e = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		e = cudaGetLastError();
	if (e != cudaSuccess)
		return fail(why, why_len, "CUDA error in kf_launch", e);
	float ms = 0;
	if (cudaEventElapsedTime(&ms, st->start, st->stop) == cudaSuccess)
		*device_ns = (int64_t)((double)ms * 1e6);
	return 0;
}

/* What the driver needs once the context exists (DESIGN.md §7, measured on the GPU machine). */
static const int cuda_syscalls[] = {
	SYS_ioctl, SYS_epoll_wait, SYS_epoll_pwait, SYS_sched_setaffinity,
};

static const struct kf_runner_backend cuda_backend = {
	.name = "cuda",
	.cap_host_data = false,
	.allow_uncounted_maps = true,
	.extra_syscalls = cuda_syscalls,
	.n_extra = sizeof cuda_syscalls / sizeof cuda_syscalls[0],
	.setup = cuda_setup,
	.map_buffers = cuda_map,
	.call = cuda_call,
};

int main(int argc, char **argv)
{
	return kf_runner_main(argc, argv, &cuda_backend);
}
