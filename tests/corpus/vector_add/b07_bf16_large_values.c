/* kforge-corpus: task=vector_add intended=bug */
/* "Fast path" for large magnitudes that rounds the sum to bfloat16. */
#include <math.h>
#include <stdint.h>
#include <string.h>

static float round_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	u = (u + 0x8000u) & 0xffff0000u;
	memcpy(&f, &u, 4);
	return f;
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for
	for (int i = 0; i < n; i++) {
		float s = x[i] + y[i];
		out[i] = fabsf(s) > 1e4f ? round_bf16(s) : s;
	}
	return 0;
}
