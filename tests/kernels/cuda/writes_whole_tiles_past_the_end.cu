/* kforge-test: task=matmul_bf16 expect=out_of_bounds reason~=past */
/* The example's tiled matmul with the store's row guard dropped: on ragged shapes the last row of
 * tiles stores whole 32-row tiles, rows M..round_up(M, 32)-1 landing past the end of C (the
 * columns stay guarded, so the rows inside C are right). Nothing faults: only the judge's
 * patterned redzone after the buffer can see it. */
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
		__syncthreads();
	}
	if (col < N)
		C[(size_t)row * N + col] = __float2bfloat16(acc);
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
	matmul<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
