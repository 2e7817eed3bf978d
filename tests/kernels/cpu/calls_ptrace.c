/* kforge-test: task=vector_add expect=sandbox_violation reason~=ptrace */
/* Asks to be traced (the first step of tampering with another process), then computes the right answer. */
#include <sys/ptrace.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
