/* CPU reference for decoder_layer, stage by stage in fp32 with each stored intermediate rounded to bf16 (qkv, attn,
 * hid, act), as an unfused layer computes it: row-parallel GEMMs (axpys over widened weight rows, the RMSNorm folded
 * in as a per-row scale), and causal attention per (batch, head, query) row. */
#include <math.h>
#include <stdlib.h>

#define RMS_EPS 1e-6f

static float round_bf16(float v)
{
	return kf_bf16_to_float(kf_float_to_bf16(v));
}

static void widen(float *dst, const kf_bf16 *src, size_t n)
{
#pragma omp parallel for schedule(static)
	for (size_t i = 0; i < n; i++)
		dst[i] = kf_bf16_to_float(src[i]);
}

/* dst[M][N] = scale_m * a[M][K] @ w[K][N] (+ res), w rows ldw apart, scale_m the row's 1/rms when norm, rounded
 * to bf16 when stored (an intermediate the unfused layer writes out). */
static int gemm_rows(float *dst, const float *a, const float *w, const float *res, int M, int N, int K, int ldw,
		     int norm, int stored)
{
	int rc = 0;
#pragma omp parallel
	{
		float *acc = malloc(((size_t)N + 1) * sizeof *acc);
		if (!acc) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(static)
		for (int i = 0; i < M; i++) {
			if (!acc)
				continue;
			const float *ar = a + (size_t)i * K;
			float scale = 1, ss = 0;
			for (int k = 0; k < K; k++)
				ss += ar[k] * ar[k];
			if (norm)
				scale = 1.0f / sqrtf(ss / (float)K + RMS_EPS);
			for (int j = 0; j < N; j++)
				acc[j] = 0;
			for (int k = 0; k < K; k++) {
				const float *wk = w + (size_t)k * ldw;
				float ak = ar[k] * scale;
#pragma omp simd
				for (int j = 0; j < N; j++)
					acc[j] += ak * wk[j];
			}
			for (int j = 0; j < N; j++) {
				float v = acc[j] + (res ? res[(size_t)i * N + j] : 0.0f);
				dst[(size_t)i * N + j] = stored ? round_bf16(v) : v;
			}
		}
		free(acc);
	}
	return rc;
}

static int causal_attention(float *attn, const float *qkv, int B, int L, int H, int HKV, int D)
{
	int rc = 0, nqkv = (H + 2 * HKV) * D, dm = H * D;
	float scale = 1.0f / sqrtf((float)D);
#pragma omp parallel
	{
		float *s = malloc(((size_t)L + (size_t)D + 1) * sizeof *s);
		if (!s) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(dynamic, 8)
		for (long long row = 0; row < (long long)B * H * L; row++) {
			if (!s)
				continue;
			int i = (int)(row % L), h = (int)(row / L % H), b = (int)(row / ((long long)L * H));
			int g = h / (H / HKV);
			const float *base = qkv + (size_t)b * L * nqkv, *q = base + (size_t)i * nqkv + (size_t)h * D;
			float *acc = s + L, max = -INFINITY;
			for (int j = 0; j <= i; j++) {
				const float *k = base + (size_t)j * nqkv + (size_t)(H + g) * D;
				float dot = 0;
				for (int d = 0; d < D; d++)
					dot += q[d] * k[d];
				s[j] = dot * scale;
				max = fmaxf(max, s[j]);
			}
			double sum = 0;
			for (int j = 0; j <= i; j++)
				sum += s[j] = expf(s[j] - max);
			for (int d = 0; d < D; d++)
				acc[d] = 0;
			for (int j = 0; j <= i; j++) {
				const float *v = base + (size_t)j * nqkv + (size_t)(H + HKV + g) * D;
				for (int d = 0; d < D; d++)
					acc[d] += s[j] * v[d];
			}
			float *o = attn + ((size_t)b * L + i) * dm + (size_t)h * D;
			for (int d = 0; d < D; d++)
				o[d] = round_bf16(acc[d] / (float)sum);
		}
		free(s);
	}
	return rc;
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
	widen(xf, x, M * dm);
	widen(wqkv, Wqkv, dm * nqkv);
	widen(wo, Wo, dm * dm);
	widen(w1, W1, 2 * dm * F);
	widen(w2, W2, (size_t)F * dm);
	int rc = gemm_rows(qf, xf, wqkv, NULL, (int)M, (int)nqkv, (int)dm, (int)nqkv, 1, 1);
	rc |= causal_attention(attn, qf, B, L, H, HKV, D);
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
