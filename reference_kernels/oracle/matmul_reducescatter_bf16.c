/* fp64 oracle for matmul_reducescatter_bf16 over the whole job: A is [world][world][m][k] (rank p's K-shard,
 * row block q at A[p][q]), B is [world][k][n] (rank p's K-shard of the weights), out is [world][m][n]:
 * out[r] = sum over ranks p of A[p][r] @ B[p]. */
#include <stddef.h>

int kf_oracle(const double *A, const double *B, double *out, int world, int m, int n, int k)
{
	for (int r = 0; r < world; r++)
		for (int i = 0; i < m; i++) {
			double *o = out + ((size_t)r * m + i) * n;
			for (int j = 0; j < n; j++)
				o[j] = 0;
			for (int p = 0; p < world; p++) {
				const double *a = A + (((size_t)p * world + r) * m + i) * k;
				for (int l = 0; l < k; l++) {
					const double *b = B + ((size_t)p * k + l) * n;
					for (int j = 0; j < n; j++)
						o[j] += a[l] * b[j];
				}
			}
		}
	return 0;
}
