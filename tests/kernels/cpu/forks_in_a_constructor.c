/* kforge-test: task=vector_add expect=sandbox_violation reason~=clone */
/* Forks from a constructor, which runs when the shared object is loaded, before any kf_launch call. */
#include <unistd.h>

__attribute__((constructor)) static void kf_sneak(void)
{
	if (fork() == 0)
		_exit(0);
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
