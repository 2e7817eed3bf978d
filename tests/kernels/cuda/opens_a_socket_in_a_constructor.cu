/* kforge-test: task=vector_add expect=sandbox_violation reason~=socket */
#include <sys/socket.h>

__attribute__((constructor)) static void phone_home(void) { socket(AF_INET, SOCK_STREAM, 0); }

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)out, (void)n, (void)stream;
	return 0;
}
