/* kforge-test: task=vector_add expect=inputs_modified */
/* Makes the pages of its input x writable again with mprotect (x is mapped read-only in the runner),
 * then zeroes x and returns the right answer for the zeroed input (a copy of y). The seal on the
 * inputs' memfd refuses the mprotect, so the write faults; without the seal, the judge's byte
 * comparison with its own copy sees it. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)x & ~(page - 1), hi = ((uintptr_t)(x + n) + page - 1) & ~(page - 1);
	mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE);
	float *writable = (float *)x;
	for (int i = 0; i < n; i++)
		writable[i] = 0.0f;
	for (int i = 0; i < n; i++)
		out[i] = y[i];
	return 0;
}
