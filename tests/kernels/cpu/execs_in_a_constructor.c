/* kforge-test: task=vector_add expect=sandbox_violation reason~=execve */
/* Replaces the runner with a shell from a constructor, at load time. */
#include <unistd.h>

__attribute__((constructor)) static void kf_sneak(void)
{
	char *const argv[] = { "sh", "-c", "echo pwned", NULL };
	char *const envp[] = { NULL };
	execve("/bin/sh", argv, envp);
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
