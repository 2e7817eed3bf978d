/* Example candidate for matmul_broadcast_a_bf16 (cpu backend): A and each B[b] are widened to fp32 once, then each
 * output row is an fp32 accumulator filled in i-k-j order and rounded once; (b, m) rows across OpenMP threads.
 * Submit with: kforge submit --task matmul_broadcast_a_bf16 examples/cpu/matmul_broadcast_a_bf16.c */
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int batch, int M, int N, int K)
{
	size_t na = (size_t)M * K, nb = (size_t)batch * K * N;
	float *af = malloc(sizeof *af * (na ? na : 1)), *bf = malloc(sizeof *bf * (nb ? nb : 1));
	int rc = 0;
	if (!af || !bf) {
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < na; i++)
		af[i] = kf_bf16_to_float(A[i]);
	for (size_t i = 0; i < nb; i++)
		bf[i] = kf_bf16_to_float(B[i]);
#pragma omp parallel for reduction(| : rc)
	for (int r = 0; r < batch * M; r++) {
		int b = r / M, m = r % M;
		float *acc = calloc(N ? (size_t)N : 1, sizeof *acc);
		if (!acc) {
			rc = 1;
			continue;
		}
		for (int k = 0; k < K; k++) {
			float a = af[(size_t)m * K + k];
			const float *brow = bf + ((size_t)b * K + k) * N;
			for (int j = 0; j < N; j++)
				acc[j] += a * brow[j];
		}
		for (int j = 0; j < N; j++)
			C[(size_t)r * N + j] = kf_float_to_bf16(acc[j]);
		free(acc);
	}
out:
	free(af);
	free(bf);
	return rc;
}
