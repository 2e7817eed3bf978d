/* CPU reference for cross_entropy_rows: per row, the max (vectorised), the sum of exp(x - max) in double, then
 * loss = (max - x[target]) + log(sum). A target outside [0, classes) gives NaN rather than a read out of bounds.
 * One row per OpenMP iteration. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *logits, const int32_t *targets, float *loss, int rows, int classes)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *lr = logits + (size_t)r * classes;
		float max = -INFINITY;
#pragma omp simd reduction(max : max)
		for (int c = 0; c < classes; c++) {
			float v = kf_bf16_to_float(lr[c]);
			max = v > max ? v : max;
		}
		double sum = 0;
		for (int c = 0; c < classes; c++)
			sum += expf(kf_bf16_to_float(lr[c]) - max);
		int t = targets[r];
		loss[r] = t >= 0 && t < classes ? (float)((max - kf_bf16_to_float(lr[t])) + log(sum)) : NAN;
	}
	return 0;
}
