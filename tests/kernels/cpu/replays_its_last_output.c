/* kforge-test: task=vector_add expect=nondeterministic */
/* Remembers its last inputs (by a fingerprint) and output, and replays the output when the same
 * inputs come again, so a repeat in the same process always matches; every call it does compute
 * rounds out[0] a few ulps differently (1-7 ulps from its second call on: within the tolerance,
 * but not bitwise). Only a repeat in a fresh process, which remembers nothing, catches it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KF_NOISE_ULPS 7

static int calls;
static int last_n = -1;
static float last_key[4];
static float *last_out;

int kf_launch(const float *x, const float *y, float *out, int n)
{
	float key[4] = { x[0], y[0], x[n - 1], y[n - 1] };
	if (n == last_n && !memcmp(key, last_key, sizeof key)) {
		memcpy(out, last_out, sizeof(float) * (size_t)n);
		return 0;
	}
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	int ulps = calls++ ? 1 + calls % KF_NOISE_ULPS : 0;
	for (int k = 0; k < ulps; k++)
		out[0] = nextafterf(out[0], INFINITY);
	float *keep = realloc(last_out, sizeof(float) * (size_t)n);
	if (!keep)
		return 1;
	last_out = keep;
	memcpy(last_out, out, sizeof(float) * (size_t)n);
	memcpy(last_key, key, sizeof key);
	last_n = n;
	return 0;
}
