/* kforge-corpus: task=softmax_rows intended=correct */
/* Max and sum over blocks of eight lanes, then the tail, then a lane reduction. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float lane_max[8], lane_sum[8];
		for (int l = 0; l < 8; l++) {
			lane_max[l] = -INFINITY;
			lane_sum[l] = 0;
		}
		int q = cols / 8 * 8;
		for (int c = 0; c < q; c += 8)
			for (int l = 0; l < 8; l++)
				lane_max[l] = fmaxf(lane_max[l], in[c + l]);
		float m = -INFINITY;
		for (int l = 0; l < 8; l++)
			m = fmaxf(m, lane_max[l]);
		for (int c = q; c < cols; c++)
			m = fmaxf(m, in[c]);
		for (int c = 0; c < q; c += 8)
			for (int l = 0; l < 8; l++)
				lane_sum[l] += (o[c + l] = expf(in[c + l] - m));
		float s = 0;
		for (int l = 0; l < 8; l++)
			s += lane_sum[l];
		for (int c = q; c < cols; c++)
			s += (o[c] = expf(in[c] - m));
		float inv = 1.0f / s;
		for (int c = 0; c < cols; c++)
			o[c] *= inv;
	}
	return 0;
}
