/* Example candidate for moe_topk_ffn (cpu backend), in the grouped order a GPU kernel uses: route every token, bucket
 * the (token, choice) pairs by expert, run each expert's two matrix products over its own bucket (uneven sizes), then
 * combine each token's K results with its weights. Submit with: kforge submit --task moe_topk_ffn examples/cpu/moe_topk_ffn.c */
#include <math.h>
#include <stdlib.h>
#include <string.h>

int kf_launch(const float *x, const float *Wr, const float *W1, const float *W2, int32_t *idx, float *y, int T, int D,
	      int F, int E, int K)
{
	size_t slots = (size_t)T * K;
	float *p = malloc(sizeof *p * slots), *out = malloc(sizeof *out * slots * D), *logit = malloc(sizeof *logit * E);
	int *count = calloc((size_t)E + 1, sizeof *count), *order = malloc(sizeof *order * slots);
	int rc = !p || !out || !logit || !count || !order;
	for (int t = 0; !rc && t < T; t++) {
		for (int e = 0; e < E; e++) {
			float acc = 0;
			for (int d = 0; d < D; d++)
				acc += x[(size_t)t * D + d] * Wr[(size_t)e * D + d];
			logit[e] = acc;
		}
		for (int j = 0; j < K; j++) {
			int best = 0;
			for (int e = 1; e < E; e++)
				if (logit[e] > logit[best])
					best = e;
			idx[(size_t)t * K + j] = best;
			p[(size_t)t * K + j] = logit[best];
			logit[best] = -INFINITY;
		}
		float top = p[(size_t)t * K], sum = 0;
		for (int j = 0; j < K; j++)
			sum += p[(size_t)t * K + j] = expf(p[(size_t)t * K + j] - top);
		for (int j = 0; j < K; j++)
			p[(size_t)t * K + j] /= sum;
	}
	/* counting sort of the slots by expert: order[count[e] .. count[e + 1]) are expert e's */
	for (size_t s = 0; !rc && s < slots; s++)
		count[idx[s] + 1]++;
	for (int e = 0; !rc && e < E; e++)
		count[e + 1] += count[e];
	for (size_t s = 0; !rc && s < slots; s++)
		order[count[idx[s]]++] = (int)s;
	for (int e = E; !rc && e > 0; e--)
		count[e] = count[e - 1];
	if (!rc)
		count[0] = 0;
#pragma omp parallel for schedule(dynamic)
	for (int e = 0; e < (rc ? 0 : E); e++) {
		float *h = malloc(sizeof *h * (size_t)F);
		if (!h) {
#pragma omp atomic write
			rc = 1;
			continue;
		}
		for (int q = count[e]; q < count[e + 1]; q++) {
			int s = order[q];
			const float *xt = x + (size_t)(s / K) * D;
			for (int f = 0; f < F; f++) {
				const float *w = W1 + ((size_t)e * F + f) * D;
				float acc = 0;
				for (int d = 0; d < D; d++)
					acc += w[d] * xt[d];
				h[f] = acc / (1.0f + expf(-acc));
			}
			for (int d = 0; d < D; d++) {
				const float *w = W2 + ((size_t)e * D + d) * F;
				float acc = 0;
				for (int f = 0; f < F; f++)
					acc += w[f] * h[f];
				out[(size_t)s * D + d] = acc;
			}
		}
		free(h);
	}
	for (int t = 0; !rc && t < T; t++)
		for (int d = 0; d < D; d++) {
			float acc = 0;
			for (int j = 0; j < K; j++)
				acc += p[(size_t)t * K + j] * out[((size_t)t * K + j) * D + d];
			y[(size_t)t * D + d] = acc;
		}
	free(p);
	free(out);
	free(logit);
	free(count);
	free(order);
	return rc;
}
