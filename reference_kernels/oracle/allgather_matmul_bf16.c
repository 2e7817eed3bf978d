/* fp64 oracle for allgather_matmul_bf16 over the whole job: A is [world][m][k] (rank p's row shard), B is
 * [world][k][n] (rank r's weights), C is [world][world][m][n]: C[r][p] = A[p] @ B[r]. */
#include <stddef.h>

int kf_oracle(const double *A, const double *B, double *C, int world, int m, int n, int k)
{
	for (int r = 0; r < world; r++)
		for (int p = 0; p < world; p++)
			for (int i = 0; i < m; i++) {
				double *c = C + (((size_t)r * world + p) * m + i) * n;
				const double *a = A + ((size_t)p * m + i) * k;
				for (int j = 0; j < n; j++)
					c[j] = 0;
				for (int l = 0; l < k; l++) {
					const double *b = B + ((size_t)r * k + l) * n;
					for (int j = 0; j < n; j++)
						c[j] += a[l] * b[j];
				}
			}
	return 0;
}
