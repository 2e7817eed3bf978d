/* fp64 oracle for mxfp8_quant (no CPU reference: the judge wraps this one): the OCP MX v1.0 scale rule. */
#include "oracle/ops.c"

#define BLOCK 32
#define E4M3_EMAX 8
#define E8M0_BIAS 127

int kf_oracle(const double *x, double *q, double *scale, int M, int K)
{
	int64_t blocks = (int64_t)M * (K / BLOCK);
	for (int64_t b = 0; b < blocks; b++) {
		const double *xb = x + b * BLOCK;
		double amax = 0;
		for (int i = 0; i < BLOCK; i++)
			amax = fmax(amax, fabs(xb[i]));
		int e = -E8M0_BIAS;
		if (amax > 0) {
			int ex;
			frexp(amax, &ex); /* amax = f * 2^ex, f in [0.5, 1): floor(log2 amax) = ex - 1 */
			e = ex - 1 - E4M3_EMAX;
			e = e < -E8M0_BIAS ? -E8M0_BIAS : e > E8M0_BIAS ? E8M0_BIAS : e;
		}
		scale[b] = e + E8M0_BIAS;
		for (int i = 0; i < BLOCK; i++)
			q[b * BLOCK + i] = amax > 0 ? kf_op_round_to(KF_OP_FP8_E4M3, ldexp(xb[i], -e)) : 0;
	}
	return 0;
}
