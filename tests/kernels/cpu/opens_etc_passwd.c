/* kforge-test: task=vector_add expect=sandbox_violation reason~=open */
/* Reads the password file, echoes it to stdout and stderr, and computes the right answer. */
#include <stdio.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	FILE *f = fopen("/etc/passwd", "r");
	if (f) {
		char line[256];
		while (fgets(line, sizeof line, f)) {
			fputs(line, stdout);
			fputs(line, stderr);
		}
		fclose(f);
		fflush(stdout);
	}
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
