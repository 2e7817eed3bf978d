/* fp64 oracle for sigmoid_topk_norm (no CPU reference: the judge wraps this one): sigmoid scores, selection by repeated
 * arg-max of score + bias over the experts not yet taken (first index on ties), weights the normalised scores. */
#include "oracle/ops.c"

int kf_oracle(const double *logits, const double *bias, double *w, double *idx, int T, int E, int K, double rsf)
{
	double *s = malloc(sizeof *s * (size_t)E), *key = malloc(sizeof *key * (size_t)E);
	int rc = !s || !key;
	for (int64_t t = 0; !rc && t < T; t++) {
		kf_op_map(KF_OP_SIGMOID, E, logits + t * E, 0, s);
		for (int e = 0; e < E; e++)
			key[e] = s[e] + bias[e];
		double sum = 0;
		for (int j = 0; j < K; j++) {
			double best;
			kf_op_reduce(KF_OP_ARGMAX, 1, E, 1, key, &best);
			idx[t * K + j] = best;
			w[t * K + j] = s[(int)best];
			sum += s[(int)best];
			key[(int)best] = -INFINITY;
		}
		for (int j = 0; j < K; j++)
			w[t * K + j] = w[t * K + j] / sum * rsf;
	}
	free(s);
	free(key);
	return rc;
}
