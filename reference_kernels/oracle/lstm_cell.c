/* fp64 oracle for lstm_cell (no CPU reference: the judge wraps this one): both gate GEMMs accumulated into one
 * [B, 4*Hd] array by the op library (beta = 1 for the second), then the cell update. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *h, const double *c, const double *W_ih, const double *W_hh,
	      const double *b_ih, const double *b_hh, double *h_out, double *c_out, int B, int I, int Hd)
{
	int64_t G = 4 * (int64_t)Hd;
	double *gates = malloc(sizeof *gates * (size_t)(B * G));
	if (!gates)
		return 1;
	kf_op_gemm(1, B, G, I, 1, x, false, 0, W_ih, true, 0, 0, gates);
	kf_op_gemm(1, B, G, Hd, 1, h, false, 0, W_hh, true, 0, 1, gates);
	for (int64_t b = 0; b < B; b++)
		for (int64_t j = 0; j < Hd; j++) {
			const double *g = gates + b * G;
			double i = kf_op_act(KF_OP_SIGMOID, g[j] + b_ih[j] + b_hh[j], 0);
			double f = kf_op_act(KF_OP_SIGMOID, g[Hd + j] + b_ih[Hd + j] + b_hh[Hd + j], 0);
			double gg = kf_op_act(KF_OP_TANH, g[2 * Hd + j] + b_ih[2 * Hd + j] + b_hh[2 * Hd + j], 0);
			double o = kf_op_act(KF_OP_SIGMOID, g[3 * Hd + j] + b_ih[3 * Hd + j] + b_hh[3 * Hd + j], 0);
			double cn = f * c[b * Hd + j] + i * gg;
			c_out[b * Hd + j] = cn;
			h_out[b * Hd + j] = o * kf_op_act(KF_OP_TANH, cn, 0);
		}
	free(gates);
	return 0;
}
