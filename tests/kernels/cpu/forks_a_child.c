/* kforge-test: task=vector_add expect=sandbox_violation reason~=clone */
/* Forks a child (which could outlive the runner) and then computes the right answer. */
#include <sys/wait.h>
#include <unistd.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
