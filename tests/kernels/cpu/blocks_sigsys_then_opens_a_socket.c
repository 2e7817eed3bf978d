/* kforge-test: task=vector_add expect=sandbox_violation */
/* Blocks SIGSYS so the sandbox's handler cannot run, then opens a socket and computes the right answer. */
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
