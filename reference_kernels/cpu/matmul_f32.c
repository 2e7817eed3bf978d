/* CPU reference for matmul_f32: C[M,N] = A[M,K] @ B[K,N], row-major fp32, fp32 accumulation. Each OpenMP task owns
 * one TILE_M x TILE_N block of C and accumulates it over zero-padded TILE_K slices of A and B, so the inner loop
 * has fixed trip counts and vectorises. */
#include <stddef.h>

#define TILE_M 32
#define TILE_N 64
#define TILE_K 128

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

/* dst[r][c] = src[r0 + r][c0 + c], zero outside rows x cols */
static void load_tile(float *dst, int dst_rows, int dst_cols, const float *src, int rows, int cols, int r0, int c0)
{
	for (int r = 0; r < dst_rows; r++)
		for (int c = 0; c < dst_cols; c++)
			dst[r * dst_cols + c] = r0 + r < rows && c0 + c < cols
				? src[(size_t)(r0 + r) * cols + c0 + c] : 0.0f;
}

static void mma_tile(float acc[TILE_M][TILE_N], const float a[TILE_M][TILE_K], const float b[TILE_K][TILE_N])
{
	for (int i = 0; i < TILE_M; i++)
		for (int k = 0; k < TILE_K; k++) {
			float aik = a[i][k];
#pragma omp simd
			for (int j = 0; j < TILE_N; j++)
				acc[i][j] += aik * b[k][j];
		}
}

int kf_launch(const float *A, const float *B, float *C, int M, int N, int K)
{
	int tiles_m = (M + TILE_M - 1) / TILE_M, tiles_n = (N + TILE_N - 1) / TILE_N;
#pragma omp parallel for collapse(2) schedule(static)
	for (int tm = 0; tm < tiles_m; tm++)
		for (int tn = 0; tn < tiles_n; tn++) {
			float acc[TILE_M][TILE_N] = { { 0 } };
			float a[TILE_M][TILE_K], b[TILE_K][TILE_N];
			int m0 = tm * TILE_M, n0 = tn * TILE_N;
			for (int k0 = 0; k0 < K; k0 += TILE_K) {
				load_tile(&a[0][0], TILE_M, TILE_K, A, M, K, m0, k0);
				load_tile(&b[0][0], TILE_K, TILE_N, B, K, N, k0, n0);
				mma_tile(acc, a, b);
			}
			for (int i = 0; i < min_int(TILE_M, M - m0); i++)
				for (int j = 0; j < min_int(TILE_N, N - n0); j++)
					C[(size_t)(m0 + i) * N + n0 + j] = acc[i][j];
		}
	return 0;
}
