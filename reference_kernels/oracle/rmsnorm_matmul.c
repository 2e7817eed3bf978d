/* fp64 oracle for rmsnorm_matmul: Y[m, :] = (X[m, :] / sqrt(mean_k X[m, k]^2 + 1e-6) * gamma) @ W. */
#include <math.h>
#include <stddef.h>

#define RMS_EPS 1e-6

int kf_oracle(const double *X, const double *gamma, const double *W, double *Y, int M, int N, int K)
{
	for (int i = 0; i < M; i++) {
		const double *xr = X + (size_t)i * K;
		double ss = 0;
		for (int k = 0; k < K; k++)
			ss += xr[k] * xr[k];
		double rstd = 1.0 / sqrt(ss / K + RMS_EPS);
		for (int j = 0; j < N; j++) {
			double acc = 0;
			for (int k = 0; k < K; k++)
				acc += xr[k] * rstd * gamma[k] * W[(size_t)k * N + j];
			Y[(size_t)i * N + j] = acc;
		}
	}
	return 0;
}
