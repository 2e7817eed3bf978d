/* CPU reference for rmsnorm_matmul: per row, rstd = 1 / sqrt(mean(x^2) + 1e-6) and the normalised row
 * x * rstd * gamma in fp32; then an fp32 accumulator row filled by axpys over the rows of W (widened once), rounded
 * once to bf16. Rows split across OpenMP threads. */
#include <math.h>
#include <stdlib.h>

#define RMS_EPS 1e-6f

int kf_launch(const kf_bf16 *X, const kf_bf16 *gamma, const kf_bf16 *W, kf_bf16 *Y, int M, int N, int K)
{
	float *w = malloc(((size_t)K * N + 1) * sizeof *w);
	if (!w)
		return 1;
	int rc = 0;
#pragma omp parallel
	{
#pragma omp for schedule(static)
		for (size_t i = 0; i < (size_t)K * N; i++)
			w[i] = kf_bf16_to_float(W[i]);
		float *acc = malloc(((size_t)N + (size_t)K + 1) * sizeof *acc);
		if (!acc) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(static)
		for (int i = 0; i < M; i++) {
			if (!acc)
				continue;
			float *xn = acc + N, ss = 0;
			for (int k = 0; k < K; k++) {
				xn[k] = kf_bf16_to_float(X[(size_t)i * K + k]);
				ss += xn[k] * xn[k];
			}
			float rstd = 1.0f / sqrtf(ss / (float)K + RMS_EPS);
			for (int k = 0; k < K; k++)
				xn[k] *= rstd * kf_bf16_to_float(gamma[k]);
			for (int j = 0; j < N; j++)
				acc[j] = 0;
			for (int k = 0; k < K; k++) {
				const float *wk = w + (size_t)k * N;
#pragma omp simd
				for (int j = 0; j < N; j++)
					acc[j] += xn[k] * wk[j];
			}
			for (int j = 0; j < N; j++)
				Y[(size_t)i * N + j] = kf_float_to_bf16(acc[j]);
		}
		free(acc);
	}
	free(w);
	return rc;
}
