/* kforge-corpus: task=vector_add intended=bug */
/* Unrolled by 32; the tail loop runs (rem & 15) times, so a remainder of 16..31 loses elements. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	int main_end = n / 32 * 32;
#pragma omp parallel for
	for (int b = 0; b < main_end; b += 32)
		for (int k = 0; k < 32; k++)
			out[b + k] = x[b + k] + y[b + k];
	int rem = n - main_end;
	for (int k = 0; k < (rem & 15); k++)
		out[main_end + k] = x[main_end + k] + y[main_end + k];
	return 0;
}
