/* fp64 oracle for topk_softmax (no CPU reference: the judge wraps this one): selection by repeated arg-max over the
 * experts not yet taken (the op library's first-index tie rule), then the op library's softmax over the K logits. */
#include "oracle/ops.c"

#include <string.h>

int kf_oracle(const double *logits, double *w, double *idx, int T, int E, int K)
{
	double *row = malloc(sizeof *row * (size_t)E), *sel = malloc(sizeof *sel * (size_t)K);
	int rc = !row || !sel;
	for (int64_t t = 0; !rc && t < T; t++) {
		memcpy(row, logits + t * E, sizeof *row * (size_t)E);
		for (int j = 0; j < K; j++) {
			double best;
			kf_op_reduce(KF_OP_ARGMAX, 1, E, 1, row, &best);
			idx[t * K + j] = best;
			sel[j] = row[(int)best];
			row[(int)best] = -INFINITY;
		}
		kf_op_softmax(1, K, 1, sel, w + t * K);
	}
	free(row);
	free(sel);
	return rc;
}
