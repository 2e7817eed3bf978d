/* Example candidate for group_norm_bf16 (cpu backend): each (n, group) block of x is contiguous ((C/G)*H*W values),
 * so blocks go across OpenMP threads; two passes in fp32/double (mean, then squared deviations), then one per-channel
 * scale and shift. Submit with: kforge submit --task group_norm_bf16 examples/cpu/group_norm_bf16.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int N, int C, int H, int W,
	      int G, float eps)
{
	size_t plane = (size_t)H * W, cg = (size_t)(C / G), len = cg * plane;
#pragma omp parallel for
	for (int blk = 0; blk < N * G; blk++) {
		const kf_bf16 *p = x + (size_t)blk * len;
		kf_bf16 *q = y + (size_t)blk * len;
		double s = 0, ss = 0;
		for (size_t i = 0; i < len; i++)
			s += kf_bf16_to_float(p[i]);
		float mean = (float)(s / len);
		for (size_t i = 0; i < len; i++) {
			float d = kf_bf16_to_float(p[i]) - mean;
			ss += d * d;
		}
		float inv = (float)(1 / sqrt(ss / len + eps));
		for (size_t k = 0; k < cg; k++) {
			int c = (int)((size_t)(blk % G) * cg + k);
			float scale = inv * kf_bf16_to_float(gamma[c]), shift = kf_bf16_to_float(beta[c]) - mean * scale;
			for (size_t i = 0; i < plane; i++)
				q[k * plane + i] = kf_float_to_bf16(kf_bf16_to_float(p[k * plane + i]) * scale + shift);
		}
	}
	return 0;
}
