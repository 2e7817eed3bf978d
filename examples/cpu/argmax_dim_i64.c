/* Example candidate for argmax_dim_i64 (cpu backend): plain loops. Submit with:
 * kforge submit --task argmax_dim_i64 examples/cpu/argmax_dim_i64.c */
#include <stddef.h>

int kf_launch(const float *x, int64_t *idx, int B, int N, int M)
{
	for (int b = 0; b < B; b++)
		for (int m = 0; m < M; m++) {
			const float *col = x + (size_t)b * N * M + m;
			int64_t best = 0;
			for (int n = 1; n < N; n++)
				if (col[(size_t)n * M] > col[best * M])
					best = n;
			idx[(size_t)b * M + m] = best;
		}
	return 0;
}
