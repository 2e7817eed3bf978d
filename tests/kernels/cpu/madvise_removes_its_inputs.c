/* kforge-test: task=vector_add expect=inputs_modified */
/* Drops the pages of its input x with madvise(MADV_REMOVE), which zeroes them in the shared memfd in
 * O(1), then returns the right answer for the zeroed input (a copy of y). Where the pages cannot be
 * removed (a read-only, sealed mapping) it writes x directly, so it never passes honestly. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)x + page - 1) & ~(page - 1), hi = (uintptr_t)(x + n) & ~(page - 1);
	if (hi <= lo || madvise((void *)lo, hi - lo, MADV_REMOVE) != 0)
		*(volatile float *)x = 0.0f;
	for (int i = 0; i < n; i++)
		out[i] = lo < hi && (uintptr_t)(x + i) >= lo && (uintptr_t)(x + i + 1) <= hi ? y[i] : x[i] + y[i];
	return 0;
}
