/* kforge-test: task=vector_add expect=sandbox_violation */
/* Sends SIGKILL to its parent (the judge, if it can see it), then computes the right answer. */
#include <signal.h>
#include <unistd.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	kill(getppid(), SIGKILL);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
