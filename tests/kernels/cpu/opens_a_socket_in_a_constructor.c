/* kforge-test: task=vector_add expect=sandbox_violation reason~=socket */
/* Opens an internet socket from a constructor, at load time. */
#include <sys/socket.h>
#include <unistd.h>

__attribute__((constructor)) static void kf_sneak(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0)
		close(fd);
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
