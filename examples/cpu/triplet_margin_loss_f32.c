/* Example candidate for triplet_margin_loss_f32 (cpu backend): each row's two squared distances in one pass over
 * the anchor (double sums), rows across OpenMP threads, the hinge summed by a reduction.
 * Submit with: kforge submit --task triplet_margin_loss_f32 examples/cpu/triplet_margin_loss_f32.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *anchor, const float *positive, const float *negative, float *loss, int B, int D,
	      float margin)
{
	double sum = 0;
#pragma omp parallel for reduction(+ : sum)
	for (int b = 0; b < B; b++) {
		const float *a = anchor + (size_t)b * D, *p = positive + (size_t)b * D, *q = negative + (size_t)b * D;
		double sp = 0, sn = 0;
		for (int j = 0; j < D; j++) {
			float u = a[j] - p[j] + 1e-6f, v = a[j] - q[j] + 1e-6f;
			sp += u * u;
			sn += v * v;
		}
		double h = sqrt(sp) - sqrt(sn) + margin;
		sum += h > 0 ? h : 0;
	}
	loss[0] = (float)(sum / B);
	return 0;
}
