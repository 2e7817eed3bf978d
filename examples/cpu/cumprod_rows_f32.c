/* Example candidate for cumprod_rows_f32 (cpu backend): a running fp32 product along each row, rows across OpenMP
 * threads. Submit with: kforge submit --task cumprod_rows_f32 examples/cpu/cumprod_rows_f32.c */
#include <stddef.h>

int kf_launch(const float *x, float *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		float p = 1;
		for (int c = 0; c < cols; c++) {
			p *= x[(size_t)r * cols + c];
			y[(size_t)r * cols + c] = p;
		}
	}
	return 0;
}
