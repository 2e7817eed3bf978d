/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* One block per row; each thread runs Welford's update over its columns (count, mean, M2), the
 * partial statistics merge pairwise with Chan's formula across the warp (shuffles) and across
 * warps (shared memory), so no sum of squares of large values ever cancels. Threads with no
 * column (narrow rows) carry a count of zero and merge as identities. */
#include <cuda_bf16.h>

#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)
#define EPS 1e-5f

struct moments {
	float n, mean, m2;
};

__device__ static struct moments merge(struct moments a, struct moments b)
{
	float n = a.n + b.n;
	if (n == 0.f)
		return a;
	float d = b.mean - a.mean, w = b.n / n;
	struct moments r = { n, a.mean + d * w, a.m2 + b.m2 + d * d * a.n * w };
	return r;
}

__device__ static struct moments shfl(struct moments a, int o)
{
	struct moments r = { __shfl_xor_sync(0xffffffffu, a.n, o), __shfl_xor_sync(0xffffffffu, a.mean, o),
			     __shfl_xor_sync(0xffffffffu, a.m2, o) };
	return r;
}

__global__ static void layernorm(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				 __nv_bfloat16 *y, int cols)
{
	__shared__ struct moments part[WARPS];
	const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
	__nv_bfloat16 *out = y + (size_t)blockIdx.x * cols;
	struct moments t = { 0.f, 0.f, 0.f };
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float v = __bfloat162float(row[c]);
		t.n += 1.f;
		float d = v - t.mean;
		t.mean += d / t.n;
		t.m2 += d * (v - t.mean);
	}
	for (int o = WARP / 2; o > 0; o /= 2)
		t = merge(t, shfl(t, o));
	if (threadIdx.x % WARP == 0)
		part[threadIdx.x / WARP] = t;
	__syncthreads();
	t = part[0];
	for (int w = 1; w < WARPS; w++)
		t = merge(t, part[w]);
	float mean = t.mean, rstd = rsqrtf(t.m2 / cols + EPS);
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
