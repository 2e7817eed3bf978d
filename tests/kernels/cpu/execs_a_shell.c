/* kforge-test: task=vector_add expect=sandbox_violation reason~=execve */
/* Replaces the runner with a shell. */
#include <unistd.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	char *const argv[] = { "sh", "-c", "echo pwned", NULL };
	char *const envp[] = { NULL };
	execve("/bin/sh", argv, envp);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
