/* Example candidate for conv1d_gelu (cpu backend): per output channel, the five taps accumulated over the whole row
 * at once (shifted axpys), then GELU. Submit with: kforge submit --task conv1d_gelu examples/cpu/conv1d_gelu.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int L, int O)
{
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++) {
			float *yr = y + ((size_t)n * O + o) * L;
			for (int l = 0; l < L; l++)
				yr[l] = cb[o];
			for (int c = 0; c < C; c++) {
				const float *xr = x + ((size_t)n * C + c) * L;
				for (int t = 0; t < 5; t++) {
					float wt = w[((size_t)o * C + c) * 5 + t];
					int lo = 2 - t > 0 ? 2 - t : 0, hi = L + 2 - t < L ? L + 2 - t : L;
					for (int l = lo; l < hi; l++)
						yr[l] += wt * xr[l + t - 2];
				}
			}
			for (int l = 0; l < L; l++)
				yr[l] = 0.5f * yr[l] * (1.0f + erff(yr[l] * 0.70710678f));
		}
	return 0;
}
