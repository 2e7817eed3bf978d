/* fp64 oracle for cosine_similarity_loss (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *pred, const double *target, double *loss, int B, int D)
{
	double sum = 0, norms[2];
	for (int b = 0; b < B; b++) {
		double dot;
		kf_op_gemm(1, 1, 1, D, 1, pred + (size_t)b * D, false, 0, target + (size_t)b * D, false, 0, 0, &dot);
		kf_op_reduce(KF_OP_L2, 1, D, 1, pred + (size_t)b * D, &norms[0]);
		kf_op_reduce(KF_OP_L2, 1, D, 1, target + (size_t)b * D, &norms[1]);
		sum += 1 - dot / (norms[0] * norms[1]);
	}
	loss[0] = sum / B;
	return 0;
}
