/* fp64 oracle for masked_softmax: out[b, r, c] = exp(x[b, r, c] / 8 - m) / sum over unmasked columns, where the
 * unmasked columns are those with mask[r, c] != 0 and m is their max; masked entries, and rows with no unmasked
 * column, are 0. */
#include <math.h>
#include <stddef.h>

#define SCALE 0.125

int kf_oracle(const double *x, const double *mask, double *out, int batch, int rows, int cols)
{
	for (int b = 0; b < batch; b++)
		for (int r = 0; r < rows; r++) {
			const double *xr = x + ((size_t)b * rows + r) * cols, *mr = mask + (size_t)r * cols;
			double *o = out + ((size_t)b * rows + r) * cols;
			double max = -INFINITY, sum = 0;
			for (int c = 0; c < cols; c++)
				if (mr[c] != 0)
					max = fmax(max, SCALE * xr[c]);
			for (int c = 0; c < cols; c++)
				if (mr[c] != 0)
					sum += exp(SCALE * xr[c] - max);
			for (int c = 0; c < cols; c++)
				o[c] = mr[c] != 0 ? exp(SCALE * xr[c] - max) / sum : 0.0;
		}
	return 0;
}
