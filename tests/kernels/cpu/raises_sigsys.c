/* kforge-test: task=vector_add expect=crash reason~=SIGSYS */
/* Raises SIGSYS itself without making any forbidden system call: a crash naming the signal, not a
 * sandbox violation blamed on some system call. */
#include <signal.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	(void)x, (void)y, (void)out, (void)n;
	raise(SIGSYS);
	return 0;
}
