/* kforge-corpus: task=vector_add intended=bug */
/* Big vectors go four at a time; the remainder code handles 2 and 3 leftovers but not 1. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	if (n <= 4096) {
		for (int i = 0; i < n; i++)
			out[i] = x[i] + y[i];
		return 0;
	}
	int q = n / 4 * 4;
#pragma omp parallel for
	for (int i = 0; i < q; i += 4) {
		out[i] = x[i] + y[i];
		out[i + 1] = x[i + 1] + y[i + 1];
		out[i + 2] = x[i + 2] + y[i + 2];
		out[i + 3] = x[i + 3] + y[i + 3];
	}
	int rem = n - q;
	if (rem == 2) {
		out[q] = x[q] + y[q];
		out[q + 1] = x[q + 1] + y[q + 1];
	} else if (rem == 3) {
		out[q] = x[q] + y[q];
		out[q + 1] = x[q + 1] + y[q + 1];
		out[q + 2] = x[q + 2] + y[q + 2];
	}
	return 0;
}
