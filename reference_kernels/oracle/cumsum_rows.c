/* fp64 oracle for cumsum_rows: out[r, c] = sum_{j <= c} x[r, j]. */
#include <stddef.h>

int kf_oracle(const double *x, double *out, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		double sum = 0;
		for (int c = 0; c < cols; c++) {
			sum += x[(size_t)r * cols + c];
			out[(size_t)r * cols + c] = sum;
		}
	}
	return 0;
}
