/* Example candidate for layernorm_gemm (cpu backend): each row normalised into a private buffer, then its dot products
 * with every weight row. Submit with: kforge submit --task layernorm_gemm examples/cpu/layernorm_gemm.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const float *x, const float *gamma, const float *beta, const float *W, const float *b, float *y, int M,
	      int N, int K, float eps)
{
	int rc = 0;
#pragma omp parallel
	{
		float *xn = malloc(sizeof *xn * (size_t)K);
		if (!xn) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for
		for (int m = 0; m < M; m++) {
			if (!xn)
				continue;
			const float *xr = x + (size_t)m * K;
			double sum = 0, sq = 0;
			for (int k = 0; k < K; k++)
				sum += xr[k];
			float mean = (float)(sum / K);
			for (int k = 0; k < K; k++)
				sq += (double)(xr[k] - mean) * (xr[k] - mean);
			float rstd = 1.0f / sqrtf((float)(sq / K) + eps);
			for (int k = 0; k < K; k++)
				xn[k] = (xr[k] - mean) * rstd * gamma[k] + beta[k];
			for (int n = 0; n < N; n++) {
				float acc = b[n];
				for (int k = 0; k < K; k++)
					acc += xn[k] * W[(size_t)n * K + k];
				y[(size_t)m * N + n] = acc;
			}
		}
		free(xn);
	}
	return rc;
}
