/* Example candidate for tensor4d_matmul_bf16 (cpu backend): W is widened to fp32 once; each (b, i, j) row of A
 * becomes an fp32 accumulator row filled in l-k order and rounded once; rows across OpenMP threads.
 * Submit with: kforge submit --task tensor4d_matmul_bf16 examples/cpu/tensor4d_matmul_bf16.c */
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *W, kf_bf16 *C, int B, int I, int J, int L, int K)
{
	size_t nw = (size_t)L * K;
	int rows = B * I * J, rc = 0;
	float *wf = malloc(sizeof *wf * (nw ? nw : 1));
	if (!wf)
		return 1;
	for (size_t i = 0; i < nw; i++)
		wf[i] = kf_bf16_to_float(W[i]);
#pragma omp parallel for reduction(| : rc)
	for (int r = 0; r < rows; r++) {
		float *acc = calloc(K ? (size_t)K : 1, sizeof *acc);
		if (!acc) {
			rc = 1;
			continue;
		}
		for (int l = 0; l < L; l++) {
			float a = kf_bf16_to_float(A[(size_t)r * L + l]);
			const float *w = wf + (size_t)l * K;
			for (int k = 0; k < K; k++)
				acc[k] += a * w[k];
		}
		for (int k = 0; k < K; k++)
			C[(size_t)r * K + k] = kf_float_to_bf16(acc[k]);
		free(acc);
	}
	free(wf);
	return rc;
}
