/* kforge-corpus: task=matmul_bf16 intended=bug */
/* A fast path for K % 8 == 0 walks K in unrolled steps of 16: when K % 16 == 8 (K = 200) the last
 * eight products are dropped. Other widths take a plain loop that is right. */
#include <cuda_bf16.h>

#define SIDE 16
#define STEP 16
#define FAST_MULTIPLE 8

__global__ static void matmul_fast(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N,
				   int K)
{
	int row = blockIdx.y * SIDE + threadIdx.y, col = blockIdx.x * SIDE + threadIdx.x;
	if (row >= M || col >= N)
		return;
	const __nv_bfloat16 *a = A + (size_t)row * K;
	float acc = 0;
	for (int k0 = 0; k0 + STEP <= K; k0 += STEP)
#pragma unroll
		for (int k = k0; k < k0 + STEP; k++)
			acc += __bfloat162float(a[k]) * __bfloat162float(B[(size_t)k * N + col]);
	C[(size_t)row * N + col] = __float2bfloat16(acc);
}

__global__ static void matmul_plain(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N,
				    int K)
{
	int row = blockIdx.y * SIDE + threadIdx.y, col = blockIdx.x * SIDE + threadIdx.x;
	if (row >= M || col >= N)
		return;
	float acc = 0;
	for (int k = 0; k < K; k++)
		acc += __bfloat162float(A[(size_t)row * K + k]) * __bfloat162float(B[(size_t)k * N + col]);
	C[(size_t)row * N + col] = __float2bfloat16(acc);
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	dim3 block(SIDE, SIDE), grid((N + SIDE - 1) / SIDE, (M + SIDE - 1) / SIDE);
	if (K % FAST_MULTIPLE == 0)
		matmul_fast<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
	else
		matmul_plain<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
