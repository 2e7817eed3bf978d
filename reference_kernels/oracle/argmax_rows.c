/* fp64 oracle for argmax_rows: idx[r] = the first c where x[r, c] is largest (strict >, so ties keep the first). */
#include <stddef.h>

int kf_oracle(const double *x, double *idx, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		int best = 0;
		for (int c = 1; c < cols; c++)
			if (x[(size_t)r * cols + c] > x[(size_t)r * cols + best])
				best = c;
		idx[r] = best;
	}
	return 0;
}
