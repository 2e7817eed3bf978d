/* kforge-test: task=vector_add expect=sandbox_violation reason~=socket */
/* Opens an internet socket and tries to phone home, then computes the right answer. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define HOME_PORT 80

int kf_launch(const float *x, const float *y, float *out, int n)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0) {
		struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(HOME_PORT) };
		inet_pton(AF_INET, "1.1.1.1", &to.sin_addr);
		connect(fd, (struct sockaddr *)&to, sizeof to);
		close(fd);
	}
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
