/* kforge-test: task=vector_add expect=compile_error reason~=rejected */
/* Spells the directive across a line splice (backslash-newline), which translation phase 2 removes before
 * the preprocessor sees "#include", but a line-by-line scan does not: the password file must still be out
 * of the compiler's reach, and none of it may show in the log. */
#inc\
lude "/etc/passwd"

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
