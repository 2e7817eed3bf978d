/* kforge-corpus: task=vector_add intended=bug */
/* Unrolled by 128; a remainder of 64 or more runs one 64-block and drops what is left after it. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	int q = n / 128 * 128;
#pragma omp parallel for
	for (int i = 0; i < q; i++)
		out[i] = x[i] + y[i];
	int rem = n - q;
	if (rem >= 64) {
		for (int i = q; i < q + 64; i++)
			out[i] = x[i] + y[i];
	} else {
		for (int i = q; i < n; i++)
			out[i] = x[i] + y[i];
	}
	return 0;
}
