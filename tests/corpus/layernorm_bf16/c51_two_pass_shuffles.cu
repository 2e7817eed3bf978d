/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* One block per row: mean, then the centred variance (two passes, fp32), each reduced with warp
 * shuffles; right for any width. */
#include <cuda_bf16.h>

#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)
#define EPS 1e-5f

__device__ static float block_sum(float v, float *part)
{
	for (int o = WARP / 2; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (threadIdx.x % WARP == 0)
		part[threadIdx.x / WARP] = v;
	__syncthreads();
	float r = threadIdx.x % WARP < WARPS ? part[threadIdx.x % WARP] : 0.f;
	for (int o = WARP / 2; o > 0; o /= 2)
		r += __shfl_xor_sync(0xffffffffu, r, o);
	__syncthreads();
	return r;
}

__global__ static void layernorm(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				 __nv_bfloat16 *y, int cols)
{
	__shared__ float part[WARPS];
	const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
	__nv_bfloat16 *out = y + (size_t)blockIdx.x * cols;
	float s = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s += __bfloat162float(row[c]);
	float mean = block_sum(s, part) / cols;
	float v = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = __bfloat162float(row[c]) - mean;
		v += d * d;
	}
	float rstd = rsqrtf(block_sum(v, part) / cols + EPS);
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
