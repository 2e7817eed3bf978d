/* kforge-corpus: task=vector_add intended=correct */
/* Blocks of 1024 elements, the last one clipped. */
#define BLOCK 1024

int kf_launch(const float *x, const float *y, float *out, int n)
{
	int nb = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for
	for (int b = 0; b < nb; b++) {
		int lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
		for (int i = lo; i < hi; i++)
			out[i] = x[i] + y[i];
	}
	return 0;
}
