#include <cuda_bf16.h>

/* Top-k of a row softmax, one block per row. The softmax's max and sum come from an online (running max,
 * rescaled sum) pair per thread merged across the block. Then k selection rounds: each picks, among the
 * entries ranked after the previous pick (larger x first, the smaller column between equal x), the first
 * one, by an argmax over the block; nothing is marked, so the row is only read. */
#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)

__device__ static void merge(float &m, float &s, float m2, float s2)
{
	float mx = fmaxf(m, m2);
	if (mx == -INFINITY)
		return;
	s = s * expf(m - mx) + s2 * expf(m2 - mx);
	m = mx;
}

/* Whether (x, c) ranks before (y, d); a column of -1 stands for "nothing yet" and ranks last. */
__device__ static bool before(float x, int c, float y, int d)
{
	return d < 0 || (c >= 0 && (x > y || (x == y && c < d)));
}

__global__ static void softmax_topk(const __nv_bfloat16 *x, float *vals, int *idx, int cols, int k)
{
	__shared__ float ms[WARPS], ss[WARPS], bx[WARPS];
	__shared__ int bc[WARPS];
	const __nv_bfloat16 *r = x + (size_t)blockIdx.x * cols;
	const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
	float m = -INFINITY, s = 0.f;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		merge(m, s, __bfloat162float(r[c]), 1.f);
	for (int off = WARP / 2; off > 0; off /= 2)
		merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
	if (lane == 0) {
		ms[warp] = m;
		ss[warp] = s;
	}
	__syncthreads();
	m = ms[0];
	s = ss[0];
	for (int w = 1; w < WARPS; w++)
		merge(m, s, ms[w], ss[w]);

	float prev_x = INFINITY;
	int prev_c = -1; /* ranks before every entry */
	for (int j = 0; j < k; j++) {
		float best_x = 0.f;
		int best_c = -1;
		for (int c = threadIdx.x; c < cols; c += THREADS) {
			float v = __bfloat162float(r[c]);
			if ((prev_c < 0 || before(prev_x, prev_c, v, c)) && before(v, c, best_x, best_c)) {
				best_x = v;
				best_c = c;
			}
		}
		for (int off = WARP / 2; off > 0; off /= 2) {
			float v = __shfl_xor_sync(0xffffffffu, best_x, off);
			int c = __shfl_xor_sync(0xffffffffu, best_c, off);
			if (before(v, c, best_x, best_c)) {
				best_x = v;
				best_c = c;
			}
		}
		__syncthreads(); /* the previous round's slots have been read */
		if (lane == 0) {
			bx[warp] = best_x;
			bc[warp] = best_c;
		}
		__syncthreads();
		prev_x = bx[0];
		prev_c = bc[0];
		for (int w = 1; w < WARPS; w++)
			if (before(bx[w], bc[w], prev_x, prev_c)) {
				prev_x = bx[w];
				prev_c = bc[w];
			}
		if (threadIdx.x == 0) {
			size_t o = (size_t)blockIdx.x * k + j;
			vals[o] = expf(prev_x - m) / s;
			idx[o] = prev_c;
		}
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, float *vals, int *idx, int rows, int cols, int k, cudaStream_t stream)
{
	if (k < 1 || k > cols)
		return (int)cudaErrorInvalidValue;
	softmax_topk<<<rows, THREADS, 0, stream>>>(x, vals, idx, cols, k);
	return cudaGetLastError() != cudaSuccess;
}
