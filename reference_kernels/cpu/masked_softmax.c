/* CPU reference for masked_softmax: per row, the max of x / 8 over the unmasked columns, then exp(x / 8 - max) there
 * (0 elsewhere) summed in double and normalised; a row with nothing unmasked stays 0. One row per OpenMP iteration. */
#include <math.h>
#include <stddef.h>

#define SCALE 0.125f

int kf_launch(const kf_bf16 *x, const int32_t *mask, kf_bf16 *out, int batch, int rows, int cols)
{
	long long n_rows = (long long)batch * rows;
#pragma omp parallel for schedule(static)
	for (long long br = 0; br < n_rows; br++) {
		const kf_bf16 *xr = x + (size_t)br * cols;
		const int32_t *m = mask + (size_t)(br % rows) * cols;
		kf_bf16 *o = out + (size_t)br * cols;
		float max = -INFINITY;
		for (int c = 0; c < cols; c++)
			if (m[c])
				max = fmaxf(max, SCALE * kf_bf16_to_float(xr[c]));
		double sum = 0;
		for (int c = 0; c < cols; c++)
			if (m[c])
				sum += expf(SCALE * kf_bf16_to_float(xr[c]) - max);
		float inv = sum > 0 ? (float)(1.0 / sum) : 0.0f;
		for (int c = 0; c < cols; c++)
			o[c] = kf_float_to_bf16(m[c] ? expf(SCALE * kf_bf16_to_float(xr[c]) - max) * inv : 0.0f);
	}
	return 0;
}
