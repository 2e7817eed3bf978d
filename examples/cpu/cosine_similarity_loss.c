/* Example candidate for cosine_similarity_loss (cpu backend): plain loops. Submit with:
 * kforge submit --task cosine_similarity_loss examples/cpu/cosine_similarity_loss.c */
#include <stddef.h>
#include <math.h>

int kf_launch(const float *pred, const float *target, float *loss, int B, int D)
{
	double sum = 0;
	for (int b = 0; b < B; b++) {
		double dot = 0, pp = 0, tt = 0;
		for (int d = 0; d < D; d++) {
			double p = pred[(size_t)b * D + d], t = target[(size_t)b * D + d];
			dot += p * t, pp += p * p, tt += t * t;
		}
		sum += 1 - dot / sqrt(pp * tt);
	}
	loss[0] = (float)(sum / B);
	return 0;
}
