/* The tiled matmul core shared by the CPU references of matmul_f32, matmul_bf16 and matmul_bf16_batched: one
 * TILE_M x TILE_N block of C = A @ B (row-major A [M][K], B [K][N]) accumulated in fp32 over zero-padded TILE_K
 * slices widened from A and B, so the inner loop has fixed trip counts and vectorises; the block is narrowed to
 * the element type once at the end. The including file defines TILE_ELEM (the operand and result type),
 * TILE_WIDEN(x) (an element to fp32) and TILE_NARROW(x) (fp32 to an element). */
#if !defined(TILE_ELEM) || !defined(TILE_WIDEN) || !defined(TILE_NARROW)
#error "define TILE_ELEM, TILE_WIDEN and TILE_NARROW before including cpu/matmul_tiles.h"
#endif
#include <stddef.h>

#define TILE_M 32
#define TILE_N 64
#define TILE_K 128

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static int tile_count(int n, int tile)
{
	return (n + tile - 1) / tile;
}

/* dst[r][c] = src[r0 + r][c0 + c] as fp32, zero outside rows x cols */
static void load_tile(float *dst, int dst_rows, int dst_cols, const TILE_ELEM *src, int rows, int cols, int r0,
		      int c0)
{
	for (int r = 0; r < dst_rows; r++)
		for (int c = 0; c < dst_cols; c++)
			dst[r * dst_cols + c] = r0 + r < rows && c0 + c < cols
				? TILE_WIDEN(src[(size_t)(r0 + r) * cols + c0 + c]) : 0.0f;
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

/* block (tm, tn) of C = A @ B */
static void matmul_block(TILE_ELEM *C, const TILE_ELEM *A, const TILE_ELEM *B, int M, int N, int K, int tm, int tn)
{
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
			C[(size_t)(m0 + i) * N + n0 + j] = TILE_NARROW(acc[i][j]);
}
