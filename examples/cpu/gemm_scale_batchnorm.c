/* Example candidate for gemm_scale_batchnorm (cpu backend): the scaled linear layer into y, then per feature column
 * its batch mean and variance (two passes) and the normalisation in place. Submit with:
 * kforge submit --task gemm_scale_batchnorm examples/cpu/gemm_scale_batchnorm.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *W, const float *b, const float *scale, const float *gamma, const float *beta,
	      float *y, int M, int N, int K, float eps)
{
#pragma omp parallel for
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float acc = b[n];
			for (int k = 0; k < K; k++)
				acc += x[(size_t)m * K + k] * W[(size_t)n * K + k];
			y[(size_t)m * N + n] = acc * scale[n];
		}
#pragma omp parallel for
	for (int n = 0; n < N; n++) {
		double sum = 0, sq = 0;
		for (int m = 0; m < M; m++)
			sum += y[(size_t)m * N + n];
		float mean = (float)(sum / M);
		for (int m = 0; m < M; m++)
			sq += (double)(y[(size_t)m * N + n] - mean) * (y[(size_t)m * N + n] - mean);
		float a = gamma[n] / sqrtf((float)(sq / M) + eps);
		for (int m = 0; m < M; m++)
			y[(size_t)m * N + n] = (y[(size_t)m * N + n] - mean) * a + beta[n];
	}
	return 0;
}
