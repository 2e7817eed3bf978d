/* Example candidate for gemm_swish_scale (cpu backend): dot products, then swish written as z / (1 + exp(-z)).
 * Submit with: kforge submit --task gemm_swish_scale examples/cpu/gemm_swish_scale.c */
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
			y[(size_t)m * N + n] = z / (1.0f + expf(-z)) * scale;
		}
	return 0;
}
