/* fp64 oracle for reducescatter_sum_bf16 over the whole job: x is [world][world][c] (rank p's chunk q at
 * x[p][q]); out[r][i] = sum over ranks p of x[p][r][i]. */
#include <stddef.h>

int kf_oracle(const double *x, double *out, int world, int c)
{
	for (int r = 0; r < world; r++)
		for (int i = 0; i < c; i++) {
			double s = 0;
			for (int p = 0; p < world; p++)
				s += x[((size_t)p * world + r) * c + i];
			out[(size_t)r * c + i] = s;
		}
	return 0;
}
