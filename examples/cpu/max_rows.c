/* Example candidate for max_rows (cpu backend): the running max starts from the row's first element.
 * Submit with: kforge submit --task max_rows examples/cpu/max_rows.c */
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		float max = xr[0];
		for (int c = 1; c < cols; c++)
			if (xr[c] > max)
				max = xr[c];
		out[r] = max;
	}
	return 0;
}
