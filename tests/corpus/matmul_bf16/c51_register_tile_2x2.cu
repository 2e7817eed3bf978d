/* kforge-corpus: task=matmul_bf16 intended=correct */
/* 32x32 output tiles from 16x16 threads, each thread accumulating a 2x2 block in fp32 registers;
 * A and B are staged through shared memory 32 wide along K, zero-padded at every edge. */
#include <cuda_bf16.h>

#define TILE 32
#define SIDE 16 /* threads per tile side; each owns TILE / SIDE = 2 rows and columns */

__global__ static void matmul(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K)
{
	__shared__ float a[TILE][TILE + 1], b[TILE][TILE + 1];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
	float acc[2][2] = { { 0, 0 }, { 0, 0 } };
	for (int k0 = 0; k0 < K; k0 += TILE) {
		for (int i = ty; i < TILE; i += SIDE)
			for (int j = tx; j < TILE; j += SIDE) {
				int r = row0 + i, ka = k0 + j, kb = k0 + i, c = col0 + j;
				a[i][j] = r < M && ka < K ? __bfloat162float(A[(size_t)r * K + ka]) : 0.f;
				b[i][j] = kb < K && c < N ? __bfloat162float(B[(size_t)kb * N + c]) : 0.f;
			}
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++)
					acc[i][j] += a[ty + i * SIDE][k] * b[k][tx + j * SIDE];
		__syncthreads();
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			int r = row0 + ty + i * SIDE, c = col0 + tx + j * SIDE;
			if (r < M && c < N)
				C[(size_t)r * N + c] = __float2bfloat16(acc[i][j]);
		}
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	dim3 block(SIDE, SIDE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
	matmul<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
