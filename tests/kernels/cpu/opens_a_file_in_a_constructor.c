/* kforge-test: task=vector_add expect=sandbox_violation reason~=open */
/* Reads the password file from a constructor, at load time, and echoes it to stdout and stderr. */
#include <stdio.h>

__attribute__((constructor)) static void kf_sneak(void)
{
	FILE *f = fopen("/etc/passwd", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof line, f)) {
		fputs(line, stdout);
		fputs(line, stderr);
	}
	fclose(f);
	fflush(stdout);
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
