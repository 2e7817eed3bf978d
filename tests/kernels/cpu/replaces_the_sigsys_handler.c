/* kforge-test: task=vector_add expect=sandbox_violation */
/* Installs its own SIGSYS handler so a forbidden call would return instead of ending the process,
 * then opens a socket and computes the right answer. */
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

static void kf_ignore(int sig)
{
	(void)sig;
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	struct sigaction sa = { .sa_handler = kf_ignore };
	sigaction(SIGSYS, &sa, NULL);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
