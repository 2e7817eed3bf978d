/* Example candidate for softmax_topk (cpu backend): per row, the max and the sum of exponentials, and a sorted list
 * of the k best (value, column) pairs kept by insertion in one pass (a later column never displaces an equal value);
 * rows split across OpenMP threads.
 * Submit with: kforge submit --task softmax_topk examples/cpu/softmax_topk.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, float *vals, int32_t *idx, int rows, int cols, int k)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		float *best_v = vals + (size_t)r * k; /* raw x values until the end */
		int32_t *best_c = idx + (size_t)r * k;
		int n = 0;
		float max = -INFINITY;
		for (int c = 0; c < cols; c++) {
			float v = kf_bf16_to_float(xr[c]);
			max = fmaxf(max, v);
			if (n == k && v <= best_v[k - 1])
				continue;
			int at = n < k ? n++ : k - 1;
			while (at > 0 && best_v[at - 1] < v) {
				best_v[at] = best_v[at - 1];
				best_c[at] = best_c[at - 1];
				at--;
			}
			best_v[at] = v;
			best_c[at] = c;
		}
		double sum = 0;
		for (int c = 0; c < cols; c++)
			sum += exp((double)kf_bf16_to_float(xr[c]) - max);
		for (int j = 0; j < k; j++)
			best_v[j] = (float)(exp((double)best_v[j] - max) / sum);
	}
	return 0;
}
