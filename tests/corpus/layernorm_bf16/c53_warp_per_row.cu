/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* One warp per row, eight rows per block: mean, then the centred variance (two passes, fp32,
 * shuffle reductions), then the affine output; lanes past a narrow row simply add nothing. */
#include <cuda_bf16.h>

#define WARP 32
#define ROWS_PER_BLOCK 8
#define EPS 1e-5f

__device__ static float warp_sum(float v)
{
	for (int o = WARP / 2; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

__global__ static void layernorm(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				 __nv_bfloat16 *y, int rows, int cols)
{
	int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP, lane = threadIdx.x % WARP;
	if (r >= rows)
		return; /* whole warps only: the shuffles below never wait on a lane that left */
	const __nv_bfloat16 *row = x + (size_t)r * cols;
	__nv_bfloat16 *out = y + (size_t)r * cols;
	float s = 0;
	for (int c = lane; c < cols; c += WARP)
		s += __bfloat162float(row[c]);
	float mean = warp_sum(s) / cols, v = 0;
	for (int c = lane; c < cols; c += WARP) {
		float d = __bfloat162float(row[c]) - mean;
		v += d * d;
	}
	float rstd = rsqrtf(warp_sum(v) / cols + EPS);
	for (int c = lane; c < cols; c += WARP) {
		float d = (__bfloat162float(row[c]) - mean) * rstd;
		out[c] = __float2bfloat16(d * __bfloat162float(g[c]) + __bfloat162float(b[c]));
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
			 __nv_bfloat16 *y, int rows, int cols, cudaStream_t stream)
{
	int blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
	layernorm<<<blocks, ROWS_PER_BLOCK * WARP, 0, stream>>>(x, gamma, beta, y, rows, cols);
	return cudaGetLastError() != cudaSuccess;
}
