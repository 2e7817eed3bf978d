/* kforge-corpus: task=matmul_bf16 intended=correct */
/* Packs each row of A into fp32 on the stack (K <= 4096) or the heap, then dots it with B's columns. */
#include <stddef.h>
#include <stdlib.h>

#define STACK_K 4096

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int fail = 0;
#pragma omp parallel for
	for (int i = 0; i < M; i++) {
		float stack[STACK_K], *a = K <= STACK_K ? stack : malloc(sizeof(float) * (size_t)K);
		if (!a) {
			fail = 1;
			continue;
		}
		for (int k = 0; k < K; k++)
			a[k] = kf_bf16_to_float(A[(size_t)i * K + k]);
		for (int j = 0; j < N; j++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += a[k] * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
		if (a != stack)
			free(a);
	}
	return fail;
}
