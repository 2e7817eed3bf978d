/* The judge's multi-GPU kernels (eval/judge/gpu/multi_cuda.c): the hold kernel that keeps one rank's
 * stream busy until one host-mapped flag releases every rank at once, as sandbox/runner_hold.cu does
 * for the runners. Built into libkforge-cuda.so. */
#include <cuda_runtime.h>

#include "eval/judge/gpu/multi_cuda.h"

#define KF_MULTI_HOLD_POLL_NS 200

__device__ static unsigned long long device_ns(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ static void kf_multi_hold(const volatile unsigned int *release, unsigned long long timeout_ns)
{
	const unsigned long long t0 = device_ns();
	while (!*release && device_ns() - t0 <= timeout_ns)
		__nanosleep(KF_MULTI_HOLD_POLL_NS);
}

extern "C" int kf_multi_hold_launch(const volatile unsigned *release, unsigned long long timeout_ns, void *stream)
{
	kf_multi_hold<<<1, 1, 0, (cudaStream_t)stream>>>(release, timeout_ns);
	return (int)cudaGetLastError();
}
