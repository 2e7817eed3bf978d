/* Example candidate for sum_rows (cpu backend): eight interleaved fp32 partial sums per row (shorter dependency
 * chains, smaller rounding error than one running sum), rows split across OpenMP threads.
 * Submit with: kforge submit --task sum_rows examples/cpu/sum_rows.c */
#include <stddef.h>

#define LANES 8

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		float part[LANES] = { 0 };
		int c = 0;
		for (; c + LANES <= cols; c += LANES)
			for (int l = 0; l < LANES; l++)
				part[l] += xr[c + l];
		float sum = 0;
		for (; c < cols; c++)
			sum += xr[c];
		for (int l = 0; l < LANES; l++)
			sum += part[l];
		out[r] = sum;
	}
	return 0;
}
