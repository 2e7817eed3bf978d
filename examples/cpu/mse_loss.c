/* Example candidate for mse_loss (cpu backend): plain loops. Submit with:
 * kforge submit --task mse_loss examples/cpu/mse_loss.c */
#include <stddef.h>

int kf_launch(const float *pred, const float *target, float *loss, int B, int D)
{
	double sum = 0;
	for (size_t i = 0; i < (size_t)B * D; i++)
		sum += (double)(pred[i] - target[i]) * (pred[i] - target[i]);
	loss[0] = (float)(sum / ((double)B * D));
	return 0;
}
