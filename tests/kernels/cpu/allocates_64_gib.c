/* kforge-test: task=vector_add expect=memory_limit */
/* Asks for 64 GiB in one malloc and touches all of it; the memory cap must stop it, not the host. */
#include <stdlib.h>
#include <string.h>

#define HOG_BYTES ((size_t)64 << 30)

static char *volatile hog;

int kf_launch(const float *x, const float *y, float *out, int n)
{
	hog = malloc(HOG_BYTES);
	memset(hog, 0x5a, HOG_BYTES);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i] + (float)(hog[i] - 0x5a);
	return 0;
}
