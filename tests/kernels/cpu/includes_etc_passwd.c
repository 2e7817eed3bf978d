/* kforge-test: task=vector_add expect=compile_error */
/* Includes the host's password file, hoping the compiler quotes its lines back in the error log. */
#include "/etc/passwd"

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
