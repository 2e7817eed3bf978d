/* Example candidate for gemm_softmax (cpu backend): each row's linear outputs into y, then softmax in place.
 * Submit with: kforge submit --task gemm_softmax examples/cpu/gemm_softmax.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K)
{
#pragma omp parallel for
	for (int m = 0; m < M; m++) {
		float *yr = y + (size_t)m * N, mx = -INFINITY, sum = 0;
		for (int n = 0; n < N; n++) {
			float z = b[n];
			for (int k = 0; k < K; k++)
				z += x[(size_t)m * K + k] * W[(size_t)n * K + k];
			yr[n] = z;
			mx = fmaxf(mx, z);
		}
		for (int n = 0; n < N; n++) {
			yr[n] = expf(yr[n] - mx);
			sum += yr[n];
		}
		for (int n = 0; n < N; n++)
			yr[n] /= sum;
	}
	return 0;
}
