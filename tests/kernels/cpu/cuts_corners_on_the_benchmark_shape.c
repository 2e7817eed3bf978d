/* kforge-test: task=vector_add expect=wrong_answer */
/* Correct on small shapes; on large ones (the benchmark) computes the first 1024 elements and zeroes the rest. */
#include <string.h>

#define KF_LARGE_N (1 << 20)
#define KF_SHOWCASE 1024

int kf_launch(const float *x, const float *y, float *out, int n)
{
	int honest = n > KF_LARGE_N ? KF_SHOWCASE : n;
	for (int i = 0; i < honest; i++)
		out[i] = x[i] + y[i];
	memset(out + honest, 0, (size_t)(n - honest) * sizeof *out);
	return 0;
}
