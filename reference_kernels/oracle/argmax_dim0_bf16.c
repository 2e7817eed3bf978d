/* fp64 oracle for argmax_dim0_bf16: idx[m] = first argmax_n x[n, m], one op-library call (outer 1, axis N, inner M). */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *idx, int N, int M)
{
	kf_op_reduce(KF_OP_ARGMAX, 1, N, M, x, idx);
	return 0;
}
