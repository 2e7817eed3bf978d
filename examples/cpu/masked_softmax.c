/* Example candidate for masked_softmax (cpu backend): one online pass per row for the max and the rescaled sum over
 * the unmasked columns, then the writes; rows split across OpenMP threads.
 * Submit with: kforge submit --task masked_softmax examples/cpu/masked_softmax.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const int32_t *mask, kf_bf16 *out, int batch, int rows, int cols)
{
#pragma omp parallel for
	for (long long br = 0; br < (long long)batch * rows; br++) {
		const kf_bf16 *xr = x + (size_t)br * cols;
		const int32_t *m = mask + (size_t)(br % rows) * cols;
		float max = -INFINITY, sum = 0;
		for (int c = 0; c < cols; c++) {
			if (!m[c])
				continue;
			float v = kf_bf16_to_float(xr[c]) / 8;
			if (v > max) {
				sum = sum * expf(max - v) + 1;
				max = v;
			} else {
				sum += expf(v - max);
			}
		}
		for (int c = 0; c < cols; c++)
			out[(size_t)br * cols + c] =
				kf_float_to_bf16(m[c] ? expf(kf_bf16_to_float(xr[c]) / 8 - max) / sum : 0.0f);
	}
	return 0;
}
