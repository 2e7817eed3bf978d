/* fp64 oracle for moe_topk_ffn (no CPU reference: the judge wraps this one): the router as a GEMM, selection by
 * repeated arg-max (first index on ties), the softmax of the kept logits, and each token's K experts as op-library
 * GEMMs, token by token. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *Wr, const double *W1, const double *W2, double *idx, double *y, int T,
	      int D, int F, int E, int K)
{
	double *logits = malloc(sizeof *logits * (size_t)T * E), *sel = malloc(sizeof *sel * (size_t)K),
	       *p = malloc(sizeof *p * (size_t)K), *h = malloc(sizeof *h * (size_t)F), *o = malloc(sizeof *o * (size_t)D);
	int rc = !logits || !sel || !p || !h || !o;
	if (!rc)
		kf_op_gemm(1, T, E, D, 1, x, false, 0, Wr, true, 0, 0, logits);
	for (int64_t t = 0; !rc && t < T; t++) {
		double *row = logits + t * E;
		for (int j = 0; j < K; j++) {
			double best;
			kf_op_reduce(KF_OP_ARGMAX, 1, E, 1, row, &best);
			idx[t * K + j] = best;
			sel[j] = row[(int)best];
			row[(int)best] = -INFINITY;
		}
		kf_op_softmax(1, K, 1, sel, p);
		for (int d = 0; d < D; d++)
			y[t * D + d] = 0;
		for (int j = 0; j < K; j++) {
			int64_t e = (int64_t)idx[t * K + j];
			kf_op_gemm(1, 1, F, D, 1, x + t * D, false, 0, W1 + e * F * D, true, 0, 0, h);
			kf_op_map(KF_OP_SILU, F, h, 0, h);
			kf_op_gemm(1, 1, D, F, 1, h, false, 0, W2 + e * D * F, true, 0, 0, o);
			for (int d = 0; d < D; d++)
				y[t * D + d] += p[j] * o[d];
		}
	}
	free(logits);
	free(sel);
	free(p);
	free(h);
	free(o);
	return rc;
}
