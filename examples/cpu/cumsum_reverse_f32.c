/* Example candidate for cumsum_reverse_f32 (cpu backend): a running fp32 sum walking each row from its last column
 * to its first; rows across OpenMP threads.
 * Submit with: kforge submit --task cumsum_reverse_f32 examples/cpu/cumsum_reverse_f32.c */
#include <stddef.h>

int kf_launch(const float *x, float *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		float sum = 0;
		for (int c = cols - 1; c >= 0; c--) {
			sum += x[(size_t)r * cols + c];
			y[(size_t)r * cols + c] = sum;
		}
	}
	return 0;
}
