/* CPU reference for matmul_bf16: C[M,N] = A[M,K] @ B[K,N], row-major bf16, fp32 accumulation rounded to bf16 once.
 * Each OpenMP task owns one block of C from the shared tiled core. */
#define TILE_ELEM kf_bf16
#define TILE_WIDEN(x) kf_bf16_to_float(x)
#define TILE_NARROW(x) kf_float_to_bf16(x)
#include "cpu/matmul_tiles.h"

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int tiles_m = tile_count(M, TILE_M), tiles_n = tile_count(N, TILE_N);
#pragma omp parallel for collapse(2) schedule(static)
	for (int tm = 0; tm < tiles_m; tm++)
		for (int tn = 0; tn < tiles_n; tn++)
			matmul_block(C, A, B, M, N, K, tm, tn);
	return 0;
}
