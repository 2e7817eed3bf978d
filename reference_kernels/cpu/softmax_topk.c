/* CPU reference for softmax_topk: per row, the max and the sum of exp(x - max) (in double); then k selection scans,
 * each taking the best entry ranked after the previous pick (smaller x, or equal x at a larger column), so the
 * order is larger x first and, for equal x, the smaller column first. One row per OpenMP iteration. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, float *vals, int32_t *idx, int rows, int cols, int k)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		float max = -INFINITY;
		for (int c = 0; c < cols; c++)
			max = fmaxf(max, kf_bf16_to_float(xr[c]));
		double sum = 0;
		for (int c = 0; c < cols; c++)
			sum += expf(kf_bf16_to_float(xr[c]) - max);
		float prev_v = INFINITY;
		int prev_c = -1;
		for (int j = 0; j < k; j++) {
			int best = -1;
			float best_v = -INFINITY;
			for (int c = 0; c < cols; c++) {
				float v = kf_bf16_to_float(xr[c]);
				if ((v < prev_v || (v == prev_v && c > prev_c)) && (best < 0 || v > best_v)) {
					best = c;
					best_v = v;
				}
			}
			vals[(size_t)r * k + j] = (float)(expf(best_v - max) / sum);
			idx[(size_t)r * k + j] = best;
			prev_v = best_v;
			prev_c = best;
		}
	}
	return 0;
}
