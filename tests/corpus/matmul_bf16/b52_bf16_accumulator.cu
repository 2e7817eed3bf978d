/* kforge-corpus: task=matmul_bf16 intended=bug */
/* One thread per output with the running sum kept in bf16 (__hfma): each add rounds to 8 bits of
 * mantissa, so the error grows with K. */
#include <cuda_bf16.h>

#define SIDE 16

__global__ static void matmul(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K)
{
	int row = blockIdx.y * SIDE + threadIdx.y, col = blockIdx.x * SIDE + threadIdx.x;
	if (row >= M || col >= N)
		return;
	__nv_bfloat16 acc = __float2bfloat16(0.f);
	for (int k = 0; k < K; k++)
		acc = __hfma(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
	C[(size_t)row * N + col] = acc;
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	dim3 block(SIDE, SIDE), grid((N + SIDE - 1) / SIDE, (M + SIDE - 1) / SIDE);
	matmul<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
