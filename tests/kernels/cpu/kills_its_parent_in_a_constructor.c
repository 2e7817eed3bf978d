/* kforge-test: task=vector_add expect=sandbox_violation */
/* Sends SIGKILL to its parent from a constructor, at load time. */
#include <signal.h>
#include <unistd.h>

__attribute__((constructor)) static void kf_sneak(void)
{
	kill(getppid(), SIGKILL);
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
