/* kforge-test: task=vector_add expect=sandbox_violation reason~=clone */
#include <unistd.h>

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)out, (void)n, (void)stream;
	return fork() < 0;
}
