/* fp64 oracle for max_rows: out[r] = max_c x[r, c]. */
#include <stddef.h>

int kf_oracle(const double *x, double *out, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		double max = x[(size_t)r * cols];
		for (int c = 1; c < cols; c++)
			if (x[(size_t)r * cols + c] > max)
				max = x[(size_t)r * cols + c];
		out[r] = max;
	}
	return 0;
}
