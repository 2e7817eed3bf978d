/* Example candidate for topk_softmax (cpu backend): a K-slot insertion list per token (a strictly larger logit moves
 * ahead, so earlier experts win ties), then the softmax of the K kept logits. Submit with:
 * kforge submit --task topk_softmax examples/cpu/topk_softmax.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const float *logits, float *w, int32_t *idx, int T, int E, int K)
{
	int rc = 0;
#pragma omp parallel
	{
		float *val = malloc(sizeof *val * (size_t)K);
		int32_t *id = malloc(sizeof *id * (size_t)K);
		if (!val || !id) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for
		for (int t = 0; t < T; t++) {
			if (!val || !id)
				continue;
			const float *row = logits + (size_t)t * E;
			int n = 0;
			for (int e = 0; e < E; e++) {
				int p = n < K ? n : K;
				while (p > 0 && row[e] > val[p - 1])
					p--;
				if (p >= K)
					continue;
				for (int q = (n < K ? n : K - 1); q > p; q--) {
					val[q] = val[q - 1];
					id[q] = id[q - 1];
				}
				val[p] = row[e];
				id[p] = e;
				if (n < K)
					n++;
			}
			float sum = 0;
			for (int j = 0; j < K; j++)
				sum += expf(val[j] - val[0]);
			for (int j = 0; j < K; j++) {
				w[(size_t)t * K + j] = expf(val[j] - val[0]) / sum;
				idx[(size_t)t * K + j] = id[j];
			}
		}
		free(val);
		free(id);
	}
	return rc;
}
