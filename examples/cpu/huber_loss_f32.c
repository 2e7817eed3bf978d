/* Example candidate for huber_loss_f32 (cpu backend): |d| clipped at delta, c = min(|d|, delta), gives
 * h(d) = c (|d| - 0.5 c) for both branches; a double OpenMP sum reduction.
 * Submit with: kforge submit --task huber_loss_f32 examples/cpu/huber_loss_f32.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *pred, const float *target, float *loss, int B, int D, float delta)
{
	size_t n = (size_t)B * D;
	double sum = 0;
#pragma omp parallel for simd reduction(+ : sum)
	for (size_t i = 0; i < n; i++) {
		float a = fabsf(pred[i] - target[i]), c = a < delta ? a : delta;
		sum += c * (a - 0.5f * c);
	}
	loss[0] = (float)(sum / (double)n);
	return 0;
}
