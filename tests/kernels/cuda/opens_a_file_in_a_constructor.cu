/* kforge-test: task=vector_add expect=sandbox_violation reason~=open */
#include <stdio.h>

__attribute__((constructor)) static void peek(void) { fopen("/etc/hostname", "r"); }

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)out, (void)n, (void)stream;
	return 0;
}
