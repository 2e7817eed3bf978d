#include <cuda_bf16.h>

/* Row argmax with one warp per row: each lane keeps the first maximum of its strided slice, then
 * the lanes' (value, column) pairs are combined with shuffles, the smaller column winning a tie. */
#define WARPS 8
#define WARP 32

__global__ static void argmax_rows(const __nv_bfloat16 *x, int *idx, int rows, int cols)
{
	int row = blockIdx.x * WARPS + threadIdx.x / WARP, lane = threadIdx.x % WARP;
	if (row >= rows)
		return;
	const __nv_bfloat16 *r = x + (size_t)row * cols;
	float best = -INFINITY;
	int at = cols; /* past the end: loses to any real column */
	for (int c = lane; c < cols; c += WARP) {
		float v = __bfloat162float(r[c]);
		if (v > best || at == cols) {
			best = v;
			at = c;
		}
	}
	for (int off = WARP / 2; off > 0; off /= 2) {
		float v = __shfl_xor_sync(0xffffffffu, best, off);
		int c = __shfl_xor_sync(0xffffffffu, at, off);
		if (c < cols && (at == cols || v > best || (v == best && c < at))) {
			best = v;
			at = c;
		}
	}
	if (lane == 0)
		idx[row] = at;
}

extern "C" int kf_launch(const __nv_bfloat16 *x, int *idx, int rows, int cols, cudaStream_t stream)
{
	argmax_rows<<<(rows + WARPS - 1) / WARPS, WARPS * WARP, 0, stream>>>(x, idx, rows, cols);
	return cudaGetLastError() != cudaSuccess;
}
