/* Example candidate for kl_div_loss_f32 (cpu backend): one log per element, t * log(t / p), summed in double by an
 * OpenMP reduction and divided by the batch.
 * Submit with: kforge submit --task kl_div_loss_f32 examples/cpu/kl_div_loss_f32.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *pred, const float *target, float *loss, int B, int D)
{
	size_t n = (size_t)B * D;
	double sum = 0;
#pragma omp parallel for reduction(+ : sum)
	for (size_t i = 0; i < n; i++)
		sum += target[i] * logf(target[i] / pred[i]);
	loss[0] = (float)(sum / B);
	return 0;
}
