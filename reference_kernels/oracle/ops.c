/* The fp64 op library for oracles (see ops.h): plain loops, no blocking, no tricks, so that each
 * function is obviously the mathematical definition. */
#include "ops.h" /* beside this file: found from an oracle and from the tests alike */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* ---- GEMM ---- */

void kf_op_gemm(int64_t batch, int64_t M, int64_t N, int64_t K, double alpha, const double *A, bool ta,
		int64_t a_stride, const double *B, bool tb, int64_t b_stride, double beta, double *C)
{
	for (int64_t b = 0; b < batch; b++) {
		const double *a = A + b * a_stride, *bb = B + b * b_stride;
		double *c = C + b * M * N;
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++) {
				double sum = 0;
				for (int64_t p = 0; p < K; p++)
					sum += (ta ? a[p * M + i] : a[i * K + p]) * (tb ? bb[j * K + p] : bb[p * N + j]);
				c[i * N + j] = alpha * sum + (beta != 0 ? beta * c[i * N + j] : 0);
			}
	}
}

/* ---- convolution and pooling ---- */

int64_t kf_op_conv_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dilation)
{
	return (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

int64_t kf_op_conv_transpose_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t out_pad,
				 int64_t dilation)
{
	return (in - 1) * stride - 2 * pad + dilation * (k - 1) + out_pad + 1;
}

static int64_t prod(int nd, const int64_t *v)
{
	int64_t p = 1;
	for (int d = 0; d < nd; d++)
		p *= v[d];
	return p;
}

/* Row-major multi-index of flat index f over sizes sz. */
static void unflatten(int nd, const int64_t *sz, int64_t f, int64_t *idx)
{
	for (int d = nd - 1; d >= 0; d--) {
		idx[d] = f % sz[d];
		f /= sz[d];
	}
}

/* Flat input index at output position o and kernel position kk, or -1 in the padding. */
static int64_t conv_src(const struct kf_op_conv *p, const int64_t *in, const int64_t *o, const int64_t *kk)
{
	int64_t f = 0;
	for (int d = 0; d < p->nd; d++) {
		int64_t i = o[d] * p->stride[d] - p->pad[d] + kk[d] * p->dilation[d];
		if (i < 0 || i >= in[d])
			return -1;
		f = f * in[d] + i;
	}
	return f;
}

void kf_op_conv(const struct kf_op_conv *p, int64_t N, int64_t C, const int64_t *in, int64_t O, const int64_t *k,
		const double *x, const double *w, const double *bias, double *y)
{
	int64_t out[KF_OP_MAX_ND], o[KF_OP_MAX_ND], kk[KF_OP_MAX_ND];
	for (int d = 0; d < p->nd; d++)
		out[d] = kf_op_conv_out(in[d], k[d], p->stride[d], p->pad[d], p->dilation[d]);
	int64_t n_in = prod(p->nd, in), n_out = prod(p->nd, out), n_k = prod(p->nd, k);
	int64_t cg = C / p->groups, og = O / p->groups;
	for (int64_t n = 0; n < N; n++)
		for (int64_t oc = 0; oc < O; oc++) {
			int64_t g = oc / og;
			for (int64_t op = 0; op < n_out; op++) {
				unflatten(p->nd, out, op, o);
				double sum = bias ? bias[oc] : 0;
				for (int64_t ic = 0; ic < cg; ic++)
					for (int64_t kp = 0; kp < n_k; kp++) {
						unflatten(p->nd, k, kp, kk);
						int64_t src = conv_src(p, in, o, kk);
						if (src >= 0)
							sum += x[(n * C + g * cg + ic) * n_in + src] * w[(oc * cg + ic) * n_k + kp];
					}
				y[(n * O + oc) * n_out + op] = sum;
			}
		}
}

void kf_op_conv_transpose(const struct kf_op_conv *p, int64_t N, int64_t C, const int64_t *in, int64_t O,
			  const int64_t *k, const double *x, const double *w, const double *bias, double *y)
{
	int64_t out[KF_OP_MAX_ND], i[KF_OP_MAX_ND], kk[KF_OP_MAX_ND];
	for (int d = 0; d < p->nd; d++)
		out[d] = kf_op_conv_transpose_out(in[d], k[d], p->stride[d], p->pad[d], p->out_pad[d], p->dilation[d]);
	int64_t n_in = prod(p->nd, in), n_out = prod(p->nd, out), n_k = prod(p->nd, k);
	int64_t cg = C / p->groups, og = O / p->groups;
	for (int64_t n = 0; n < N; n++)
		for (int64_t oc = 0; oc < O; oc++)
			for (int64_t q = 0; q < n_out; q++)
				y[(n * O + oc) * n_out + q] = bias ? bias[oc] : 0;
	/* the adjoint of the convolution: each input element scatters through the kernel */
	for (int64_t n = 0; n < N; n++)
		for (int64_t ic = 0; ic < C; ic++) {
			int64_t g = ic / cg;
			for (int64_t ip = 0; ip < n_in; ip++) {
				unflatten(p->nd, in, ip, i);
				for (int64_t kp = 0; kp < n_k; kp++) {
					unflatten(p->nd, k, kp, kk);
					int64_t dst = 0;
					bool inside = true;
					for (int d = 0; d < p->nd && inside; d++) {
						int64_t od = i[d] * p->stride[d] - p->pad[d] + kk[d] * p->dilation[d];
						inside = od >= 0 && od < out[d];
						dst = dst * out[d] + od;
					}
					if (!inside)
						continue;
					double xv = x[(n * C + ic) * n_in + ip];
					for (int64_t o = 0; o < og; o++)
						y[(n * O + g * og + o) * n_out + dst] += xv * w[(ic * og + o) * n_k + kp];
				}
			}
		}
}

void kf_op_pool(enum kf_op_pool kind, const struct kf_op_conv *p, int64_t NC, const int64_t *in, const int64_t *k,
		bool count_pad, const double *x, double *y)
{
	int64_t out[KF_OP_MAX_ND], o[KF_OP_MAX_ND], kk[KF_OP_MAX_ND];
	for (int d = 0; d < p->nd; d++)
		out[d] = kf_op_conv_out(in[d], k[d], p->stride[d], p->pad[d], p->dilation[d]);
	int64_t n_in = prod(p->nd, in), n_out = prod(p->nd, out), n_k = prod(p->nd, k);
	for (int64_t c = 0; c < NC; c++)
		for (int64_t op = 0; op < n_out; op++) {
			unflatten(p->nd, out, op, o);
			double acc = kind == KF_OP_POOL_MAX ? -INFINITY : 0;
			int64_t count = 0;
			for (int64_t kp = 0; kp < n_k; kp++) {
				unflatten(p->nd, k, kp, kk);
				int64_t src = conv_src(p, in, o, kk);
				if (src < 0) {
					count += count_pad;
					continue;
				}
				double v = x[c * n_in + src];
				acc = kind == KF_OP_POOL_MAX ? fmax(acc, v) : acc + v;
				count++;
			}
			y[c * n_out + op] = kind == KF_OP_POOL_MAX ? acc : acc / (double)count;
		}
}

/* ---- reductions, scans, softmax ---- */

void kf_op_reduce(enum kf_op_reduce op, int64_t outer, int64_t n, int64_t inner, const double *x, double *y)
{
	for (int64_t a = 0; a < outer; a++)
		for (int64_t b = 0; b < inner; b++) {
			const double *v = x + a * n * inner + b;
			double acc = op == KF_OP_PROD ? 1 : op == KF_OP_MAX || op == KF_OP_LOGSUMEXP ? -INFINITY
							  : op == KF_OP_MIN ? INFINITY : 0;
			int64_t best = 0;
			for (int64_t i = 0; i < n; i++) {
				double e = v[i * inner];
				switch (op) {
				case KF_OP_SUM: case KF_OP_MEAN: case KF_OP_VAR: acc += e; break;
				case KF_OP_MAX: case KF_OP_LOGSUMEXP: acc = fmax(acc, e); break;
				case KF_OP_MIN: acc = fmin(acc, e); break;
				case KF_OP_PROD: acc *= e; break;
				case KF_OP_L2: acc += e * e; break;
				case KF_OP_ARGMAX: best = e > v[best * inner] ? i : best; break;
				case KF_OP_ARGMIN: best = e < v[best * inner] ? i : best; break;
				}
			}
			double r = acc;
			if (op == KF_OP_MEAN)
				r = acc / (double)n;
			else if (op == KF_OP_L2)
				r = sqrt(acc);
			else if (op == KF_OP_ARGMAX || op == KF_OP_ARGMIN)
				r = (double)best;
			else if (op == KF_OP_LOGSUMEXP || op == KF_OP_VAR) {
				double mean = acc / (double)n, s = 0;
				for (int64_t i = 0; i < n; i++) {
					double e = v[i * inner];
					s += op == KF_OP_VAR ? (e - mean) * (e - mean) : exp(e - acc);
				}
				r = op == KF_OP_VAR ? s / (double)n : acc + log(s);
			}
			y[a * inner + b] = r;
		}
}

void kf_op_scan(enum kf_op_scan op, unsigned flags, int64_t outer, int64_t n, int64_t inner, const double *x,
		const double *mask, double *y)
{
	double id = op == KF_OP_SCAN_PROD ? 1 : op == KF_OP_SCAN_MAX ? -INFINITY : op == KF_OP_SCAN_MIN ? INFINITY : 0;
	bool rev = flags & KF_OP_SCAN_REVERSE, excl = flags & KF_OP_SCAN_EXCLUSIVE;
	for (int64_t a = 0; a < outer; a++)
		for (int64_t b = 0; b < inner; b++) {
			double acc = id;
			for (int64_t s = 0; s < n; s++) {
				int64_t i = rev ? n - 1 - s : s, at = (a * n + i) * inner + b;
				double e = mask && mask[at] == 0 ? id : x[at];
				if (excl)
					y[at] = acc;
				acc = op == KF_OP_SCAN_SUM ? acc + e : op == KF_OP_SCAN_PROD ? acc * e
					: op == KF_OP_SCAN_MAX ? fmax(acc, e) : fmin(acc, e);
				if (!excl)
					y[at] = acc;
			}
		}
}

static void softmax_any(int64_t outer, int64_t n, int64_t inner, const double *x, double *y, bool log_out)
{
	for (int64_t a = 0; a < outer; a++)
		for (int64_t b = 0; b < inner; b++) {
			const double *v = x + a * n * inner + b;
			double *o = y + a * n * inner + b;
			double max = -INFINITY, sum = 0;
			for (int64_t i = 0; i < n; i++)
				max = fmax(max, v[i * inner]);
			for (int64_t i = 0; i < n; i++)
				sum += exp(v[i * inner] - max);
			for (int64_t i = 0; i < n; i++)
				o[i * inner] = log_out ? v[i * inner] - max - log(sum) : exp(v[i * inner] - max) / sum;
		}
}

void kf_op_softmax(int64_t outer, int64_t n, int64_t inner, const double *x, double *y)
{
	softmax_any(outer, n, inner, x, y, false);
}

void kf_op_log_softmax(int64_t outer, int64_t n, int64_t inner, const double *x, double *y)
{
	softmax_any(outer, n, inner, x, y, true);
}

/* ---- norms ---- */

/* y = (x - mean) / sqrt(var + eps) over n elements spaced by step; affine per channel c. */
static void normalize(int64_t n, int64_t step, const double *x, double mean, double var, double eps, double g,
		      double b, double *y)
{
	double inv = 1 / sqrt(var + eps);
	for (int64_t i = 0; i < n; i++)
		y[i * step] = (x[i * step] - mean) * inv * g + b;
}

static void moments(int64_t n, const double *x, double *mean, double *var)
{
	double s = 0, q = 0;
	for (int64_t i = 0; i < n; i++)
		s += x[i];
	*mean = s / (double)n;
	for (int64_t i = 0; i < n; i++)
		q += (x[i] - *mean) * (x[i] - *mean);
	*var = q / (double)n;
}

void kf_op_layer_norm(int64_t rows, int64_t n, const double *x, const double *gamma, const double *beta, double eps,
		      double *y)
{
	for (int64_t r = 0; r < rows; r++) {
		double mean, var;
		moments(n, x + r * n, &mean, &var);
		for (int64_t i = 0; i < n; i++)
			normalize(1, 1, x + r * n + i, mean, var, eps, gamma ? gamma[i] : 1, beta ? beta[i] : 0, y + r * n + i);
	}
}

void kf_op_rms_norm(int64_t rows, int64_t n, const double *x, const double *gamma, double eps, double *y)
{
	for (int64_t r = 0; r < rows; r++) {
		double q = 0;
		for (int64_t i = 0; i < n; i++)
			q += x[r * n + i] * x[r * n + i];
		double inv = 1 / sqrt(q / (double)n + eps);
		for (int64_t i = 0; i < n; i++)
			y[r * n + i] = x[r * n + i] * inv * (gamma ? gamma[i] : 1);
	}
}

void kf_op_group_norm(int64_t N, int64_t C, int64_t spatial, int64_t G, const double *x, const double *gamma,
		      const double *beta, double eps, double *y)
{
	int64_t cg = C / G, len = cg * spatial;
	for (int64_t n = 0; n < N; n++)
		for (int64_t g = 0; g < G; g++) {
			const double *xs = x + (n * C + g * cg) * spatial;
			double mean, var;
			moments(len, xs, &mean, &var);
			for (int64_t c = g * cg; c < (g + 1) * cg; c++)
				normalize(spatial, 1, x + (n * C + c) * spatial, mean, var, eps, gamma ? gamma[c] : 1,
					  beta ? beta[c] : 0, y + (n * C + c) * spatial);
		}
}

void kf_op_batch_norm(int64_t N, int64_t C, int64_t spatial, const double *x, const double *mean, const double *var,
		      const double *gamma, const double *beta, double eps, double *y)
{
	for (int64_t c = 0; c < C; c++) {
		double m, v;
		if (mean) {
			m = mean[c], v = var[c];
		} else {
			double s = 0, q = 0;
			for (int64_t n = 0; n < N; n++)
				for (int64_t i = 0; i < spatial; i++)
					s += x[(n * C + c) * spatial + i];
			m = s / (double)(N * spatial);
			for (int64_t n = 0; n < N; n++)
				for (int64_t i = 0; i < spatial; i++) {
					double d = x[(n * C + c) * spatial + i] - m;
					q += d * d;
				}
			v = q / (double)(N * spatial);
		}
		for (int64_t n = 0; n < N; n++)
			normalize(spatial, 1, x + (n * C + c) * spatial, m, v, eps, gamma ? gamma[c] : 1, beta ? beta[c] : 0,
				  y + (n * C + c) * spatial);
	}
}

/* ---- activations ---- */

#define KF_OP_PI 3.14159265358979323846
#define SELU_ALPHA 1.6732632423543772848170429916717
#define SELU_SCALE 1.0507009873554804934193349852946

static double sigmoid(double x)
{
	return 1 / (1 + exp(-x));
}

static double softplus(double x)
{
	return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

double kf_op_act(enum kf_op_act a, double x, double p)
{
	switch (a) {
	case KF_OP_RELU: return x > 0 ? x : 0;
	case KF_OP_LEAKY_RELU: return x > 0 ? x : p * x;
	case KF_OP_ELU: return x > 0 ? x : p * expm1(x);
	case KF_OP_SELU: return SELU_SCALE * (x > 0 ? x : SELU_ALPHA * expm1(x));
	case KF_OP_CELU: return x > 0 ? x : p * expm1(x / p);
	case KF_OP_GELU: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
	case KF_OP_GELU_TANH: return 0.5 * x * (1 + tanh(sqrt(2 / KF_OP_PI) * (x + 0.044715 * x * x * x)));
	case KF_OP_SILU: return x * sigmoid(x);
	case KF_OP_SIGMOID: return sigmoid(x);
	case KF_OP_TANH: return tanh(x);
	case KF_OP_SOFTPLUS: return softplus(x);
	case KF_OP_SOFTSIGN: return x / (1 + fabs(x));
	case KF_OP_MISH: return x * tanh(softplus(x));
	case KF_OP_HARDSWISH: return x * fmin(fmax(x + 3, 0), 6) / 6;
	case KF_OP_HARDSIGMOID: return fmin(fmax(x / 6 + 0.5, 0), 1);
	case KF_OP_HARDTANH: return fmin(fmax(x, -1), 1);
	case KF_OP_RELU6: return fmin(fmax(x, 0), 6);
	case KF_OP_LOG_SIGMOID: return -softplus(-x);
	case KF_OP_TANHSHRINK: return x - tanh(x);
	case KF_OP_SOFTSHRINK: return x > p ? x - p : x < -p ? x + p : 0;
	case KF_OP_HARDSHRINK: return fabs(x) > p ? x : 0;
	case KF_OP_EXP: return exp(x);
	}
	return NAN;
}

void kf_op_map(enum kf_op_act a, int64_t n, const double *x, double p, double *y)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = kf_op_act(a, x[i], p);
}

/* ---- losses ---- */

double kf_op_loss(enum kf_op_loss l, int64_t n, const double *pred, const double *target, double p)
{
	double sum = 0;
	for (int64_t i = 0; i < n; i++) {
		double x = pred[i], t = target[i], d = fabs(x - t);
		switch (l) {
		case KF_OP_MSE: sum += d * d; break;
		case KF_OP_L1: sum += d; break;
		case KF_OP_HUBER: sum += d < p ? 0.5 * d * d : p * (d - 0.5 * p); break;
		case KF_OP_SMOOTH_L1: sum += d < p ? 0.5 * d * d / p : d - 0.5 * p; break;
		case KF_OP_HINGE: sum += fmax(0, 1 - x * t); break;
		case KF_OP_BCE: sum += -(t * log(x) + (1 - t) * log1p(-x)); break;
		case KF_OP_BCE_LOGITS: sum += softplus(x) - t * x; break;
		case KF_OP_KL_DIV: sum += t > 0 ? t * (log(t) - x) : 0; break;
		}
	}
	return l == KF_OP_KL_DIV ? sum / p : sum / (double)n;
}

double kf_op_cross_entropy(int64_t rows, int64_t classes, const double *logits, const double *target)
{
	double sum = 0;
	for (int64_t r = 0; r < rows; r++) {
		const double *z = logits + r * classes;
		double lse;
		kf_op_reduce(KF_OP_LOGSUMEXP, 1, classes, 1, z, &lse);
		sum += lse - z[(int64_t)target[r]];
	}
	return sum / (double)rows;
}

/* ---- attention ---- */

void kf_op_attention(int64_t B, int64_t H, int64_t HKV, int64_t Lq, int64_t Lk, int64_t D, int64_t Dv,
		     const double *q, const double *k, const double *v, double scale, bool causal, double *o)
{
	double *s = malloc(sizeof *s * (size_t)(Lk ? Lk : 1));
	for (int64_t b = 0; b < B; b++)
		for (int64_t h = 0; h < H; h++) {
			int64_t hk = h / (H / HKV);
			const double *qh = q + (b * H + h) * Lq * D, *kh = k + (b * HKV + hk) * Lk * D;
			const double *vh = v + (b * HKV + hk) * Lk * Dv;
			for (int64_t i = 0; i < Lq; i++) {
				int64_t last = causal ? i + Lk - Lq : Lk - 1;
				for (int64_t j = 0; j < Lk; j++) {
					double dot = 0;
					for (int64_t d = 0; d < D; d++)
						dot += qh[i * D + d] * kh[j * D + d];
					s[j] = j <= last ? dot * scale : -INFINITY;
				}
				kf_op_softmax(1, Lk, 1, s, s);
				double *oi = o + ((b * H + h) * Lq + i) * Dv;
				for (int64_t d = 0; d < Dv; d++) {
					double acc = 0;
					for (int64_t j = 0; j <= last && j < Lk; j++)
						acc += s[j] * vh[j * Dv + d];
					oi[d] = acc;
				}
			}
		}
	free(s);
}

/* ---- quantisation ---- */

/* x rounded to a binary float with man_bits fraction bits, normal exponents down to min_exp
 * (subnormals below), ties to even. A result beyond max becomes infinite (ieee: bf16, f16) or
 * saturates to max (the OCP formats); an infinite x stays infinite when inf_kept. */
static double round_float(double x, int man_bits, int min_exp, double max, bool ieee, bool inf_kept)
{
	if (isnan(x))
		return x;
	if (isinf(x))
		return inf_kept ? x : copysign(max, x);
	int e;
	frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
	int exp = e - 1 < min_exp ? min_exp : e - 1;
	double q = ldexp(1.0, exp - man_bits); /* the spacing of representable values there */
	double r = nearbyint(x / q) * q;      /* the default rounding mode: to nearest, ties to even */
	if (fabs(r) > max)
		return copysign(ieee ? INFINITY : max, x);
	return r;
}

double kf_op_round_to(enum kf_op_fmt f, double x)
{
	switch (f) {
	case KF_OP_BF16: return round_float(x, 7, -126, 0x1.fep127, true, true);
	case KF_OP_F16: return round_float(x, 10, -14, 65504, true, true);
	case KF_OP_FP8_E4M3: return round_float(x, 3, -6, 448, false, false);
	case KF_OP_FP8_E5M2: return round_float(x, 2, -14, 57344, false, true);
	case KF_OP_FP4_E2M1: return isnan(x) ? 0 : round_float(x, 1, 0, 6, false, false);
	case KF_OP_INT8: return isnan(x) ? 0 : fmin(fmax(nearbyint(x), -128), 127);
	}
	return NAN;
}

void kf_op_quantize(enum kf_op_fmt f, int64_t n, const double *x, double scale, double *y)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = kf_op_round_to(f, x[i] / scale);
}

void kf_op_dequantize(int64_t n, const double *q, double scale, double *y)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = q[i] * scale;
}

static double fp4_value(unsigned nibble)
{
	static const double mags[8] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6 };
	return nibble & 8 ? -mags[nibble & 7] : mags[nibble & 7];
}

double kf_op_fp4_lo(double byte)
{
	return fp4_value((unsigned)byte & 15);
}

double kf_op_fp4_hi(double byte)
{
	return fp4_value(((unsigned)byte >> 4) & 15);
}

void kf_op_mx_fp4_dequantize(int64_t n, int64_t block, const double *packed, const double *scales, double *y)
{
	for (int64_t i = 0; i < n; i++) {
		double v = i % 2 ? kf_op_fp4_hi(packed[i / 2]) : kf_op_fp4_lo(packed[i / 2]);
		y[i] = v * scales[i / block];
	}
}
