/* fp64 oracle for matvec_bf16: y[i] = sum_k A[i, k] * x[k]. */
#include <stddef.h>

int kf_oracle(const double *A, const double *x, double *y, int M, int K)
{
	for (int i = 0; i < M; i++) {
		double sum = 0;
		for (int k = 0; k < K; k++)
			sum += A[(size_t)i * K + k] * x[k];
		y[i] = sum;
	}
	return 0;
}
