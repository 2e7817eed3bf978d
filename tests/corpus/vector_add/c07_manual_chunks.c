/* kforge-corpus: task=vector_add intended=correct */
/* Each thread takes one contiguous chunk (ceiling division). */
#include <omp.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		int chunk = (n + nt - 1) / nt;
		int start = t * chunk, end = start + chunk < n ? start + chunk : n;
		for (int i = start; i < end; i++)
			out[i] = x[i] + y[i];
	}
	return 0;
}
