/* fp64 oracle for softmax_topk: per row, the k columns with the largest x (equal x: smaller column first), in that
 * order, and their softmax probabilities exp(x - max) / sum_j exp(x_j - max). Selection by repeated scans. */
#include <math.h>
#include <stddef.h>

int kf_oracle(const double *x, double *vals, double *idx, int rows, int cols, int k)
{
	for (int r = 0; r < rows; r++) {
		const double *xr = x + (size_t)r * cols;
		double max = xr[0], sum = 0;
		for (int c = 1; c < cols; c++)
			max = fmax(max, xr[c]);
		for (int c = 0; c < cols; c++)
			sum += exp(xr[c] - max);
		double prev_v = INFINITY;
		int prev_c = -1;
		for (int j = 0; j < k; j++) {
			int best = -1;
			for (int c = 0; c < cols; c++) {
				/* candidates rank after the previous pick: smaller, or equal at a larger column */
				if (!(xr[c] < prev_v || (xr[c] == prev_v && c > prev_c)))
					continue;
				if (best < 0 || xr[c] > xr[best])
					best = c;
			}
			vals[(size_t)r * k + j] = exp(xr[best] - max) / sum;
			idx[(size_t)r * k + j] = best;
			prev_v = xr[best];
			prev_c = best;
		}
	}
	return 0;
}
