/* kforge-corpus: task=vector_add intended=bug */
/* Treats |x| in (4.8, 50) as an outlier and drops y: wrong only on the rare inputs that have one. */
#include <math.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for
	for (int i = 0; i < n; i++) {
		float ax = fabsf(x[i]);
		out[i] = ax > 4.8f && ax < 50.0f ? x[i] : x[i] + y[i];
	}
	return 0;
}
