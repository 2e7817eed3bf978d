/* Example candidate for sigmoid_topk_norm (cpu backend): K passes of a linear arg-max over the keys (s + bias) with
 * the taken experts marked. Submit with: kforge submit --task sigmoid_topk_norm examples/cpu/sigmoid_topk_norm.c */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

int kf_launch(const float *logits, const float *bias, float *w, int32_t *idx, int T, int E, int K, float rsf)
{
	int rc = 0;
#pragma omp parallel
	{
		bool *taken = malloc(sizeof *taken * (size_t)E);
		if (!taken) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for
		for (int t = 0; t < T; t++) {
			if (!taken)
				continue;
			const float *row = logits + (size_t)t * E;
			for (int e = 0; e < E; e++)
				taken[e] = false;
			float sum = 0;
			for (int j = 0; j < K; j++) {
				int best = -1;
				float best_key = 0;
				for (int e = 0; e < E; e++) {
					float key = 1.0f / (1.0f + expf(-row[e])) + bias[e];
					if (!taken[e] && (best < 0 || key > best_key)) {
						best = e;
						best_key = key;
					}
				}
				taken[best] = true;
				idx[(size_t)t * K + j] = best;
				w[(size_t)t * K + j] = 1.0f / (1.0f + expf(-row[best]));
				sum += w[(size_t)t * K + j];
			}
			for (int j = 0; j < K; j++)
				w[(size_t)t * K + j] = w[(size_t)t * K + j] / sum * rsf;
		}
		free(taken);
	}
	return rc;
}
