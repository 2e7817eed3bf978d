/* kforge-test: task=vector_add expect=runtime_error */
/* Maps 6 GiB shared and anonymous, which RLIMIT_DATA does not count, against the 4 GiB cap, and
 * touches all of it; gives up with an error when the mapping is refused. */
#include <string.h>
#include <sys/mman.h>

#define KF_BYTES ((size_t)6 << 30)

int kf_launch(const float *x, const float *y, float *out, int n)
{
	char *p = mmap(NULL, KF_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memset(p, 0x5a, KF_BYTES);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i] + (float)(p[i] & 0);
	return 0;
}
