/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* One block per row; the row is converted to fp32 into shared memory once (dynamic size, cols
 * floats), then mean, centred variance and the output all read it from there. Rows too wide for
 * shared memory read global memory for each pass instead. */
#include <cuda_bf16.h>

#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)
#define EPS 1e-5f
#define SMEM_LIMIT (48 * 1024) /* dynamic shared memory available without opting in */

__device__ static float block_sum(float v, float *part)
{
	for (int o = WARP / 2; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (threadIdx.x % WARP == 0)
		part[threadIdx.x / WARP] = v;
	__syncthreads();
	float r = 0;
	for (int w = 0; w < WARPS; w++)
		r += part[w];
	__syncthreads();
	return r;
}

template <bool CACHED>
__global__ static void layernorm(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				 __nv_bfloat16 *y, int cols)
{
	extern __shared__ float cache[];
	__shared__ float part[WARPS];
	const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
	__nv_bfloat16 *out = y + (size_t)blockIdx.x * cols;
	float s = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float v = __bfloat162float(row[c]);
		if (CACHED)
			cache[c] = v;
		s += v;
	}
	float mean = block_sum(s, part) / cols, q = 0; /* block_sum's barrier also publishes cache[] */
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = (CACHED ? cache[c] : __bfloat162float(row[c])) - mean;
		q += d * d;
	}
	float rstd = rsqrtf(block_sum(q, part) / cols + EPS);
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = ((CACHED ? cache[c] : __bfloat162float(row[c])) - mean) * rstd;
		out[c] = __float2bfloat16(d * __bfloat162float(g[c]) + __bfloat162float(b[c]));
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
			 __nv_bfloat16 *y, int rows, int cols, cudaStream_t stream)
{
	size_t bytes = sizeof(float) * (size_t)cols;
	if (bytes <= SMEM_LIMIT)
		layernorm<true><<<rows, THREADS, bytes, stream>>>(x, gamma, beta, y, cols);
	else
		layernorm<false><<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
	return cudaGetLastError() != cudaSuccess;
}
