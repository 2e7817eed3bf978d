/* fp64 oracle for gru_cell (no CPU reference: the judge wraps this one): the two gate GEMMs kept apart (the new gate
 * scales only the hidden part by r), then the update. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *h, const double *W_ih, const double *W_hh, const double *b_ih,
	      const double *b_hh, double *h_out, int B, int I, int Hd)
{
	int64_t G = 3 * (int64_t)Hd;
	double *gi = malloc(sizeof *gi * (size_t)(B * G)), *gh = malloc(sizeof *gh * (size_t)(B * G));
	int rc = !gi || !gh;
	if (!rc) {
		kf_op_gemm(1, B, G, I, 1, x, false, 0, W_ih, true, 0, 0, gi);
		kf_op_gemm(1, B, G, Hd, 1, h, false, 0, W_hh, true, 0, 0, gh);
		for (int64_t b = 0; b < B; b++)
			for (int64_t j = 0; j < Hd; j++) {
				const double *i = gi + b * G, *g = gh + b * G;
				double r = kf_op_act(KF_OP_SIGMOID, i[j] + b_ih[j] + g[j] + b_hh[j], 0);
				double z = kf_op_act(KF_OP_SIGMOID, i[Hd + j] + b_ih[Hd + j] + g[Hd + j] + b_hh[Hd + j], 0);
				double n = kf_op_act(KF_OP_TANH,
						     i[2 * Hd + j] + b_ih[2 * Hd + j] + r * (g[2 * Hd + j] + b_hh[2 * Hd + j]), 0);
				h_out[b * Hd + j] = (1 - z) * n + z * h[b * Hd + j];
			}
	}
	free(gi);
	free(gh);
	return rc;
}
