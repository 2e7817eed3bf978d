#include <cuda_bf16.h>

/* Residual add and LayerNorm, one block per row, three passes over the row: s = x + res in fp32 (h
 * written rounded) and its sum; the centred sum of squares around the mean (no cancellation when the
 * mean is large); then y = (s - mean) * rstd * gamma + beta. The row is re-read from cache each pass. */
#define THREADS 512
#define WARP 32
#define EPS 1e-5f

/* Sum over the block; slots is reused, so every thread reads the total before the next call writes it. */
__device__ static float block_sum(float v, float *slots)
{
	for (int off = WARP / 2; off > 0; off /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	if (threadIdx.x % WARP == 0)
		slots[threadIdx.x / WARP] = v;
	__syncthreads();
	float total = 0.f;
	for (int w = 0; w < THREADS / WARP; w++)
		total += slots[w];
	__syncthreads();
	return total;
}

__global__ static void residual_layernorm(const __nv_bfloat16 *x, const __nv_bfloat16 *res,
					  const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta, __nv_bfloat16 *h,
					  __nv_bfloat16 *y, int cols)
{
	__shared__ float slots[THREADS / WARP];
	size_t base = (size_t)blockIdx.x * cols;
	float sum = 0.f;
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float s = __bfloat162float(x[base + c]) + __bfloat162float(res[base + c]);
		h[base + c] = __float2bfloat16(s);
		sum += s;
	}
	float mean = block_sum(sum, slots) / cols, sq = 0.f;
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = __bfloat162float(x[base + c]) + __bfloat162float(res[base + c]) - mean;
		sq += d * d;
	}
	float rstd = rsqrtf(block_sum(sq, slots) / cols + EPS);
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = __bfloat162float(x[base + c]) + __bfloat162float(res[base + c]) - mean;
		y[base + c] = __float2bfloat16(d * rstd * __bfloat162float(gamma[c]) + __bfloat162float(beta[c]));
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *res, const __nv_bfloat16 *gamma,
			 const __nv_bfloat16 *beta, __nv_bfloat16 *h, __nv_bfloat16 *y, int rows, int cols,
			 cudaStream_t stream)
{
	residual_layernorm<<<rows, THREADS, 0, stream>>>(x, res, gamma, beta, h, y, cols);
	return cudaGetLastError() != cudaSuccess;
}
