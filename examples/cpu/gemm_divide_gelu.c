/* Example candidate for gemm_divide_gelu (cpu backend): dot products, the division as a multiplication by its
 * reciprocal, then GELU. Submit with: kforge submit --task gemm_divide_gelu examples/cpu/gemm_divide_gelu.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K, float divisor)
{
	float inv = 1.0f / divisor;
#pragma omp parallel for
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float z = b[n];
			for (int k = 0; k < K; k++)
				z += x[(size_t)m * K + k] * W[(size_t)n * K + k];
			z *= inv;
			y[(size_t)m * N + n] = 0.5f * z * (1.0f + erff(z * 0.70710678f));
		}
	return 0;
}
