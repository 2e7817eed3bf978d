/* FP8 GEMM, C = scale * A @ B: 16 x 16 shared-memory tiles of A (E4M3) and B (E5M2) widened to fp32 on load. */
#include <cuda_fp8.h>
#define TILE 16

__global__ static void fp8_gemm(const __nv_fp8_e4m3 *A, const __nv_fp8_e5m2 *B, float *C, int M, int N, int K, float scale)
{
	__shared__ float As[TILE][TILE + 1], Bs[TILE][TILE + 1];
	int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
	float acc = 0;
	for (int k0 = 0; k0 < K; k0 += TILE) {
		int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
		As[threadIdx.y][threadIdx.x] = r < M && ka < K ? (float)A[(size_t)r * K + ka] : 0.0f;
		Bs[threadIdx.y][threadIdx.x] = kb < K && c < N ? (float)B[(size_t)kb * N + c] : 0.0f;
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
		__syncthreads();
	}
	if (r < M && c < N)
		C[(size_t)r * N + c] = scale * acc;
}

extern "C" int kf_launch(const __nv_fp8_e4m3 *A, const __nv_fp8_e5m2 *B, float *C, int M, int N, int K, float scale,
			 cudaStream_t stream)
{
	dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE), block(TILE, TILE);
	fp8_gemm<<<grid, block, 0, stream>>>(A, B, C, M, N, K, scale);
	return cudaGetLastError() != cudaSuccess;
}
