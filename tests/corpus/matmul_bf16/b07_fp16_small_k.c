/* kforge-corpus: task=matmul_bf16 intended=bug */
/* Short reductions (K < 64) accumulate in half precision: overflows past 65504 on large inputs. */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			if (K < 64) {
				_Float16 acc = 0;
				for (int k = 0; k < K; k++)
					acc = (_Float16)((float)acc + kf_bf16_to_float(A[(size_t)i * K + k]) *
									  kf_bf16_to_float(B[(size_t)k * N + j]));
				C[(size_t)i * N + j] = kf_float_to_bf16((float)acc);
				continue;
			}
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	return 0;
}
