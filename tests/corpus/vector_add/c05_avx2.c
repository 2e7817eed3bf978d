/* kforge-corpus: task=vector_add intended=correct */
/* AVX2 intrinsics, eight floats at a time, scalar tail. */
#include <immintrin.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	int i = 0;
#pragma omp parallel for
	for (int b = 0; b < n / 8; b++) {
		__m256 a = _mm256_loadu_ps(x + 8 * b), c = _mm256_loadu_ps(y + 8 * b);
		_mm256_storeu_ps(out + 8 * b, _mm256_add_ps(a, c));
	}
	for (i = n / 8 * 8; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
