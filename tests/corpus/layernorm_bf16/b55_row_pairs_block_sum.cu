/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* Many narrow rows (rows >= 16, cols <= 512) go two to a block, 128 threads each, but the
 * statistics are reduced with the same whole-block sum as the one-row path: both rows get the
 * mean and variance of the pair. Only the hidden 16 x 512 takes the paired path; every test,
 * ragged and benchmark shape goes one row per block, which is right. */
#include <cuda_bf16.h>

#define THREADS 256
#define HALF (THREADS / 2)
#define EPS 1e-5f
#define PAIR_MAX_COLS 512
#define PAIR_MIN_ROWS 16

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
				 __nv_bfloat16 *out, int cols, int first, int step, float mean, float rstd)
{
	for (int c = first; c < cols; c += step) {
		float d = (__bfloat162float(row[c]) - mean) * rstd;
		out[c] = __float2bfloat16(d * __bfloat162float(g[c]) + __bfloat162float(b[c]));
	}
}

__global__ static void layernorm_pairs(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				       __nv_bfloat16 *y, int rows, int cols)
{
	__shared__ float red[THREADS];
	int r = blockIdx.x * 2 + threadIdx.x / HALF, t = threadIdx.x % HALF;
	bool live = r < rows; /* the second half of the last block may have no row, but must reach the barriers */
	const __nv_bfloat16 *row = x + (size_t)(live ? r : 0) * cols;
	float s = 0, q = 0;
	for (int c = t; live && c < cols; c += HALF)
		s += __bfloat162float(row[c]);
	float mean = block_sum(s, red) / cols;
	for (int c = t; live && c < cols; c += HALF) {
		float d = __bfloat162float(row[c]) - mean;
		q += d * d;
	}
	float rstd = rsqrtf(block_sum(q, red) / cols + EPS);
	if (live)
		normalise(row, g, b, y + (size_t)r * cols, cols, t, HALF, mean, rstd);
}

__global__ static void layernorm_rows(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
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
	normalise(row, g, b, y + (size_t)blockIdx.x * cols, cols, threadIdx.x, THREADS, mean, rstd);
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
			 __nv_bfloat16 *y, int rows, int cols, cudaStream_t stream)
{
	if (rows >= PAIR_MIN_ROWS && cols <= PAIR_MAX_COLS)
		layernorm_pairs<<<(rows + 1) / 2, THREADS, 0, stream>>>(x, gamma, beta, y, rows, cols);
	else
		layernorm_rows<<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
	return cudaGetLastError() != cudaSuccess;
}
