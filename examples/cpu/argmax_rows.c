/* Example candidate for argmax_rows (cpu backend): one pass per row keeping the first strictly larger value, so
 * ties stay at the smallest index. Submit with: kforge submit --task argmax_rows examples/cpu/argmax_rows.c */
#include <stddef.h>

int kf_launch(const kf_bf16 *x, int32_t *idx, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		int best = 0;
		float best_v = kf_bf16_to_float(xr[0]);
		for (int c = 1; c < cols; c++) {
			float v = kf_bf16_to_float(xr[c]);
			if (v > best_v) {
				best_v = v;
				best = c;
			}
		}
		idx[r] = best;
	}
	return 0;
}
