/* fp64 oracle for softmax_rows: out[r, c] = exp(x[r, c] - max_r) / sum_j exp(x[r, j] - max_r). */
#include <math.h>
#include <stddef.h>

int kf_oracle(const double *x, double *out, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		const double *xr = x + (size_t)r * cols;
		double *o = out + (size_t)r * cols;
		double max = xr[0], sum = 0;
		for (int c = 1; c < cols; c++)
			max = fmax(max, xr[c]);
		for (int c = 0; c < cols; c++) {
			o[c] = exp(xr[c] - max);
			sum += o[c];
		}
		for (int c = 0; c < cols; c++)
			o[c] /= sum;
	}
	return 0;
}
