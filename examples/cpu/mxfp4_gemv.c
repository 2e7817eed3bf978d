/* Example candidate for mxfp4_gemv (cpu backend): plain loops. Submit with:
 * kforge submit --task mxfp4_gemv examples/cpu/mxfp4_gemv.c */
#include <stddef.h>

int kf_launch(const kf_fp4x2 *Wq, const kf_e8m0 *scales, const kf_bf16 *x, float *y, int N, int K)
{
	for (int n = 0; n < N; n++) {
		float acc = 0;
		for (int k = 0; k < K; k += 2) {
			kf_fp4x2 b = Wq[(size_t)n * K / 2 + k / 2];
			float s = kf_e8m0_to_float(scales[(size_t)n * K / 32 + k / 32]);
			acc += s * (kf_fp4_e2m1_to_float(b & 15) * kf_bf16_to_float(x[k]) +
				    kf_fp4_e2m1_to_float(b >> 4) * kf_bf16_to_float(x[k + 1]));
		}
		y[n] = acc;
	}
	return 0;
}
