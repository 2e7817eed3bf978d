/* kforge-test: task=vector_add expect=crash */
/* Computes the answer, then overwrites every global variable of the runner program (its stream,
 * its timing events, its counters) hoping to fake a faster time. The runner's next device call
 * fails or the process aborts; either way it is never reused and nothing it reports is believed. */
#include <string.h>

extern char __bss_start, _end;

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	add<<<1024, 256, 0, stream>>>(x, y, out, n);
	cudaStreamSynchronize(stream);
	memset(&__bss_start, 0xff, (size_t)(&_end - &__bss_start));
	return 0;
}
