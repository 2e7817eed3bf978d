/* Example candidate for hinge_loss (cpu backend): plain loops. Submit with:
 * kforge submit --task hinge_loss examples/cpu/hinge_loss.c */
#include <stddef.h>

int kf_launch(const float *pred, const float *target, float *loss, int B)
{
	double sum = 0;
	for (int i = 0; i < B; i++) {
		float h = 1 - pred[i] * target[i];
		sum += h > 0 ? h : 0;
	}
	loss[0] = (float)(sum / B);
	return 0;
}
