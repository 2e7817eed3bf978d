/* CPU reference for matmul_f32: C[M,N] = A[M,K] @ B[K,N], row-major fp32, fp32 accumulation. Each OpenMP task owns
 * one block of C from the shared tiled core. */
#define TILE_ELEM float
#define TILE_WIDEN(x) (x)
#define TILE_NARROW(x) (x)
#include "cpu/matmul_tiles.h"

int kf_launch(const float *A, const float *B, float *C, int M, int N, int K)
{
	int tiles_m = tile_count(M, TILE_M), tiles_n = tile_count(N, TILE_N);
#pragma omp parallel for collapse(2) schedule(static)
	for (int tm = 0; tm < tiles_m; tm++)
		for (int tn = 0; tn < tiles_n; tn++)
			matmul_block(C, A, B, M, N, K, tm, tn);
	return 0;
}
