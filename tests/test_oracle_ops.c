/* Specification of the fp64 op library for oracles (reference_kernels/oracle/ops.c): every
 * building block against cases worked out by hand. */
#include <criterion/criterion.h>
#include <math.h>

#include "../reference_kernels/oracle/ops.c"

#define EPS 1e-12

static void expect_all(const double *got, const double *want, int n, const char *what)
{
	for (int i = 0; i < n; i++)
		cr_expect(fabs(got[i] - want[i]) <= EPS * fmax(1, fabs(want[i])), "%s[%d] = %.15g, want %.15g", what, i,
			  got[i], want[i]);
}

Test(oracle_ops, gemm_takes_any_transposes_a_batch_and_alpha_beta)
{
	const double A[] = { 1, 2, 3, 4, 5, 6 };     /* [2, 3] */
	const double B[] = { 1, 0, 0, 1, 1, 1 };     /* [3, 2] */
	double C[4];
	kf_op_gemm(1, 2, 2, 3, 1, A, false, 0, B, false, 0, 0, C);
	expect_all(C, (double[]){ 4, 5, 10, 11 }, 4, "A@B");
	const double At[] = { 1, 4, 2, 5, 3, 6 };    /* A^T stored [3, 2] */
	const double Bt[] = { 1, 0, 1, 0, 1, 1 };    /* B^T stored [2, 3] */
	kf_op_gemm(1, 2, 2, 3, 1, At, true, 0, Bt, true, 0, 0, C);
	expect_all(C, (double[]){ 4, 5, 10, 11 }, 4, "A^T^T @ B^T^T");
	double D[4] = { 1, 1, 1, 1 };
	kf_op_gemm(1, 2, 2, 3, 2, A, false, 0, B, false, 0, 1, D);
	expect_all(D, (double[]){ 9, 11, 21, 23 }, 4, "2AB + C");
	const double I2[] = { 1, 0, 0, 1, 2, 0, 0, 2 }; /* two 2x2 matrices */
	const double X[] = { 1, 2, 3, 4 };
	double Y[8];
	kf_op_gemm(2, 2, 2, 2, 1, I2, false, 4, X, false, 0, 0, Y);
	expect_all(Y, (double[]){ 1, 2, 3, 4, 2, 4, 6, 8 }, 8, "batched, B broadcast");
}

Test(oracle_ops, conv_handles_stride_padding_dilation_and_groups)
{
	/* 1-D: x = 1..5, w = [1, 0, -1], pad 1: y[t] = x[t-1] - x[t+1] */
	const double x[] = { 1, 2, 3, 4, 5 }, w[] = { 1, 0, -1 };
	double y[5];
	struct kf_op_conv p = { .nd = 1, .stride = { 1 }, .pad = { 1 }, .dilation = { 1 }, .groups = 1 };
	kf_op_conv(&p, 1, 1, (int64_t[]){ 5 }, 1, (int64_t[]){ 3 }, x, w, NULL, y);
	expect_all(y, (double[]){ -2, -2, -2, -2, 4 }, 5, "conv1d pad 1");
	p.stride[0] = 2;
	kf_op_conv(&p, 1, 1, (int64_t[]){ 5 }, 1, (int64_t[]){ 3 }, x, w, (double[]){ 10 }, y);
	expect_all(y, (double[]){ 8, 8, 14 }, 3, "stride 2 with bias");
	struct kf_op_conv q = { .nd = 1, .stride = { 1 }, .pad = { 0 }, .dilation = { 2 }, .groups = 1 };
	kf_op_conv(&q, 1, 1, (int64_t[]){ 5 }, 1, (int64_t[]){ 3 }, x, w, NULL, y);
	expect_all(y, (double[]){ 1 - 5 }, 1, "dilation 2");
	/* 2-D, 2 groups of one channel: each output channel sums its own channel's 2x2 window */
	const double x2[] = { 1, 2, 3, 4, 10, 20, 30, 40 }; /* [1, 2, 2, 2] */
	const double w2[] = { 1, 1, 1, 1, 1, 0, 0, 1 };     /* [2, 1, 2, 2] */
	struct kf_op_conv g = { .nd = 2, .stride = { 1, 1 }, .pad = { 0, 0 }, .dilation = { 1, 1 }, .groups = 2 };
	kf_op_conv(&g, 1, 2, (int64_t[]){ 2, 2 }, 2, (int64_t[]){ 2, 2 }, x2, w2, NULL, y);
	expect_all(y, (double[]){ 10, 50 }, 2, "grouped conv2d");
	/* 3-D: a 1x1x1 kernel of 2 doubles every voxel */
	const double x3[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	double y3[8];
	struct kf_op_conv c3 = { .nd = 3, .stride = { 1, 1, 1 }, .dilation = { 1, 1, 1 }, .groups = 1 };
	kf_op_conv(&c3, 1, 1, (int64_t[]){ 2, 2, 2 }, 1, (int64_t[]){ 1, 1, 1 }, x3, (double[]){ 2 }, NULL, y3);
	expect_all(y3, (double[]){ 2, 4, 6, 8, 10, 12, 14, 16 }, 8, "conv3d");
	cr_expect_eq(kf_op_conv_out(32, 3, 2, 1, 1), 16);
}

Test(oracle_ops, transposed_conv_is_the_adjoint_of_conv)
{
	/* stride 2, kernel [1, 2]: each input scatters x*1 at 2i and x*2 at 2i+1 */
	const double x[] = { 1, 2, 3 };
	double y[7];
	struct kf_op_conv p = { .nd = 1, .stride = { 2 }, .pad = { 0 }, .out_pad = { 1 }, .dilation = { 1 }, .groups = 1 };
	cr_assert_eq(kf_op_conv_transpose_out(3, 2, 2, 0, 1, 1), 7);
	kf_op_conv_transpose(&p, 1, 1, (int64_t[]){ 3 }, 1, (int64_t[]){ 2 }, x, (double[]){ 1, 2 }, NULL, y);
	expect_all(y, (double[]){ 1, 2, 2, 4, 3, 6, 0 }, 7, "conv_transpose1d");
	/* overlapping kernel [1, 1, 1], stride 1, pad 1: the adjoint of a box filter is a box filter */
	p.stride[0] = 1, p.pad[0] = 1, p.out_pad[0] = 0;
	kf_op_conv_transpose(&p, 1, 1, (int64_t[]){ 3 }, 1, (int64_t[]){ 3 }, x, (double[]){ 1, 1, 1 }, (double[]){ 0.5 }, y);
	expect_all(y, (double[]){ 3.5, 6.5, 5.5 }, 3, "with padding and bias");
}

Test(oracle_ops, pools_take_max_or_average_with_padding_rules)
{
	const double x[] = { 1, 5, 2, 8, 3, 7, 4, 6, 9 }; /* 3x3 */
	double y[4];
	struct kf_op_conv p = { .nd = 2, .stride = { 1, 1 }, .pad = { 0, 0 }, .dilation = { 1, 1 }, .groups = 1 };
	kf_op_pool(KF_OP_POOL_MAX, &p, 1, (int64_t[]){ 3, 3 }, (int64_t[]){ 2, 2 }, false, x, y);
	expect_all(y, (double[]){ 8, 7, 8, 9 }, 4, "max 2x2");
	kf_op_pool(KF_OP_POOL_AVG, &p, 1, (int64_t[]){ 3, 3 }, (int64_t[]){ 2, 2 }, false, x, y);
	expect_all(y, (double[]){ 17 / 4.0, 17 / 4.0, 21 / 4.0, 25 / 4.0 }, 4, "avg 2x2");
	struct kf_op_conv q = { .nd = 1, .stride = { 2 }, .pad = { 1 }, .dilation = { 1 }, .groups = 1 };
	const double r[] = { 2, 4, 6 };
	kf_op_pool(KF_OP_POOL_AVG, &q, 1, (int64_t[]){ 3 }, (int64_t[]){ 2 }, true, r, y);
	expect_all(y, (double[]){ 1, 5 }, 2, "avg counting the padding");
	kf_op_pool(KF_OP_POOL_AVG, &q, 1, (int64_t[]){ 3 }, (int64_t[]){ 2 }, false, r, y);
	expect_all(y, (double[]){ 2, 5 }, 2, "avg without the padding");
	kf_op_pool(KF_OP_POOL_MAX, &q, 1, (int64_t[]){ 3 }, (int64_t[]){ 2 }, false, (double[]){ -2, -4, -6 }, y);
	expect_all(y, (double[]){ -2, -4 }, 2, "max ignores the padding");
}

Test(oracle_ops, reduces_and_arg_reduces_over_any_axis)
{
	const double x[] = { 1, 2, 3, 4, 5, 6 }; /* [2, 3] */
	double y[3];
	kf_op_reduce(KF_OP_SUM, 2, 3, 1, x, y);
	expect_all(y, (double[]){ 6, 15 }, 2, "sum over the last axis");
	kf_op_reduce(KF_OP_SUM, 1, 2, 3, x, y);
	expect_all(y, (double[]){ 5, 7, 9 }, 3, "sum over the first axis");
	kf_op_reduce(KF_OP_MEAN, 2, 3, 1, x, y);
	expect_all(y, (double[]){ 2, 5 }, 2, "mean");
	kf_op_reduce(KF_OP_PROD, 1, 2, 3, x, y);
	expect_all(y, (double[]){ 4, 10, 18 }, 3, "prod");
	kf_op_reduce(KF_OP_VAR, 2, 3, 1, x, y);
	expect_all(y, (double[]){ 2 / 3.0, 2 / 3.0 }, 2, "population variance");
	kf_op_reduce(KF_OP_L2, 1, 2, 1, (double[]){ 3, 4 }, y);
	expect_all(y, (double[]){ 5 }, 1, "l2");
	kf_op_reduce(KF_OP_LOGSUMEXP, 1, 2, 1, (double[]){ 0, 0 }, y);
	expect_all(y, (double[]){ log(2.0) }, 1, "logsumexp");
	const double t[] = { 3, 1, 3, 0, 5, 5 }; /* [2, 3] */
	kf_op_reduce(KF_OP_ARGMAX, 2, 3, 1, t, y);
	expect_all(y, (double[]){ 0, 1 }, 2, "argmax takes the first of ties");
	kf_op_reduce(KF_OP_ARGMIN, 1, 2, 3, t, y);
	expect_all(y, (double[]){ 1, 0, 0 }, 3, "argmin over the first axis");
	kf_op_reduce(KF_OP_MAX, 1, 2, 3, t, y);
	expect_all(y, (double[]){ 3, 5, 5 }, 3, "max");
	kf_op_reduce(KF_OP_MIN, 2, 3, 1, t, y);
	expect_all(y, (double[]){ 1, 0 }, 2, "min");
}

Test(oracle_ops, scans_inclusive_exclusive_reverse_and_masked)
{
	const double x[] = { 1, 2, 3, 4 };
	double y[4];
	kf_op_scan(KF_OP_SCAN_SUM, 0, 1, 4, 1, x, NULL, y);
	expect_all(y, (double[]){ 1, 3, 6, 10 }, 4, "cumsum");
	kf_op_scan(KF_OP_SCAN_SUM, KF_OP_SCAN_EXCLUSIVE, 1, 4, 1, x, NULL, y);
	expect_all(y, (double[]){ 0, 1, 3, 6 }, 4, "exclusive");
	kf_op_scan(KF_OP_SCAN_SUM, KF_OP_SCAN_REVERSE, 1, 4, 1, x, NULL, y);
	expect_all(y, (double[]){ 10, 9, 7, 4 }, 4, "reverse");
	kf_op_scan(KF_OP_SCAN_SUM, 0, 1, 4, 1, x, (double[]){ 1, 0, 1, 0 }, y);
	expect_all(y, (double[]){ 1, 1, 4, 4 }, 4, "masked");
	kf_op_scan(KF_OP_SCAN_PROD, 0, 1, 4, 1, x, NULL, y);
	expect_all(y, (double[]){ 1, 2, 6, 24 }, 4, "cumprod");
	kf_op_scan(KF_OP_SCAN_MAX, 0, 1, 4, 1, (double[]){ 2, 1, 3, 0 }, NULL, y);
	expect_all(y, (double[]){ 2, 2, 3, 3 }, 4, "cummax");
	kf_op_scan(KF_OP_SCAN_SUM, 0, 1, 2, 2, x, NULL, y);
	expect_all(y, (double[]){ 1, 2, 4, 6 }, 4, "over the first axis of [2, 2]");
}

Test(oracle_ops, softmax_and_log_softmax_over_any_axis)
{
	double y[4];
	kf_op_softmax(1, 2, 1, (double[]){ 0, log(3.0) }, y);
	expect_all(y, (double[]){ 0.25, 0.75 }, 2, "softmax");
	kf_op_softmax(1, 2, 2, (double[]){ 0, 1000, log(3.0), 1000 }, y);
	expect_all(y, (double[]){ 0.25, 0.5, 0.75, 0.5 }, 4, "over the first axis, large values");
	kf_op_log_softmax(1, 2, 1, (double[]){ 0, 0 }, y);
	expect_all(y, (double[]){ -log(2.0), -log(2.0) }, 2, "log_softmax");
}

Test(oracle_ops, norms_batch_layer_group_instance_and_rms)
{
	double y[4];
	kf_op_layer_norm(1, 2, (double[]){ 1, 3 }, (double[]){ 2, 1 }, (double[]){ 0, 10 }, 0, y);
	expect_all(y, (double[]){ -2, 11 }, 2, "layer norm with affine");
	kf_op_rms_norm(1, 2, (double[]){ 3, 4 }, NULL, 0, y);
	expect_all(y, (double[]){ 3 / sqrt(12.5), 4 / sqrt(12.5) }, 2, "rms norm");
	/* [N=1, C=2, spatial=2]: instance norm normalises each channel alone */
	const double x[] = { 1, 3, 10, 30 };
	kf_op_group_norm(1, 2, 2, 2, x, NULL, NULL, 0, y);
	expect_all(y, (double[]){ -1, 1, -1, 1 }, 4, "instance norm");
	kf_op_group_norm(1, 2, 2, 1, x, NULL, NULL, 0, y);
	double m = 11, sd = sqrt(((1 - m) * (1 - m) + (3 - m) * (3 - m) + (10 - m) * (10 - m) + (30 - m) * (30 - m)) / 4);
	expect_all(y, (double[]){ (1 - m) / sd, (3 - m) / sd, (10 - m) / sd, (30 - m) / sd }, 4, "one group");
	/* batch norm over N=2, C=1, spatial=1 */
	kf_op_batch_norm(2, 1, 1, (double[]){ 1, 3 }, NULL, NULL, NULL, NULL, 0, y);
	expect_all(y, (double[]){ -1, 1 }, 2, "batch statistics");
	kf_op_batch_norm(2, 1, 1, (double[]){ 1, 3 }, (double[]){ 1 }, (double[]){ 4 }, (double[]){ 2 }, (double[]){ 1 }, 0, y);
	expect_all(y, (double[]){ 1, 3 }, 2, "running statistics with affine");
}

Test(oracle_ops, activations_match_their_definitions)
{
	cr_expect_eq(kf_op_act(KF_OP_RELU, -2, 0), 0);
	cr_expect_eq(kf_op_act(KF_OP_LEAKY_RELU, -2, 0.1), -0.2);
	cr_expect(fabs(kf_op_act(KF_OP_ELU, -1, 1) - (exp(-1) - 1)) < EPS);
	cr_expect(fabs(kf_op_act(KF_OP_SELU, 1, 0) - 1.0507009873554805) < EPS);
	cr_expect(fabs(kf_op_act(KF_OP_CELU, -2, 2) - 2 * (exp(-1) - 1)) < EPS);
	cr_expect(fabs(kf_op_act(KF_OP_GELU, 1, 0) - 0.8413447460685429) < EPS);
	cr_expect(fabs(kf_op_act(KF_OP_GELU_TANH, 1, 0) - 0.8411919906082768) < EPS);
	cr_expect(fabs(kf_op_act(KF_OP_SILU, 1, 0) - 1 / (1 + exp(-1))) < EPS);
	cr_expect_eq(kf_op_act(KF_OP_SIGMOID, 0, 0), 0.5);
	cr_expect(fabs(kf_op_act(KF_OP_TANH, 1, 0) - tanh(1)) < EPS);
	cr_expect(fabs(kf_op_act(KF_OP_SOFTPLUS, 0, 0) - log(2.0)) < EPS);
	cr_expect(fabs(kf_op_act(KF_OP_SOFTPLUS, 800, 0) - 800) < EPS, "no overflow");
	cr_expect_eq(kf_op_act(KF_OP_SOFTSIGN, 1, 0), 0.5);
	cr_expect(fabs(kf_op_act(KF_OP_MISH, 1, 0) - tanh(log1p(exp(1)))) < EPS);
	cr_expect_eq(kf_op_act(KF_OP_HARDSWISH, 1, 0), 4.0 / 6);
	cr_expect_eq(kf_op_act(KF_OP_HARDSIGMOID, 0, 0), 0.5);
	cr_expect_eq(kf_op_act(KF_OP_HARDTANH, -3, 0), -1);
	cr_expect_eq(kf_op_act(KF_OP_RELU6, 7, 0), 6);
	cr_expect(fabs(kf_op_act(KF_OP_LOG_SIGMOID, 0, 0) + log(2.0)) < EPS);
	cr_expect(fabs(kf_op_act(KF_OP_TANHSHRINK, 1, 0) - (1 - tanh(1))) < EPS);
	cr_expect_eq(kf_op_act(KF_OP_SOFTSHRINK, 2, 0.5), 1.5);
	cr_expect_eq(kf_op_act(KF_OP_HARDSHRINK, 0.4, 0.5), 0);
	cr_expect_eq(kf_op_act(KF_OP_EXP, 0, 0), 1);
	double y[2];
	kf_op_map(KF_OP_RELU, 2, (double[]){ -1, 1 }, 0, y);
	expect_all(y, (double[]){ 0, 1 }, 2, "map");
}

Test(oracle_ops, losses_match_their_definitions)
{
	const double p[] = { 1, 2, 3 }, t[] = { 1, 0, 6 };
	cr_expect(fabs(kf_op_loss(KF_OP_MSE, 3, p, t, 0) - 13 / 3.0) < EPS);
	cr_expect(fabs(kf_op_loss(KF_OP_L1, 3, p, t, 0) - 5 / 3.0) < EPS);
	cr_expect(fabs(kf_op_loss(KF_OP_HUBER, 3, p, t, 1) - (0 + 1.5 + 2.5) / 3) < EPS);
	cr_expect(fabs(kf_op_loss(KF_OP_SMOOTH_L1, 3, p, t, 2) - (0 + 1 + 2) / 3) < EPS);
	cr_expect(fabs(kf_op_loss(KF_OP_HINGE, 2, (double[]){ 0.5, 2 }, (double[]){ 1, -1 }, 0) - (0.5 + 3) / 2) < EPS);
	cr_expect(fabs(kf_op_loss(KF_OP_BCE, 1, (double[]){ 0.25 }, (double[]){ 1 }, 0) - log(4.0)) < EPS);
	cr_expect(fabs(kf_op_loss(KF_OP_BCE_LOGITS, 1, (double[]){ 0 }, (double[]){ 1 }, 0) - log(2.0)) < EPS);
	cr_expect(fabs(kf_op_loss(KF_OP_KL_DIV, 2, (double[]){ log(0.25), log(0.75) }, (double[]){ 0.5, 0.5 }, 1) -
		       (0.5 * log(2.0) + 0.5 * log(2 / 3.0))) < EPS);
	cr_expect(fabs(kf_op_cross_entropy(1, 2, (double[]){ 0, 0 }, (double[]){ 1 }) - log(2.0)) < EPS);
}

Test(oracle_ops, attention_is_causal_and_shares_kv_heads)
{
	/* B=1, H=2, HKV=1, L=2, D=1: keys 0 and big, so query 1 (non-causal) picks value 1 */
	const double q[] = { 1, 1, 1, 1 }, k[] = { 0, 100 }, v[] = { 3, 7 };
	double o[4];
	kf_op_attention(1, 2, 1, 2, 2, 1, 1, q, k, v, 1, false, o);
	expect_all(o, (double[]){ 7, 7, 7, 7 }, 4, "full attention, both heads read kv head 0");
	kf_op_attention(1, 2, 1, 2, 2, 1, 1, q, k, v, 1, true, o);
	expect_all(o, (double[]){ 3, 7, 3, 7 }, 4, "causal: query 0 sees key 0 only");
	kf_op_attention(1, 1, 1, 1, 2, 1, 1, (double[]){ 0 }, k, v, 1, false, o);
	expect_all(o, (double[]){ 5 }, 1, "equal scores average the values");
}

Test(oracle_ops, quantisers_round_to_nearest_even_and_saturate_like_the_judge)
{
	cr_expect_eq(kf_op_round_to(KF_OP_FP8_E4M3, 1.0625), 1.0);
	cr_expect_eq(kf_op_round_to(KF_OP_FP8_E4M3, 1.1875), 1.25);
	cr_expect_eq(kf_op_round_to(KF_OP_FP8_E4M3, 500), 448);
	cr_expect_eq(kf_op_round_to(KF_OP_FP8_E4M3, 0x1.8p-10), 0x1p-9);
	cr_expect_eq(kf_op_round_to(KF_OP_FP8_E5M2, 60000), 57344);
	cr_expect_eq(kf_op_round_to(KF_OP_FP8_E5M2, INFINITY), INFINITY);
	cr_expect_eq(kf_op_round_to(KF_OP_FP4_E2M1, 5), 4);
	cr_expect_eq(kf_op_round_to(KF_OP_FP4_E2M1, 2.5), 2);
	cr_expect_eq(kf_op_round_to(KF_OP_FP4_E2M1, -100), -6);
	cr_expect_eq(kf_op_round_to(KF_OP_BF16, 1 + 0x1p-8), 1.0);
	cr_expect_eq(kf_op_round_to(KF_OP_F16, 65520), INFINITY);
	cr_expect_eq(kf_op_round_to(KF_OP_INT8, 2.5), 2);
	cr_expect_eq(kf_op_round_to(KF_OP_INT8, -300), -128);
	double y[2];
	kf_op_quantize(KF_OP_INT8, 2, (double[]){ 1.0, -0.26 }, 0.5, y);
	expect_all(y, (double[]){ 2, -1 }, 2, "quantize");
	kf_op_dequantize(2, y, 0.5, y);
	expect_all(y, (double[]){ 1, -0.5 }, 2, "dequantize");
	/* byte 0xb2: low nibble 2 (1.0), high nibble 0xb (-1.5) */
	cr_expect_eq(kf_op_fp4_lo(0xb2), 1.0);
	cr_expect_eq(kf_op_fp4_hi(0xb2), -1.5);
	double z[4];
	kf_op_mx_fp4_dequantize(4, 2, (double[]){ 0xb2, 0x77 }, (double[]){ 2, 0.5 }, z);
	expect_all(z, (double[]){ 2, -3, 3, 3 }, 4, "mx dequantize");
}
