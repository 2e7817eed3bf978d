/* Example candidate for hardtanh_bf16 (cpu backend): fminf(fmaxf(x, -1), 1), exact; fp32, one OpenMP loop. Submit
 * with: kforge submit --task hardtanh_bf16 examples/cpu/hardtanh_bf16.c */
#include <math.h>

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = kf_bf16_to_float(x[i]);
		y[i] = kf_float_to_bf16((fminf(fmaxf(v, -1.0f), 1.0f)));
	}
	return 0;
}
