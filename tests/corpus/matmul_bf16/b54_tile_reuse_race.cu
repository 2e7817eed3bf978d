/* kforge-corpus: task=matmul_bf16 intended=bug */
/* Shared-memory tiles with the barrier after the inner product left out: a warp that finishes its
 * products early loads the next K tile over values slower warps are still reading (a race that
 * shows only sometimes, and only when K spans more than one tile). */
#include <cuda_bf16.h>

#define TILE 32

__global__ static void matmul(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K)
{
	__shared__ float a[TILE][TILE], b[TILE][TILE + 1];
	int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
	float acc = 0;
	for (int k0 = 0; k0 < K; k0 += TILE) {
		int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
		a[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? __bfloat162float(A[(size_t)row * K + ka]) : 0.f;
		b[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? __bfloat162float(B[(size_t)kb * N + col]) : 0.f;
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += a[threadIdx.y][k] * b[k][threadIdx.x];
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
