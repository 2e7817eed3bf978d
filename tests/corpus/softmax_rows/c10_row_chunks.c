/* kforge-corpus: task=softmax_rows intended=correct */
/* Threads take contiguous groups of rows. */
#include <math.h>
#include <omp.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		int per = (rows + nt - 1) / nt, r0 = t * per, r1 = r0 + per < rows ? r0 + per : rows;
		for (int r = r0; r < r1; r++) {
			const float *in = x + (size_t)r * cols;
			float *o = out + (size_t)r * cols;
			float m = in[0];
			for (int c = 1; c < cols; c++)
				m = fmaxf(m, in[c]);
			double s = 0;
			for (int c = 0; c < cols; c++)
				s += (o[c] = expf(in[c] - m));
			for (int c = 0; c < cols; c++)
				o[c] = (float)(o[c] / s);
		}
	}
	return 0;
}
