/* fp32 GEMM on the CUDA cores: a 16 x 16 block computes a 64 x 64 tile of C, each thread 4 x 4 outputs
 * spaced 16 apart (rows ty + 16 i, columns tx + 16 j), from 16-deep slices of A (stored transposed in
 * shared memory, so a thread's four A values are one row of the slice) and B. fp32 products and sums. */
#define TILE 64
#define BK 16
#define DIM 16 /* threads per side */
#define PER (TILE / DIM)

__global__ static void __launch_bounds__(DIM *DIM) sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ float As[BK][TILE], Bs[BK][TILE];
	const int tx = threadIdx.x % DIM, ty = threadIdx.x / DIM, m0 = blockIdx.y * TILE, n0 = blockIdx.x * TILE;
	float c[PER][PER] = {};
	for (int k0 = 0; k0 < K; k0 += BK) {
		for (int e = threadIdx.x; e < TILE * BK; e += DIM * DIM) {
			int m = e / BK, k = e % BK; /* A read along k */
			As[k][m] = m0 + m < M && k0 + k < K ? A[(size_t)(m0 + m) * K + k0 + k] : 0.f;
			int kb = e / TILE, n = e % TILE; /* B read along n */
			Bs[kb][n] = k0 + kb < K && n0 + n < N ? B[(size_t)(k0 + kb) * N + n0 + n] : 0.f;
		}
		__syncthreads();
#pragma unroll
		for (int k = 0; k < BK; k++) {
			float a[PER], b[PER];
#pragma unroll
			for (int i = 0; i < PER; i++) {
				a[i] = As[k][ty + DIM * i];
				b[i] = Bs[k][tx + DIM * i];
			}
#pragma unroll
			for (int i = 0; i < PER; i++)
#pragma unroll
				for (int j = 0; j < PER; j++)
					c[i][j] += a[i] * b[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < PER; i++)
		for (int j = 0; j < PER; j++) {
			int m = m0 + ty + DIM * i, n = n0 + tx + DIM * j;
			if (m < M && n < N)
				C[(size_t)m * N + n] = c[i][j];
		}
}

extern "C" int kf_launch(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream)
{
	dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
	sgemm<<<grid, DIM * DIM, 0, stream>>>(A, B, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
