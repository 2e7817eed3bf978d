/* CPU reference for transpose_f32: out[c, r] = x[r, c], in TILE x TILE blocks so both matrices are walked a cache
 * line at a time; blocks split across OpenMP threads. */
#include <stddef.h>

#define TILE 32

int kf_launch(const float *x, float *out, int rows, int cols)
{
	int tiles_r = (rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
#pragma omp parallel for collapse(2) schedule(static)
	for (int tr = 0; tr < tiles_r; tr++)
		for (int tc = 0; tc < tiles_c; tc++) {
			int r_end = tr * TILE + TILE < rows ? tr * TILE + TILE : rows;
			int c_end = tc * TILE + TILE < cols ? tc * TILE + TILE : cols;
			for (int c = tc * TILE; c < c_end; c++)
				for (int r = tr * TILE; r < r_end; r++)
					out[(size_t)c * rows + r] = x[(size_t)r * cols + c];
		}
	return 0;
}
