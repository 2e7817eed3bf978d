/* kforge-test: task=matmul_bf16 expect=wrong_answer */
/* Rounds the running dot product to bfloat16 after every step instead of accumulating in fp32. */
int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	for (int i = 0; i < M; i++) {
		for (int j = 0; j < N; j++) {
			kf_bf16 acc = kf_float_to_bf16(0.0f);
			for (int k = 0; k < K; k++) {
				float prod = kf_bf16_to_float(A[(long)i * K + k]) * kf_bf16_to_float(B[(long)k * N + j]);
				acc = kf_float_to_bf16(kf_bf16_to_float(acc) + prod);
			}
			C[(long)i * N + j] = acc;
		}
	}
	return 0;
}
