/* The CUDA runners' shared pieces (declared in runner_cuda_common.h): the device allocation cap and
 * the wrappers the candidate's cudaMalloc family binds to, the hold kernel and its release flag, the
 * import of the judge's device buffers, and CUDA error text. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sandbox/runner_core.h"
#include "sandbox/runner_cuda_common.h"

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

int kf_runner_cuda_cap_init(size_t cap, char *why, size_t why_len)
{
	real_malloc = (malloc_fn)dlsym(RTLD_NEXT, "cudaMalloc");
	real_malloc_async = (malloc_async_fn)dlsym(RTLD_NEXT, "cudaMallocAsync");
	real_malloc_managed = (malloc_managed_fn)dlsym(RTLD_NEXT, "cudaMallocManaged");
	real_malloc_pitch = (malloc_pitch_fn)dlsym(RTLD_NEXT, "cudaMallocPitch");
	if (!real_malloc || !real_malloc_async || !real_malloc_managed || !real_malloc_pitch) {
		snprintf(why, why_len, "cannot find the CUDA runtime's allocators");
		return -1;
	}
	g_cap = cap;
	return 0;
}

/* ---- the hold kernel (sandbox/runner_hold.cu) ---- */

static struct {
	cudaLibrary_t lib;
	cudaKernel_t fn;
	volatile unsigned *release; /* host-mapped: the runner writes it, the hold kernels poll it */
	unsigned *dev_release;
} g_hold;

static const _Alignas(16) unsigned char hold_fatbin[] = {
#include "runner_hold_fatbin.inc"
};

cudaError_t kf_runner_cuda_hold_load(unsigned int host_alloc_flags)
{
	void *host = NULL;
	cudaError_t e = cudaLibraryLoadData(&g_hold.lib, hold_fatbin, NULL, NULL, 0, NULL, NULL, 0);
	if (e == cudaSuccess)
		e = cudaLibraryGetKernel(&g_hold.fn, g_hold.lib, "kf_runner_hold");
	if (e == cudaSuccess)
		e = cudaHostAlloc(&host, sizeof(unsigned), host_alloc_flags);
	if (e == cudaSuccess)
		e = cudaHostGetDevicePointer((void **)&g_hold.dev_release, host, 0);
	if (e == cudaSuccess)
		g_hold.release = host;
	return e;
}

void kf_runner_cuda_hold_arm(void) { *g_hold.release = 0; }

void kf_runner_cuda_hold_release(void) { __atomic_store_n(g_hold.release, 1u, __ATOMIC_SEQ_CST); }

cudaError_t kf_runner_cuda_hold_launch(cudaStream_t s, unsigned long long timeout_ns)
{
	void *args[] = { &g_hold.dev_release, &timeout_ns };
	dim3 one = { 1, 1, 1 };
	return cudaLaunchKernel((const void *)g_hold.fn, one, one, args, 0, s);
}

/* ---- the judge's buffers ---- */

CUresult kf_runner_cuda_import(int fd, size_t bytes, int device, const CUmemAccessDesc *access, size_t n_access,
			       CUdeviceptr *ptr)
{
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = device;
	CUmemGenericAllocationHandle h;
	size_t gran = 0;
	*ptr = 0;
	CUresult r = cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	if (r == CUDA_SUCCESS)
		r = cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
	if (r == CUDA_SUCCESS)
		r = cuMemAddressReserve(ptr, bytes, gran, 0, 0);
	if (r == CUDA_SUCCESS)
		r = cuMemMap(*ptr, bytes, 0, h, 0);
	if (r == CUDA_SUCCESS)
		r = cuMemSetAccess(*ptr, bytes, access, n_access);
	return r;
}

/* ---- errors ---- */

int kf_runner_cuda_fail(char *why, size_t len, const char *what, cudaError_t e)
{
	snprintf(why, len, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
	return -1;
}

int kf_runner_cuda_cu_fail(char *why, size_t len, const char *what, CUresult r)
{
	const char *name = NULL;
	cuGetErrorName(r, &name);
	snprintf(why, len, "%s: %s", what, name ? name : "unknown CUDA driver error");
	return -1;
}
