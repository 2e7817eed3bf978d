/* CPU reference for long_conv, computed directly: per (batch, channel) an fp32 output row, filled tap by tap with
 * axpys y[s..] += k[s] * x[..L-s] (vectorisable), rounded once. Rows split across OpenMP threads. */
#include <stdlib.h>

int kf_launch(const kf_bf16 *x, const float *k, kf_bf16 *y, int B, int C, int L)
{
	int rc = 0;
#pragma omp parallel
	{
		float *acc = malloc((2 * (size_t)L + 1) * sizeof *acc);
		if (!acc) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(dynamic, 1)
		for (long long bc = 0; bc < (long long)B * C; bc++) {
			if (!acc)
				continue;
			const float *kc = k + (size_t)(bc % C) * L;
			float *xr = acc + L;
			for (int t = 0; t < L; t++) {
				xr[t] = kf_bf16_to_float(x[(size_t)bc * L + t]);
				acc[t] = 0;
			}
			for (int s = 0; s < L; s++) {
				float ks = kc[s];
				float *dst = acc + s;
#pragma omp simd
				for (int t = 0; t < L - s; t++)
					dst[t] += ks * xr[t];
			}
			for (int t = 0; t < L; t++)
				y[(size_t)bc * L + t] = kf_float_to_bf16(acc[t]);
		}
		free(acc);
	}
	return rc;
}
