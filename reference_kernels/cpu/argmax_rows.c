/* CPU reference for argmax_rows: the row max first (vectorised), then the first column holding it, so ties go to
 * the smallest index. bf16 widens to fp32 exactly, so comparisons are exact. One row per OpenMP iteration. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, int32_t *idx, int rows, int cols)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		float max = -INFINITY;
#pragma omp simd reduction(max : max)
		for (int c = 0; c < cols; c++) {
			float v = kf_bf16_to_float(xr[c]);
			max = v > max ? v : max;
		}
		int c = 0;
		while (c < cols - 1 && kf_bf16_to_float(xr[c]) != max)
			c++;
		idx[r] = c;
	}
	return 0;
}
