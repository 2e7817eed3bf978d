/* kforge-corpus: task=vector_add intended=bug */
/* The master thread "initialises" the last element inside the parallel region without a barrier:
 * when it runs after the thread that owns that element, the result is lost. */
#include <omp.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel
	{
#pragma omp master
		out[n - 1] = x[n - 1];
#pragma omp for nowait
		for (int i = 0; i < n; i++)
			out[i] = x[i] + y[i];
	}
	return 0;
}
