/* kforge-corpus: task=matmul_bf16 intended=bug */
/* Shared-memory tiles over K stop at the last whole tile: the last K % 32 products are never added. */
#include <cuda_bf16.h>

#define TILE 32

__global__ static void matmul(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K)
{
	__shared__ float a[TILE][TILE], b[TILE][TILE + 1];
	int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
	float acc = 0;
	for (int k0 = 0; k0 + TILE <= K; k0 += TILE) {
		a[threadIdx.y][threadIdx.x] = row < M ? __bfloat162float(A[(size_t)row * K + k0 + threadIdx.x]) : 0.f;
		b[threadIdx.y][threadIdx.x] = col < N ? __bfloat162float(B[(size_t)(k0 + threadIdx.y) * N + col]) : 0.f;
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += a[threadIdx.y][k] * b[k][threadIdx.x];
		__syncthreads();
	}
	if (row < M && col < N)
		C[(size_t)row * N + col] = __float2bfloat16(acc);
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
	matmul<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
