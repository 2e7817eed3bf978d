/* fp64 oracle for vector_add: out = x + y. */

int kf_oracle(const double *x, const double *y, double *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
