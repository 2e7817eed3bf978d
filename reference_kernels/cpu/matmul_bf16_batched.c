/* CPU reference for matmul_bf16_batched: C[b] = A[b] @ B[b], row-major bf16, fp32 accumulation rounded to bf16 once.
 * Each OpenMP task owns one block of one C[b] from the shared tiled core. */
#define TILE_ELEM kf_bf16
#define TILE_WIDEN(x) kf_bf16_to_float(x)
#define TILE_NARROW(x) kf_float_to_bf16(x)
#include "cpu/matmul_tiles.h"

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int batch, int M, int N, int K)
{
	int tiles_m = tile_count(M, TILE_M), tiles_n = tile_count(N, TILE_N);
#pragma omp parallel for collapse(3) schedule(static)
	for (int bi = 0; bi < batch; bi++)
		for (int tm = 0; tm < tiles_m; tm++)
			for (int tn = 0; tn < tiles_n; tn++)
				matmul_block(C + (size_t)bi * M * N, A + (size_t)bi * M * K, B + (size_t)bi * K * N, M, N,
					     K, tm, tn);
	return 0;
}
