#include <cuda_bf16.h>

/* y = A x with one warp per row of A: each lane reads bf16 pairs of the row (one 32-bit load each;
 * a lone last element when K is odd), accumulates in fp32, and the lanes combine with shuffles.
 * Rows start on a 4-byte boundary only when K is even, so odd K falls back to single elements. */
#define WARPS 8
#define WARP 32

__global__ static void matvec(const __nv_bfloat16 *A, const __nv_bfloat16 *x, float *y, int M, int K)
{
	int row = blockIdx.x * WARPS + threadIdx.x / WARP, lane = threadIdx.x % WARP;
	if (row >= M)
		return;
	const __nv_bfloat16 *a = A + (size_t)row * K;
	float s = 0.f;
	if (K % 2 == 0) {
		const __nv_bfloat162 *a2 = (const __nv_bfloat162 *)a, *x2 = (const __nv_bfloat162 *)x;
		for (int k = lane; k < K / 2; k += WARP) {
			float2 av = __bfloat1622float2(a2[k]), xv = __bfloat1622float2(x2[k]);
			s += av.x * xv.x + av.y * xv.y;
		}
	} else {
		for (int k = lane; k < K; k += WARP)
			s += __bfloat162float(a[k]) * __bfloat162float(x[k]);
	}
	for (int off = WARP / 2; off > 0; off /= 2)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	if (lane == 0)
		y[row] = s;
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *x, float *y, int M, int K, cudaStream_t stream)
{
	matvec<<<(M + WARPS - 1) / WARPS, WARPS * WARP, 0, stream>>>(A, x, y, M, K);
	return cudaGetLastError() != cudaSuccess;
}
