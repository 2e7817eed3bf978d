/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* Each thread accumulates its partial sums in bf16 (8 bits of mantissa) before the fp32 block
 * reduction: close enough for short rows, off for wide rows and large means. */
#include <cuda_bf16.h>

#define THREADS 256
#define EPS 1e-5f

__device__ static float block_sum(float v, float *red)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (int h = THREADS / 2; h > 0; h /= 2) {
		if (threadIdx.x < h)
			red[threadIdx.x] += red[threadIdx.x + h];
		__syncthreads();
	}
	float r = red[0];
	__syncthreads();
	return r;
}

__global__ static void layernorm(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				 __nv_bfloat16 *y, int cols)
{
	__shared__ float red[THREADS];
	const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
	__nv_bfloat16 *out = y + (size_t)blockIdx.x * cols;
	__nv_bfloat16 s = __float2bfloat16(0.f);
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s = __hadd(s, row[c]);
	float mean = block_sum(__bfloat162float(s), red) / cols;
	__nv_bfloat16 v = __float2bfloat16(0.f), m = __float2bfloat16(mean);
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		__nv_bfloat16 d = __hsub(row[c], m);
		v = __hfma(d, d, v);
	}
	float rstd = rsqrtf(block_sum(__bfloat162float(v), red) / cols + EPS);
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = (__bfloat162float(row[c]) - mean) * rstd;
		out[c] = __float2bfloat16(d * __bfloat162float(g[c]) + __bfloat162float(b[c]));
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
			 __nv_bfloat16 *y, int rows, int cols, cudaStream_t stream)
{
	layernorm<<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
	return cudaGetLastError() != cudaSuccess;
}
