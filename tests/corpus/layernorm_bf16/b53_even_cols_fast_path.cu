/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* Even widths take a bf16x2 path whose statistics loop rounds the pair count up to a whole warp
 * "so every iteration is full", reading past the row when cols / 2 is not a multiple of 32
 * (cols = 2000): the mean and variance take in the next row's first elements. */
#include <cuda_bf16.h>

#define THREADS 256
#define WARP 32
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

__device__ static void normalise(const __nv_bfloat16 *row, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				 __nv_bfloat16 *out, int cols, float mean, float rstd)
{
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = (__bfloat162float(row[c]) - mean) * rstd;
		out[c] = __float2bfloat16(d * __bfloat162float(g[c]) + __bfloat162float(b[c]));
	}
}

__global__ static void layernorm_pairs(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				       __nv_bfloat16 *y, int cols)
{
	__shared__ float red[THREADS];
	const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
	const __nv_bfloat162 *pairs = (const __nv_bfloat162 *)row;
	int n = cols / 2, full = (n + WARP - 1) / WARP * WARP;
	float s = 0, q = 0;
	for (int p = threadIdx.x; p < full; p += THREADS) {
		float2 v = __bfloat1622float2(pairs[p]);
		s += v.x + v.y;
	}
	float mean = block_sum(s, red) / cols;
	for (int p = threadIdx.x; p < full; p += THREADS) {
		float2 v = __bfloat1622float2(pairs[p]);
		q += (v.x - mean) * (v.x - mean) + (v.y - mean) * (v.y - mean);
	}
	float rstd = rsqrtf(block_sum(q, red) / cols + EPS);
	normalise(row, g, b, y + (size_t)blockIdx.x * cols, cols, mean, rstd);
}

__global__ static void layernorm_scalar(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
					__nv_bfloat16 *y, int cols)
{
	__shared__ float red[THREADS];
	const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
	float s = 0, q = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s += __bfloat162float(row[c]);
	float mean = block_sum(s, red) / cols;
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = __bfloat162float(row[c]) - mean;
		q += d * d;
	}
	float rstd = rsqrtf(block_sum(q, red) / cols + EPS);
	normalise(row, g, b, y + (size_t)blockIdx.x * cols, cols, mean, rstd);
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
			 __nv_bfloat16 *y, int rows, int cols, cudaStream_t stream)
{
	if (cols % 2 == 0)
		layernorm_pairs<<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
	else
		layernorm_scalar<<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
	return cudaGetLastError() != cudaSuccess;
}
