/* Example candidate for l2_norm_rows_bf16 (cpu backend): per row, the sum of squares in fp32 (widened once), then one
 * reciprocal square root and a multiply per element; rows across OpenMP threads.
 * Submit with: kforge submit --task l2_norm_rows_bf16 examples/cpu/l2_norm_rows_bf16.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		float ss = 0;
		for (int c = 0; c < cols; c++) {
			float v = kf_bf16_to_float(xr[c]);
			ss += v * v;
		}
		const float inv = 1.0f / sqrtf(ss);
		for (int c = 0; c < cols; c++)
			y[(size_t)r * cols + c] = kf_float_to_bf16(kf_bf16_to_float(xr[c]) * inv);
	}
	return 0;
}
