/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* Two-pass layernorm with eps = 3e-2 instead of 1e-5: visible where the variance is small. */
#include <cuda_bf16.h>

#define THREADS 256
#define EPS 3e-2f

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
	float s = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s += __bfloat162float(row[c]);
	float mean = block_sum(s, red) / cols, v = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = __bfloat162float(row[c]) - mean;
		v += d * d;
	}
	float rstd = rsqrtf(block_sum(v, red) / cols + EPS);
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
