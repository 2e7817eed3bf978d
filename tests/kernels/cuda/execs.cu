/* kforge-test: task=vector_add expect=sandbox_violation reason~=execve */
#include <unistd.h>

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)out, (void)n, (void)stream;
	char *argv[] = { (char *)"/bin/sh", NULL };
	execv("/bin/sh", argv);
	return 1;
}
