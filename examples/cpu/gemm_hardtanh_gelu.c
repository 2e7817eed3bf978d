/* Example candidate for gemm_hardtanh_gelu (cpu backend): dot products, clamp, GELU. Submit with:
 * kforge submit --task gemm_hardtanh_gelu examples/cpu/gemm_hardtanh_gelu.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K, float scale)
{
#pragma omp parallel for
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float z = b[n];
			for (int k = 0; k < K; k++)
				z += x[(size_t)m * K + k] * W[(size_t)n * K + k];
			z = fminf(fmaxf(z * scale, -2.0f), 2.0f);
			y[(size_t)m * N + n] = 0.5f * z * (1.0f + erff(z * 0.70710678f));
		}
	return 0;
}
