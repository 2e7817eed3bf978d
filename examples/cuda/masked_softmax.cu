#include <cuda_bf16.h>

/* Masked, scaled softmax, one block per (batch, row): pass one keeps an online (running max, rescaled
 * sum) pair per thread over the unmasked columns and merges the pairs across the block; pass two
 * writes exp(x / 8 - max) / sum there and 0 elsewhere (everywhere when the row has no unmasked column). */
#define THREADS 256
#define WARP 32
#define SCALE 0.125f /* 1 / 8, exact */

__device__ static void merge(float &m, float &s, float m2, float s2)
{
	float mx = fmaxf(m, m2);
	if (mx == -INFINITY)
		return;
	s = s * expf(m - mx) + s2 * expf(m2 - mx);
	m = mx;
}

__global__ static void masked_softmax(const __nv_bfloat16 *x, const int *mask, __nv_bfloat16 *out, int rows, int cols)
{
	__shared__ float ms[THREADS / WARP], ss[THREADS / WARP];
	size_t base = (size_t)blockIdx.x * cols;
	const int *mrow = mask + (size_t)(blockIdx.x % rows) * cols;
	float m = -INFINITY, s = 0.f;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		if (mrow[c])
			merge(m, s, __bfloat162float(x[base + c]) * SCALE, 1.f);
	for (int off = WARP / 2; off > 0; off /= 2)
		merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
	if (threadIdx.x % WARP == 0) {
		ms[threadIdx.x / WARP] = m;
		ss[threadIdx.x / WARP] = s;
	}
	__syncthreads();
	m = ms[0];
	s = ss[0];
	for (int w = 1; w < THREADS / WARP; w++)
		merge(m, s, ms[w], ss[w]);
	float inv = s > 0.f ? 1.f / s : 0.f;
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float p = mrow[c] ? expf(__bfloat162float(x[base + c]) * SCALE - m) * inv : 0.f;
		out[base + c] = __float2bfloat16(p);
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const int *mask, __nv_bfloat16 *out, int batch, int rows, int cols,
			 cudaStream_t stream)
{
	masked_softmax<<<batch * rows, THREADS, 0, stream>>>(x, mask, out, rows, cols);
	return cudaGetLastError() != cudaSuccess;
}
