/* fp64 oracle for the copy_f32 fidelity probe. */

int kf_oracle(const double *x, double *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i];
	return 0;
}
