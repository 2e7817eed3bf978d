/* fp64 oracle for rmsnorm_bf16: y = x / sqrt(mean(x^2) + 1e-6) * gamma per row. */
#include <math.h>
#include <stddef.h>

#define RMS_EPS 1e-6

int kf_oracle(const double *x, const double *gamma, double *y, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		const double *xr = x + (size_t)r * cols;
		double ms = 0;
		for (int c = 0; c < cols; c++)
			ms += xr[c] * xr[c];
		ms /= cols;
		for (int c = 0; c < cols; c++)
			y[(size_t)r * cols + c] = xr[c] / sqrt(ms + RMS_EPS) * gamma[c];
	}
	return 0;
}
