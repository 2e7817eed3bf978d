/* MXFP4 GEMV: a warp per output row; lane l takes 32-weight blocks l, l + 32, ..., decoding each packed byte's two
 * E2M1 nibbles from a table and applying the block's E8M0 scale once per block. */
#include <cuda_fp4.h>
#include <cuda_fp8.h>
#define WARPS 8

__constant__ float e2m1[16] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6 };

__global__ static void mxfp4_gemv(const unsigned char *Wq, const unsigned char *scales, const __nv_bfloat16 *x, float *y,
				  int N, int K)
{
	int n = blockIdx.x * WARPS + threadIdx.x / 32, lane = threadIdx.x % 32;
	if (n >= N)
		return;
	float acc = 0;
	for (int blk = lane; blk < K / 32; blk += 32) {
		const unsigned char *q = Wq + (size_t)n * (K / 2) + blk * 16;
		float part = 0;
		for (int i = 0; i < 16; i++) {
			int k = blk * 32 + 2 * i;
			part += e2m1[q[i] & 15] * __bfloat162float(x[k]) + e2m1[q[i] >> 4] * __bfloat162float(x[k + 1]);
		}
		acc += part * exp2f((float)scales[(size_t)n * (K / 32) + blk] - 127.0f);
	}
	for (int off = 16; off; off /= 2)
		acc += __shfl_down_sync(0xffffffffu, acc, off);
	if (lane == 0)
		y[n] = acc;
}

extern "C" int kf_launch(const __nv_fp4x2_e2m1 *Wq, const __nv_fp8_e8m0 *scales, const __nv_bfloat16 *x, float *y,
			 int N, int K, cudaStream_t stream)
{
	mxfp4_gemv<<<(N + WARPS - 1) / WARPS, WARPS * 32, 0, stream>>>((const unsigned char *)Wq,
								      (const unsigned char *)scales, x, y, N, K);
	return cudaGetLastError() != cudaSuccess;
}
