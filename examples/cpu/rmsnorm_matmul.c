/* Example candidate for rmsnorm_matmul (cpu backend): gamma folded into a transposed fp32 copy of W once
 * (Wt[n][k] = gamma[k] * W[k][n]), then per row the inverse rms and a dot product per output; rows split across
 * OpenMP threads.
 * Submit with: kforge submit --task rmsnorm_matmul examples/cpu/rmsnorm_matmul.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *X, const kf_bf16 *gamma, const kf_bf16 *W, kf_bf16 *Y, int M, int N, int K)
{
	float *wt = malloc(((size_t)K * N + 1) * sizeof *wt);
	if (!wt)
		return 1;
#pragma omp parallel
	{
#pragma omp for
		for (int j = 0; j < N; j++)
			for (int k = 0; k < K; k++)
				wt[(size_t)j * K + k] = kf_bf16_to_float(gamma[k]) * kf_bf16_to_float(W[(size_t)k * N + j]);
#pragma omp for
		for (int i = 0; i < M; i++) {
			const kf_bf16 *xr = X + (size_t)i * K;
			float ss = 0;
			for (int k = 0; k < K; k++)
				ss += kf_bf16_to_float(xr[k]) * kf_bf16_to_float(xr[k]);
			float rstd = 1.0f / sqrtf(ss / K + 1e-6f);
			for (int j = 0; j < N; j++) {
				float acc = 0;
				for (int k = 0; k < K; k++)
					acc += kf_bf16_to_float(xr[k]) * wt[(size_t)j * K + k];
				Y[(size_t)i * N + j] = kf_float_to_bf16(acc * rstd);
			}
		}
	}
	free(wt);
	return 0;
}
