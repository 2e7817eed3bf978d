/* kforge-test: task=vector_add expect=memory_limit */
/* Grows by 256 MiB chunks, each touched, toward 64 GiB: no single request looks large. */
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)256 << 20)
#define N_CHUNKS 256

static char *volatile chunks[N_CHUNKS];

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int c = 0; c < N_CHUNKS; c++) {
		chunks[c] = malloc(CHUNK_BYTES);
		memset(chunks[c], 0x5a, CHUNK_BYTES);
	}
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
