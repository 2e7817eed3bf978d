/* kforge-test: task=vector_add expect=sandbox_violation reason~=x32 */
/* Makes a system call through the x32 ABI (the x86-64 number with bit 30 set): caught and named as
 * a foreign-ABI call. */
#include <sys/syscall.h>
#include <unistd.h>

#define KF_X32_BIT 0x40000000L

int kf_launch(const float *x, const float *y, float *out, int n)
{
	long ret = syscall(KF_X32_BIT | SYS_getppid);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i] + (float)(ret & 0);
	return 0;
}
