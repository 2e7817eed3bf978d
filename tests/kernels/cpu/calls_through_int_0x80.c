/* kforge-test: task=vector_add expect=sandbox_violation reason~=foreign */
/* Makes a system call through the i386 ABI (int $0x80), which a filter written for x86-64 numbers
 * would misread: it must be caught and named as a foreign-ABI call. */
#define KF_I386_GETPID 20

int kf_launch(const float *x, const float *y, float *out, int n)
{
	long ret = KF_I386_GETPID;
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i] + (float)(ret & 0);
	return 0;
}
