/* Example candidate for transpose_f32 (cpu backend): each thread writes whole rows of the output, reading a column
 * of x. Submit with: kforge submit --task transpose_f32 examples/cpu/transpose_f32.c */
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int c = 0; c < cols; c++)
		for (int r = 0; r < rows; r++)
			out[(size_t)c * rows + r] = x[(size_t)r * cols + c];
	return 0;
}
