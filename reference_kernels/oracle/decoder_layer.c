/* fp64 oracle for decoder_layer (M = B*L tokens, Dm = H*D, Nqkv = (H + 2*HKV)*D, no rounding anywhere):
 *   qkv = rms(x) @ Wqkv, rms(v) = v / sqrt(mean(v^2) + 1e-6) per row;
 *   attn[t, h*D + d] = causal softmax attention of query head h (qkv columns h*D..) over the keys and values of KV
 *     head g = h / (H / HKV) (columns H*D + g*D.. and (H + HKV)*D + g*D..) within the token's sequence;
 *   hid = x + attn @ Wo;  act = silu(rms(hid) @ W1[:, :F]) * (rms(hid) @ W1[:, F:]);  y = hid + act @ W2. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#define RMS_EPS 1e-6

/* dst[M][N] = rms(a)[M][K] @ w[K][N] (w rows ldw apart), or a @ w when !norm */
static void matmul(double *dst, const double *a, const double *w, int M, int N, int K, int ldw, int norm)
{
	for (int i = 0; i < M; i++) {
		double ss = 0, scale = 1;
		for (int k = 0; k < K; k++)
			ss += a[(size_t)i * K + k] * a[(size_t)i * K + k];
		if (norm)
			scale = 1.0 / sqrt(ss / K + RMS_EPS);
		for (int j = 0; j < N; j++) {
			double acc = 0;
			for (int k = 0; k < K; k++)
				acc += a[(size_t)i * K + k] * scale * w[(size_t)k * ldw + j];
			dst[(size_t)i * N + j] = acc;
		}
	}
}

static void causal_attention(double *attn, const double *qkv, double *s, int B, int L, int H, int HKV, int D)
{
	int nqkv = (H + 2 * HKV) * D, dm = H * D;
	for (int b = 0; b < B; b++)
		for (int h = 0; h < H; h++) {
			int g = h / (H / HKV);
			for (int i = 0; i < L; i++) {
				const double *q = qkv + ((size_t)b * L + i) * nqkv + (size_t)h * D;
				double max = -INFINITY, sum = 0;
				for (int j = 0; j <= i; j++) {
					const double *k = qkv + ((size_t)b * L + j) * nqkv + (size_t)(H + g) * D;
					s[j] = 0;
					for (int d = 0; d < D; d++)
						s[j] += q[d] * k[d];
					s[j] /= sqrt((double)D);
					max = fmax(max, s[j]);
				}
				for (int j = 0; j <= i; j++)
					sum += s[j] = exp(s[j] - max);
				double *o = attn + ((size_t)b * L + i) * dm + (size_t)h * D;
				for (int d = 0; d < D; d++) {
					o[d] = 0;
					for (int j = 0; j <= i; j++)
						o[d] += s[j] / sum * qkv[((size_t)b * L + j) * nqkv + (size_t)(H + HKV + g) * D + d];
				}
			}
		}
}

int kf_oracle(const double *x, const double *Wqkv, const double *Wo, const double *W1, const double *W2, double *qkv,
	      double *act, double *y, int B, int L, int H, int HKV, int D, int F)
{
	int M = B * L, dm = H * D, nqkv = (H + 2 * HKV) * D;
	double *attn = malloc((size_t)M * dm * sizeof *attn), *hid = malloc((size_t)M * dm * sizeof *hid);
	double *gate = malloc((size_t)M * F * sizeof *gate), *s = malloc((size_t)L * sizeof *s);
	int rc = 1;
	if (!attn || !hid || !gate || !s)
		goto out;
	matmul(qkv, x, Wqkv, M, nqkv, dm, nqkv, 1);
	causal_attention(attn, qkv, s, B, L, H, HKV, D);
	matmul(hid, attn, Wo, M, dm, dm, dm, 0);
	for (size_t i = 0; i < (size_t)M * dm; i++)
		hid[i] += x[i];
	matmul(gate, hid, W1, M, F, dm, 2 * F, 1);
	matmul(act, hid, W1 + F, M, F, dm, 2 * F, 1);
	for (size_t i = 0; i < (size_t)M * F; i++)
		act[i] *= gate[i] / (1.0 + exp(-gate[i]));
	matmul(y, act, W2, M, dm, F, dm, 0);
	for (size_t i = 0; i < (size_t)M * dm; i++)
		y[i] += hid[i];
	rc = 0;
out:
	free(attn);
	free(hid);
	free(gate);
	free(s);
	return rc;
}
