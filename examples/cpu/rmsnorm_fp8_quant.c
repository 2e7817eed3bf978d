/* Example candidate for rmsnorm_fp8_quant (cpu backend): the row's mean square, then each value normalised, scaled by
 * gamma and 1/scale, and encoded. Submit with: kforge submit --task rmsnorm_fp8_quant examples/cpu/rmsnorm_fp8_quant.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const float *scale, kf_fp8_e4m3 *q, int rows, int cols, float eps)
{
	float inv_scale = 1.0f / scale[0];
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		float ss = 0;
		for (int c = 0; c < cols; c++)
			ss += kf_bf16_to_float(xr[c]) * kf_bf16_to_float(xr[c]);
		float rstd = 1.0f / sqrtf(ss / cols + eps);
		for (int c = 0; c < cols; c++)
			q[(size_t)r * cols + c] =
				kf_float_to_fp8_e4m3(kf_bf16_to_float(xr[c]) * rstd * kf_bf16_to_float(gamma[c]) * inv_scale);
	}
	return 0;
}
