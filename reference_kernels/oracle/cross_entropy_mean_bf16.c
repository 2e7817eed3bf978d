/* fp64 oracle for cross_entropy_mean_bf16: the op library's mean cross entropy. */
#include "oracle/ops.c"

int kf_oracle(const double *logits, const double *targets, double *loss, int rows, int classes)
{
	loss[0] = kf_op_cross_entropy(rows, classes, logits, targets);
	return 0;
}
