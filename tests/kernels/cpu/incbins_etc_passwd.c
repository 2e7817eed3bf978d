/* kforge-test: task=vector_add expect=compile_error */
/* Pulls the password file into the object with the assembler's binary-include directive, its name split
 * across two string literals so no source scan sees it, then prints it from kf_launch: the compile jail
 * itself must keep the host's files away from the compiler. */
#include <stdio.h>

__asm__(".section .rodata\n"
	"kf_blob:\n"
	".inc" "bin \"/etc/passwd\"\n"
	".byte 0\n"
	".previous\n");
extern const char kf_blob[];

int kf_launch(const float *x, const float *y, float *out, int n)
{
	fputs(kf_blob, stdout);
	fflush(stdout);
	fputs(kf_blob, stderr);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
