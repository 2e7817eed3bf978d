/* kforge-test: task=matmul_f32 expect=inputs_modified */
/* The forged-input attack: zeroes A except one word (the word an invertible input hash would have
 * been solved for), then returns the product of the forged A, which is almost free and exactly right
 * for the inputs now in memory. Expected outputs must come from the judge's own copy of A, and any
 * change to A must be seen byte for byte. */
#include <stddef.h>
#include <string.h>

int kf_launch(const float *A, const float *B, float *C, int M, int N, int K)
{
	float *a = (float *)A;
	float keep = a[(size_t)M * K - 1];
	memset(a, 0, sizeof(float) * (size_t)M * K);
	a[(size_t)M * K - 1] = keep;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++)
			C[(size_t)i * N + j] = i == M - 1 ? keep * B[(size_t)(K - 1) * N + j] : 0.0f;
	return 0;
}
