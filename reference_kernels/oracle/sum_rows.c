/* fp64 oracle for sum_rows: out[r] = sum_c x[r, c]. */
#include <stddef.h>

int kf_oracle(const double *x, double *out, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		double sum = 0;
		for (int c = 0; c < cols; c++)
			sum += x[(size_t)r * cols + c];
		out[r] = sum;
	}
	return 0;
}
