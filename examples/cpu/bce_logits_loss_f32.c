/* Example candidate for bce_logits_loss_f32 (cpu backend): the term written as max(x, 0) - t x + log1p(exp(-|x|)),
 * which never overflows; a double OpenMP sum reduction.
 * Submit with: kforge submit --task bce_logits_loss_f32 examples/cpu/bce_logits_loss_f32.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *logits, const float *target, float *loss, int B, int D)
{
	size_t n = (size_t)B * D;
	double sum = 0;
#pragma omp parallel for reduction(+ : sum)
	for (size_t i = 0; i < n; i++) {
		float x = logits[i];
		sum += fmaxf(x, 0.0f) - target[i] * x + log1pf(expf(-fabsf(x)));
	}
	loss[0] = (float)(sum / (double)n);
	return 0;
}
