/* Example candidate for relu_bf16 (cpu backend): widen to fp32, clamp at zero, round back (exact for relu).
 * Submit with: kforge submit --task relu_bf16 examples/cpu/relu_bf16.c */

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int n)
{
#pragma omp parallel for
	for (int i = 0; i < n; i++) {
		float v = kf_bf16_to_float(x[i]);
		y[i] = kf_float_to_bf16(v > 0 ? v : 0.0f);
	}
	return 0;
}
