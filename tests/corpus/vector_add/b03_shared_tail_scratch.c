/* kforge-corpus: task=vector_add intended=bug */
/* Large vectors: each thread finishes its chunk through one scratch buffer shared by all threads
 * (a race that shows when two threads reach their tails together). */
#include <omp.h>
#include <string.h>

#define TAIL 64

int kf_launch(const float *x, const float *y, float *out, int n)
{
	if (n < 50000) {
		for (int i = 0; i < n; i++)
			out[i] = x[i] + y[i];
		return 0;
	}
	float scratch[TAIL];
#pragma omp parallel shared(scratch)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		int chunk = (n + nt - 1) / nt, start = t * chunk, end = start + chunk < n ? start + chunk : n;
		int body_end = end - TAIL > start ? end - TAIL : start;
		for (int i = start; i < body_end; i++)
			out[i] = x[i] + y[i];
		for (int i = body_end; i < end; i++)
			scratch[i - body_end] = x[i] + y[i];
		for (volatile int spin = 0; spin < 2000; spin++)
			;
		memcpy(out + body_end, scratch, sizeof(float) * (size_t)(end - body_end));
	}
	return 0;
}
