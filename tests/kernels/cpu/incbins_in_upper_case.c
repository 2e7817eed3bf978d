/* kforge-test: task=vector_add expect=compile_error reason~=rejected */
/* The assembler takes its directives in any case: .INCBIN pulls the password file into the object where a
 * scan for ".incbin" does not look, and kf_launch prints it. The file must not be in the compile jail. */
#include <stdio.h>

__asm__(".section .rodata\n"
	"kf_blob:\n"
	".INCBIN \"/etc/passwd\"\n"
	".byte 0\n"
	".previous\n");
extern const char kf_blob[];

int kf_launch(const float *x, const float *y, float *out, int n)
{
	fputs(kf_blob, stdout);
	fputs(kf_blob, stderr);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
