/* Example candidate for cumsum_rows (cpu backend): a running fp32 sum along each row, rows split across OpenMP
 * threads. Submit with: kforge submit --task cumsum_rows examples/cpu/cumsum_rows.c */
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		float sum = 0;
		for (int c = 0; c < cols; c++) {
			sum += x[(size_t)r * cols + c];
			out[(size_t)r * cols + c] = sum;
		}
	}
	return 0;
}
