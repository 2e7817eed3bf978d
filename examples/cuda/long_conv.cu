#include <cuda_bf16.h>

/* Direct causal long convolution: a block computes 256 consecutive outputs of one (b, c) sequence, one
 * per thread, walking the filter in chunks of 256 taps; for each chunk the taps and the 511 inputs the
 * block's outputs need are staged in shared memory (zeros before t = 0 and past the filter), so the inner
 * loop is two shared reads and an fp32 multiply-add. */
#define THREADS 256

__global__ static void long_conv(const __nv_bfloat16 *x, const float *kf, __nv_bfloat16 *y, int C, int L)
{
	__shared__ float taps[THREADS], xs[2 * THREADS];
	const int seq = blockIdx.y, c = seq % C, t0 = blockIdx.x * THREADS, t = t0 + threadIdx.x;
	const __nv_bfloat16 *xr = x + (size_t)seq * L;
	const float *kr = kf + (size_t)c * L;
	const int last = min(t0 + THREADS, L) - 1; /* the block's last output */
	float acc = 0.f;
	for (int s0 = 0; s0 <= last; s0 += THREADS) {
		__syncthreads(); /* the previous chunk has been read */
		taps[threadIdx.x] = s0 + threadIdx.x < L ? kr[s0 + threadIdx.x] : 0.f;
		const int base = t0 - s0 - (THREADS - 1); /* xs[i] = x[base + i] */
		for (int i = threadIdx.x; i < 2 * THREADS; i += THREADS) {
			int at = base + i;
			xs[i] = at >= 0 && at < L ? __bfloat162float(xr[at]) : 0.f;
		}
		__syncthreads();
		/* tap s0 + j meets x[t - s0 - j] = xs[threadIdx.x + THREADS - 1 - j] */
#pragma unroll 8
		for (int j = 0; j < THREADS; j++)
			acc += taps[j] * xs[threadIdx.x + THREADS - 1 - j];
	}
	if (t < L)
		y[(size_t)seq * L + t] = __float2bfloat16(acc);
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const float *k, __nv_bfloat16 *y, int B, int C, int L,
			 cudaStream_t stream)
{
	dim3 grid((L + THREADS - 1) / THREADS, B * C);
	long_conv<<<grid, THREADS, 0, stream>>>(x, k, y, C, L);
	return cudaGetLastError() != cudaSuccess;
}
