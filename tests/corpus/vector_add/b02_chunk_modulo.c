/* kforge-corpus: task=vector_add intended=bug */
/* Chunks of 4096; the last partial chunk's length is taken modulo 2048 (wrong when it is over 2048). */
#define CHUNK 4096

int kf_launch(const float *x, const float *y, float *out, int n)
{
	int chunks = (n + CHUNK - 1) / CHUNK;
#pragma omp parallel for
	for (int c = 0; c < chunks; c++) {
		int start = c * CHUNK;
		int len = n - start < CHUNK ? (n - start) % (CHUNK / 2) : CHUNK;
		if (len == 0 && n - start < CHUNK)
			len = n - start;
		for (int i = 0; i < len; i++)
			out[start + i] = x[start + i] + y[start + i];
	}
	return 0;
}
