/* CPU reference for decoder_layer, stage by stage in fp32 with each stored intermediate rounded to bf16 (qkv, attn,
 * hid, act), as an unfused layer computes it: row-parallel GEMMs (axpys over widened weight rows, the RMSNorm folded
 * in as a per-row scale), and causal attention per (batch, head, query) row. */
#include <math.h>

#include "cpu/rows.h"

#define RMS_EPS 1e-6f
#define ROW_CHUNK 8

static float round_bf16(float v)
{
	return kf_bf16_to_float(kf_float_to_bf16(v));
}

/* dst[M][N] = scale_m * a[M][K] @ w[K][N] (+ res), w rows ldw apart, scale_m the row's 1/rms when norm, rounded
 * to bf16 when stored (an intermediate the unfused layer writes out). */
struct gemm_args {
	float *dst;
	const float *a, *w, *res;
	int N, K, ldw, norm, stored;
};

static void gemm_row(long long i, float *acc, const void *args)
{
	const struct gemm_args *p = args;
	const float *ar = p->a + (size_t)i * p->K;
	float scale = 1, ss = 0;
	for (int k = 0; k < p->K; k++)
		ss += ar[k] * ar[k];
	if (p->norm)
		scale = 1.0f / sqrtf(ss / (float)p->K + RMS_EPS);
	for (int j = 0; j < p->N; j++)
		acc[j] = 0;
	axpy_rows(acc, ar, scale, p->w, p->N, p->K, (size_t)p->ldw);
	for (int j = 0; j < p->N; j++) {
		float v = acc[j] + (p->res ? p->res[(size_t)i * p->N + j] : 0.0f);
		p->dst[(size_t)i * p->N + j] = p->stored ? round_bf16(v) : v;
	}
}

static int gemm_rows(float *dst, const float *a, const float *w, const float *res, int M, int N, int K, int ldw,
		     int norm, int stored)
{
	struct gemm_args p = { dst, a, w, res, N, K, ldw, norm, stored };
	return for_each_row(M, (size_t)N, ROW_CHUNK, gemm_row, &p);
}

struct attn_args {
	float *attn;
	const float *qkv;
	int L, H, HKV, D;
};

static void attn_row(long long row, float *s, const void *args)
{
	const struct attn_args *p = args;
	int L = p->L, H = p->H, HKV = p->HKV, D = p->D, nqkv = (H + 2 * HKV) * D;
	int i = (int)(row % L), h = (int)(row / L % H), b = (int)(row / ((long long)L * H));
	int g = h / (H / HKV);
	const float *base = p->qkv + (size_t)b * L * nqkv, *q = base + (size_t)i * nqkv + (size_t)h * D;
	float *acc = s + L;
	float max = scores_row(s, q, base + (size_t)(H + g) * D, (size_t)nqkv, i + 1, D, 1.0f / sqrtf((float)D));
	double sum = exp_row(s, i + 1, max);
	for (int d = 0; d < D; d++)
		acc[d] = 0;
	for (int j = 0; j <= i; j++) {
		const float *v = base + (size_t)j * nqkv + (size_t)(H + HKV + g) * D;
		for (int d = 0; d < D; d++)
			acc[d] += s[j] * v[d];
	}
	float *o = p->attn + ((size_t)b * L + i) * H * D + (size_t)h * D;
	for (int d = 0; d < D; d++)
		o[d] = round_bf16(acc[d] / (float)sum);
}

int kf_launch(const kf_bf16 *x, const kf_bf16 *Wqkv, const kf_bf16 *Wo, const kf_bf16 *W1, const kf_bf16 *W2,
	      kf_bf16 *qkv, kf_bf16 *act, kf_bf16 *y, int B, int L, int H, int HKV, int D, int F)
{
	size_t M = (size_t)B * L, dm = (size_t)H * D, nqkv = (size_t)(H + 2 * HKV) * D;
	size_t total = M * dm * 4 + M * nqkv + 2 * M * (size_t)F + dm * nqkv + dm * dm + 3 * dm * (size_t)F;
	float *xf = malloc((total + 1) * sizeof *xf);
	if (!xf)
		return 1;
	float *attn = xf + M * dm, *hid = attn + M * dm, *out = hid + M * dm, *qf = out + M * dm;
	float *gate = qf + M * nqkv, *up = gate + M * F, *wqkv = up + M * F, *wo = wqkv + dm * nqkv;
	float *w1 = wo + dm * dm, *w2 = w1 + 2 * dm * F;
	widen_parallel(xf, x, M * dm);
	widen_parallel(wqkv, Wqkv, dm * nqkv);
	widen_parallel(wo, Wo, dm * dm);
	widen_parallel(w1, W1, 2 * dm * F);
	widen_parallel(w2, W2, (size_t)F * dm);
	struct attn_args ap = { attn, qf, L, H, HKV, D };
	int rc = gemm_rows(qf, xf, wqkv, NULL, (int)M, (int)nqkv, (int)dm, (int)nqkv, 1, 1);
	rc |= for_each_row((long long)B * H * L, (size_t)L + D, ROW_CHUNK, attn_row, &ap);
	rc |= gemm_rows(hid, attn, wo, xf, (int)M, (int)dm, (int)dm, (int)dm, 0, 1);
	rc |= gemm_rows(gate, hid, w1, NULL, (int)M, F, (int)dm, 2 * F, 1, 0);
	rc |= gemm_rows(up, hid, w1 + F, NULL, (int)M, F, (int)dm, 2 * F, 1, 0);
	for (size_t i = 0; i < M * (size_t)F; i++)
		up[i] = round_bf16(gate[i] / (1.0f + expf(-gate[i])) * up[i]);
	rc |= gemm_rows(out, up, w2, hid, (int)M, (int)dm, F, (int)dm, 0, 1);
	for (size_t i = 0; i < M * nqkv; i++)
		qkv[i] = kf_float_to_bf16(qf[i]);
	for (size_t i = 0; i < M * (size_t)F; i++)
		act[i] = kf_float_to_bf16(up[i]);
	for (size_t i = 0; i < M * dm; i++)
		y[i] = kf_float_to_bf16(out[i]);
	free(xf);
	return rc;
}
