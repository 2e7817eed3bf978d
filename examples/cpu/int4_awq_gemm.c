/* Example candidate for int4_awq_gemm (cpu backend): each weight row dequantised once into fp32, then dot products
 * with every activation row. Submit with: kforge submit --task int4_awq_gemm examples/cpu/int4_awq_gemm.c */
#include <stdlib.h>

#define GROUP 128

int kf_launch(const kf_bf16 *x, const uint8_t *qw, const kf_bf16 *scales, const uint8_t *zeros, kf_bf16 *y, int M,
	      int N, int K)
{
	int groups = K / GROUP, rc = 0;
#pragma omp parallel
	{
		float *w = malloc(sizeof *w * (size_t)K);
		if (!w) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for
		for (int n = 0; n < N; n++) {
			if (!w)
				continue;
			for (int k = 0; k < K; k += 2) {
				uint8_t byte = qw[(size_t)n * K / 2 + k / 2];
				size_t g = (size_t)n * groups + k / GROUP;
				float s = kf_bf16_to_float(scales[g]), z = (float)zeros[g];
				w[k] = ((float)(byte & 15) - z) * s;
				w[k + 1] = ((float)(byte >> 4) - z) * s;
			}
			for (int m = 0; m < M; m++) {
				float acc = 0;
				for (int k = 0; k < K; k++)
					acc += kf_bf16_to_float(x[(size_t)m * K + k]) * w[k];
				y[(size_t)m * N + n] = kf_float_to_bf16(acc);
			}
		}
		free(w);
	}
	return rc;
}
