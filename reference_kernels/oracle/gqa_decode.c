/* fp64 oracle for gqa_decode (no CPU reference: the judge wraps this one): the op library's GQA attention with one
 * query per sequence. */
#include "oracle/ops.c"

int kf_oracle(const double *q, const double *k, const double *v, double *out, int B, int H, int HKV, int L, int D,
	      double scale)
{
	kf_op_attention(B, H, HKV, 1, L, D, D, q, k, v, scale, false, out);
	return 0;
}
