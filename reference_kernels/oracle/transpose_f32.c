/* fp64 oracle for transpose_f32: out[c, r] = x[r, c]. */
#include <stddef.h>

int kf_oracle(const double *x, double *out, int rows, int cols)
{
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			out[(size_t)c * rows + r] = x[(size_t)r * cols + c];
	return 0;
}
