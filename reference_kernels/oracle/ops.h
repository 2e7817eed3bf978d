/* kforge's fp64 op library for oracles: the building blocks a task's kf_oracle is written in, so
 * that an oracle is a few obviously-right calls. Every function works in double on contiguous
 * row-major arrays and has no state. An oracle includes the implementation directly,
 *     #include "oracle/ops.c"
 * (oracles are one translation unit; reference_kernels/ is on the include path), and
 * tests/test_oracle_ops.c checks each block against hand-computed cases.
 *
 * Axis convention: an operation "over an axis" views the tensor as [outer, n, inner] (n the axis
 * length, outer the product of the dimensions before it, inner of those after). */
#ifndef KF_ORACLE_OPS_H
#define KF_ORACLE_OPS_H

#include <stdbool.h>
#include <stdint.h>

#define KF_OP_MAX_ND 3 /* spatial dimensions of convolutions and pooling */

/* ---- GEMM ---- */
/* For each b < batch: C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b], op(X) = X^T when its flag is
 * set. op(A) is M x K, op(B) K x N, C M x N. A stored [M, K] (ta: [K, M]), B [K, N] (tb: [N, K]).
 * a_stride / b_stride: elements between batches (0 broadcasts one matrix over the batch). */
void kf_op_gemm(int64_t batch, int64_t M, int64_t N, int64_t K, double alpha, const double *A, bool ta,
		int64_t a_stride, const double *B, bool tb, int64_t b_stride, double beta, double *C);

/* ---- convolution (N-d, 1 <= nd <= 3), PyTorch semantics (cross-correlation) ---- */
struct kf_op_conv {
	int nd;
	int64_t stride[KF_OP_MAX_ND], pad[KF_OP_MAX_ND], dilation[KF_OP_MAX_ND];
	int64_t out_pad[KF_OP_MAX_ND]; /* transposed only */
	int64_t groups;
};
int64_t kf_op_conv_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dilation);
int64_t kf_op_conv_transpose_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t out_pad,
				 int64_t dilation);
/* x [N, C, in...], w [O, C/groups, k...], bias [O] or NULL, y [N, O, out...]. */
void kf_op_conv(const struct kf_op_conv *p, int64_t N, int64_t C, const int64_t *in, int64_t O, const int64_t *k,
		const double *x, const double *w, const double *bias, double *y);
/* x [N, C, in...], w [C, O/groups, k...] (PyTorch ConvTranspose layout), bias [O] or NULL, y [N, O, out...]. */
void kf_op_conv_transpose(const struct kf_op_conv *p, int64_t N, int64_t C, const int64_t *in, int64_t O,
			  const int64_t *k, const double *x, const double *w, const double *bias, double *y);

/* ---- pooling (1-3-D): x [N*C, in...] -> y [N*C, out...]; padding is -inf for max, and for avg
 * counted in the divisor only when count_pad (PyTorch count_include_pad) ---- */
enum kf_op_pool { KF_OP_POOL_MAX, KF_OP_POOL_AVG };
void kf_op_pool(enum kf_op_pool kind, const struct kf_op_conv *p, int64_t NC, const int64_t *in, const int64_t *k,
		bool count_pad, const double *x, double *y);

/* ---- reductions over an axis: y [outer, inner] ---- */
enum kf_op_reduce {
	KF_OP_SUM, KF_OP_MEAN, KF_OP_MAX, KF_OP_MIN, KF_OP_PROD, KF_OP_L2, KF_OP_LOGSUMEXP,
	KF_OP_VAR,    /* population variance */
	KF_OP_ARGMAX, /* first index of the maximum */
	KF_OP_ARGMIN, /* first index of the minimum */
};
void kf_op_reduce(enum kf_op_reduce op, int64_t outer, int64_t n, int64_t inner, const double *x, double *y);

/* ---- scans over an axis: y like x ---- */
enum kf_op_scan { KF_OP_SCAN_SUM, KF_OP_SCAN_PROD, KF_OP_SCAN_MAX, KF_OP_SCAN_MIN };
#define KF_OP_SCAN_EXCLUSIVE 1u /* y[i] combines x[0..i-1] (the identity at i = 0) */
#define KF_OP_SCAN_REVERSE 2u   /* from the end of the axis */
/* mask (like x, or NULL): elements where it is 0 contribute the identity (torch.cumsum(x * mask)). */
void kf_op_scan(enum kf_op_scan op, unsigned flags, int64_t outer, int64_t n, int64_t inner, const double *x,
		const double *mask, double *y);

/* ---- softmax over an axis ---- */
void kf_op_softmax(int64_t outer, int64_t n, int64_t inner, const double *x, double *y);
void kf_op_log_softmax(int64_t outer, int64_t n, int64_t inner, const double *x, double *y);

/* ---- norms (gamma, beta may be NULL: no affine) ---- */
/* Over the last n elements of each of rows rows. */
void kf_op_layer_norm(int64_t rows, int64_t n, const double *x, const double *gamma, const double *beta, double eps,
		      double *y);
void kf_op_rms_norm(int64_t rows, int64_t n, const double *x, const double *gamma, double eps, double *y);
/* x [N, C, spatial]: groups of C/G channels normalised over (C/G) * spatial; gamma, beta [C].
 * Instance norm is G = C; layer norm over [C, spatial] is G = 1. */
void kf_op_group_norm(int64_t N, int64_t C, int64_t spatial, int64_t G, const double *x, const double *gamma,
		      const double *beta, double eps, double *y);
/* Batch norm over x [N, C, spatial] per channel: with mean/var given (inference), else from the
 * batch itself (training mode, population variance). */
void kf_op_batch_norm(int64_t N, int64_t C, int64_t spatial, const double *x, const double *mean, const double *var,
		      const double *gamma, const double *beta, double eps, double *y);

/* ---- activations ---- */
enum kf_op_act {
	KF_OP_RELU, KF_OP_LEAKY_RELU /* p: slope */, KF_OP_ELU /* p: alpha */, KF_OP_SELU, KF_OP_CELU /* p: alpha */,
	KF_OP_GELU /* erf */, KF_OP_GELU_TANH, KF_OP_SILU, KF_OP_SIGMOID, KF_OP_TANH, KF_OP_SOFTPLUS, KF_OP_SOFTSIGN,
	KF_OP_MISH, KF_OP_HARDSWISH, KF_OP_HARDSIGMOID, KF_OP_HARDTANH /* [-1, 1] */, KF_OP_RELU6, KF_OP_LOG_SIGMOID,
	KF_OP_TANHSHRINK, KF_OP_SOFTSHRINK /* p: lambda */, KF_OP_HARDSHRINK /* p: lambda */, KF_OP_EXP,
};
double kf_op_act(enum kf_op_act a, double x, double p);
void kf_op_map(enum kf_op_act a, int64_t n, const double *x, double p, double *y);

/* ---- losses: the mean over n elements (KL: sum over n / batch, PyTorch's batchmean) ---- */
enum kf_op_loss {
	KF_OP_MSE, KF_OP_L1, KF_OP_HUBER /* p: delta */, KF_OP_SMOOTH_L1 /* p: beta */,
	KF_OP_HINGE,    /* mean(max(0, 1 - pred * target)), targets +-1 */
	KF_OP_BCE,      /* pred probabilities */
	KF_OP_BCE_LOGITS,
	KF_OP_KL_DIV,   /* pred: log-probabilities, target: probabilities; p: the batch size */
};
double kf_op_loss(enum kf_op_loss l, int64_t n, const double *pred, const double *target, double p);
/* Mean over rows of -log softmax(logits[r])[target[r]]. */
double kf_op_cross_entropy(int64_t rows, int64_t classes, const double *logits, const double *target);

/* ---- attention ---- */
/* q [B, H, Lq, D], k [B, HKV, Lk, D], v [B, HKV, Lk, Dv] -> o [B, H, Lq, Dv]; query head h reads
 * key/value head h / (H / HKV) (GQA); causal: query i sees keys j <= i + Lk - Lq. */
void kf_op_attention(int64_t B, int64_t H, int64_t HKV, int64_t Lq, int64_t Lk, int64_t D, int64_t Dv,
		     const double *q, const double *k, const double *v, double scale, bool causal, double *o);

/* ---- quantisation: round to a format's nearest value, ties to even. bf16 and f16 as IEEE
 * conversion (overflow to inf); the OCP formats as the judge's eval/tasks/lowp.c (saturating: E4M3 448,
 * E5M2 57344 (keeps inf), E2M1 6, NaN -> 0); int8 rounds and clamps to [-128, 127] ---- */
enum kf_op_fmt { KF_OP_BF16, KF_OP_F16, KF_OP_FP8_E4M3, KF_OP_FP8_E5M2, KF_OP_FP4_E2M1, KF_OP_INT8 };
double kf_op_round_to(enum kf_op_fmt f, double x);
void kf_op_quantize(enum kf_op_fmt f, int64_t n, const double *x, double scale, double *y); /* y = round(x / scale) */
void kf_op_dequantize(int64_t n, const double *q, double scale, double *y);                /* y = q * scale */
/* An fp4_e2m1x2 tensor reaches the oracle as its bytes' codes: the two values of one byte. */
double kf_op_fp4_lo(double byte);
double kf_op_fp4_hi(double byte);
/* MX dequantisation: n values from packed fp4 bytes (n/2 of them) times their block's scale
 * (scales[i / block], e8m0 already decoded by the judge). */
void kf_op_mx_fp4_dequantize(int64_t n, int64_t block, const double *packed, const double *scales, double *y);

#endif
