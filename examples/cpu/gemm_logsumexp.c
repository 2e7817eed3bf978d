/* Example candidate for gemm_logsumexp (cpu backend): an online log-sum-exp over each row's outputs (running max,
 * sum rescaled when the max grows). Submit with: kforge submit --task gemm_logsumexp examples/cpu/gemm_logsumexp.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K)
{
#pragma omp parallel for
	for (int m = 0; m < M; m++) {
		float run_max = -INFINITY, run_sum = 0;
		for (int n = 0; n < N; n++) {
			float z = b[n];
			for (int k = 0; k < K; k++)
				z += x[(size_t)m * K + k] * W[(size_t)n * K + k];
			if (z > run_max) {
				run_sum = run_sum * expf(run_max - z) + 1;
				run_max = z;
			} else {
				run_sum += expf(z - run_max);
			}
		}
		y[m] = run_max + logf(run_sum);
	}
	return 0;
}
