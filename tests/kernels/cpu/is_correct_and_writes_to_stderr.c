/* kforge-test: task=vector_add expect=ok */
/* A correct kernel that logs one harmless line to stderr on its first call: chatter alone is no offence. */
#include <stdio.h>

static int kf_logged;

int kf_launch(const float *x, const float *y, float *out, int n)
{
	if (!kf_logged) {
		kf_logged = 1;
		fprintf(stderr, "vector_add: first call, n=%d\n", n);
	}
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
