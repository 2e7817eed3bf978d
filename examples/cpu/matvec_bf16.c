/* Example candidate for matvec_bf16 (cpu backend): x widened to fp32 once, then one fp32 dot product per row;
 * rows split across OpenMP threads. Submit with: kforge submit --task matvec_bf16 examples/cpu/matvec_bf16.c */
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *x, float *y, int M, int K)
{
	float *xf = malloc(((size_t)K + 1) * sizeof *xf);
	if (!xf)
		return 1;
	for (int k = 0; k < K; k++)
		xf[k] = kf_bf16_to_float(x[k]);
#pragma omp parallel for
	for (int i = 0; i < M; i++) {
		float sum = 0;
		for (int k = 0; k < K; k++)
			sum += kf_bf16_to_float(A[(size_t)i * K + k]) * xf[k];
		y[i] = sum;
	}
	free(xf);
	return 0;
}
