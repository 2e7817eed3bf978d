/* kforge-test: task=vector_add expect=crash reason~=SIGKILL */
/* Sends itself SIGKILL, the signal the kernel's hard CPU limit uses: with almost no CPU time spent
 * that is a crash, not a cpu_timeout. */
#include <signal.h>

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)out, (void)n, (void)stream;
	raise(SIGKILL);
	return 0;
}
