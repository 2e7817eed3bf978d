/* CPU reference for matvec_bf16: y[i] = sum_k A[i, k] * x[k], bf16 widened to fp32 on the fly (a shift, so the dot
 * product vectorises), fp32 accumulation; rows split across OpenMP threads. */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *x, float *y, int M, int K)
{
#pragma omp parallel for schedule(static)
	for (int i = 0; i < M; i++) {
		const kf_bf16 *a = A + (size_t)i * K;
		float sum = 0;
#pragma omp simd reduction(+ : sum)
		for (int k = 0; k < K; k++)
			sum += kf_bf16_to_float(a[k]) * kf_bf16_to_float(x[k]);
		y[i] = sum;
	}
	return 0;
}
