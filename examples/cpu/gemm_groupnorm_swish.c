/* Example candidate for gemm_groupnorm_swish (cpu backend): per row, the linear layer, then each group's mean and
 * variance and the swish of the normalised values. Submit with:
 * kforge submit --task gemm_groupnorm_swish examples/cpu/gemm_groupnorm_swish.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *W, const float *b, const float *gamma, const float *beta, float *y, int M,
	      int N, int K, int G, float eps)
{
	int cpg = N / G;
#pragma omp parallel for
	for (int m = 0; m < M; m++) {
		float *yr = y + (size_t)m * N;
		for (int n = 0; n < N; n++) {
			float z = b[n];
			for (int k = 0; k < K; k++)
				z += x[(size_t)m * K + k] * W[(size_t)n * K + k];
			yr[n] = z;
		}
		for (int g = 0; g < G; g++) {
			float *v = yr + g * cpg, mean = 0, var = 0;
			for (int i = 0; i < cpg; i++)
				mean += v[i];
			mean /= cpg;
			for (int i = 0; i < cpg; i++)
				var += (v[i] - mean) * (v[i] - mean);
			float rstd = 1.0f / sqrtf(var / cpg + eps);
			for (int i = 0; i < cpg; i++) {
				float t = (v[i] - mean) * rstd * gamma[g * cpg + i] + beta[g * cpg + i];
				v[i] = t / (1.0f + expf(-t));
			}
		}
	}
	return 0;
}
