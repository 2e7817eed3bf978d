/* fp64 oracle for nvfp4_quant (no CPU reference: the judge wraps this one). The casts to float are the spec's fp32
 * steps, so the codes are defined exactly. */
#include "oracle/ops.c"

#define BLOCK 16
#define E2M1_MAX 6.0
#define FP4_SIGN 8

/* The E2M1 code of x: the magnitude's index among the format's values, the sign bit from x itself (-0 is 8). */
static double fp4_code(double x)
{
	static const double values[] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6 };
	double r = fabs(kf_op_round_to(KF_OP_FP4_E2M1, x));
	int c = 0;
	while (values[c] != r)
		c++;
	return c + (signbit(x) ? FP4_SIGN : 0);
}

int kf_oracle(const double *x, double *q, double *sb, int M, int K, double gs)
{
	int64_t blocks = (int64_t)M * (K / BLOCK);
	for (int64_t b = 0; b < blocks; b++) {
		const double *xb = x + b * BLOCK;
		double amax = 0;
		for (int i = 0; i < BLOCK; i++)
			amax = fmax(amax, fabs(xb[i]));
		sb[b] = kf_op_round_to(KF_OP_FP8_E4M3, (double)(float)((double)(float)(amax / E2M1_MAX) / gs));
		double d = (double)(float)(sb[b] * gs);
		for (int i = 0; i < BLOCK; i += 2) {
			double lo = d == 0 ? 0 : fp4_code((double)(float)(xb[i] / d));
			double hi = d == 0 ? 0 : fp4_code((double)(float)(xb[i + 1] / d));
			q[(b * BLOCK + i) / 2] = lo + 16 * hi;
		}
	}
	return 0;
}
