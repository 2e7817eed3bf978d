/* Example candidate for gemm_sigmoid_sum (cpu backend): each row's sigmoids summed as they are produced.
 * Submit with: kforge submit --task gemm_sigmoid_sum examples/cpu/gemm_sigmoid_sum.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K)
{
#pragma omp parallel for
	for (int m = 0; m < M; m++) {
		double sum = 0;
		for (int n = 0; n < N; n++) {
			float z = b[n];
			for (int k = 0; k < K; k++)
				z += x[(size_t)m * K + k] * W[(size_t)n * K + k];
			sum += 1.0f / (1.0f + expf(-z));
		}
		y[m] = (float)sum;
	}
	return 0;
}
