/* Example candidate for gemm_batchnorm (cpu backend): plain loops. Submit with:
 * kforge submit --task gemm_batchnorm examples/cpu/gemm_batchnorm.c */
#include <stddef.h>
#include <math.h>

int kf_launch(const float *x, const float *W, const float *bias, const float *mean, const float *var,
	      const float *gamma, const float *beta, float *y, int M, int N, int K, float eps)
{
	for (int n = 0; n < N; n++) {
		float s = gamma[n] / sqrtf(var[n] + eps), shift = beta[n] + (bias[n] - mean[n]) * s;
		for (int m = 0; m < M; m++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += x[(size_t)m * K + k] * W[(size_t)n * K + k];
			y[(size_t)m * N + n] = acc * s + shift;
		}
	}
	return 0;
}
