/* Example candidate for matrix_scalar_f32 (cpu backend): one multiply per element, a single vectorised OpenMP loop.
 * Submit with: kforge submit --task matrix_scalar_f32 examples/cpu/matrix_scalar_f32.c */
#include <stddef.h>

int kf_launch(const float *A, float *C, int M, int N, float s)
{
	size_t n = (size_t)M * N;
#pragma omp parallel for simd
	for (size_t i = 0; i < n; i++)
		C[i] = A[i] * s;
	return 0;
}
