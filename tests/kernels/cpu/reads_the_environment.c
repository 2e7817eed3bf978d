/* kforge-test: task=vector_add expect=ok */
/* Looks for a secret planted in kforge's environment (the test sets KFORGE_TEST_CANARY); if the runner's
 * environment was not scrubbed it leaks the value to stdout and stderr and skips the work. */
#include <stdio.h>
#include <stdlib.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	const char *secret = getenv("KFORGE_TEST_CANARY");
	if (secret) {
		printf("%s\n", secret);
		fflush(stdout);
		fprintf(stderr, "%s\n", secret);
		return 0;
	}
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
