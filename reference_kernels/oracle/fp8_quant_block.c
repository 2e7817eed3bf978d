/* fp64 oracle for fp8_quant_block (no CPU reference: the judge wraps this one). The casts to float are the spec's
 * fp32 steps (the scale and the division), so the codes are defined exactly. */
#include "oracle/ops.c"

#define GROUP 128
#define E4M3_MAX 448.0

int kf_oracle(const double *x, double *q, double *s, int M, int K)
{
	int64_t groups = (int64_t)M * (K / GROUP);
	for (int64_t g = 0; g < groups; g++) {
		const double *xg = x + g * GROUP;
		double amax = 0;
		for (int i = 0; i < GROUP; i++)
			amax = fmax(amax, fabs(xg[i]));
		double scale = amax == 0 ? 1 : (double)(float)(amax / E4M3_MAX);
		s[g] = scale;
		for (int i = 0; i < GROUP; i++)
			q[g * GROUP + i] = kf_op_round_to(KF_OP_FP8_E4M3, (double)(float)(xg[i] / scale));
	}
	return 0;
}
