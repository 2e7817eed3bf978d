/* kforge-corpus: task=vector_add intended=bug */
/* Works in pairs and forgets the last element of an odd length. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for
	for (int i = 0; i < n / 2; i++) {
		out[2 * i] = x[2 * i] + y[2 * i];
		out[2 * i + 1] = x[2 * i + 1] + y[2 * i + 1];
	}
	return 0;
}
