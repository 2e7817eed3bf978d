/* Example candidate for decoder_layer (cpu backend): the layer as four matrix products and an attention, each a plain
 * OpenMP loop over output elements; the attention takes one online-softmax pass per (batch, head, query); the
 * intermediates go through bf16 buffers as the task says (qkv and act are outputs; attn and hid scratch).
 * Submit with: kforge submit --task decoder_layer examples/cpu/decoder_layer.c */
#include <math.h>
#include <stdlib.h>

/* dst[M][N] = (rms-normalised a when norm) @ w[:, col0 : col0 + N] (+ res), w rows ldw apart; silu_of: when set,
 * dst = silu(silu_of-product) * product (the gate's columns are col0 - F of the same w). */
static void product(kf_bf16 *dst, const kf_bf16 *a, const kf_bf16 *w, const kf_bf16 *res, int M, int N, int K,
		    int ldw, int col0, int norm, int gate_off)
{
#pragma omp parallel for
	for (int i = 0; i < M; i++) {
		float ss = 0, scale = 1;
		for (int k = 0; k < K; k++)
			ss += kf_bf16_to_float(a[(size_t)i * K + k]) * kf_bf16_to_float(a[(size_t)i * K + k]);
		if (norm)
			scale = 1.0f / sqrtf(ss / K + 1e-6f);
		for (int j = 0; j < N; j++) {
			float acc = 0, gate = 0;
			for (int k = 0; k < K; k++) {
				float ak = kf_bf16_to_float(a[(size_t)i * K + k]) * scale;
				acc += ak * kf_bf16_to_float(w[(size_t)k * ldw + col0 + j]);
				if (gate_off)
					gate += ak * kf_bf16_to_float(w[(size_t)k * ldw + col0 - gate_off + j]);
			}
			if (gate_off)
				acc *= gate / (1.0f + expf(-gate));
			if (res)
				acc += kf_bf16_to_float(res[(size_t)i * N + j]);
			dst[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	}
}

int kf_launch(const kf_bf16 *x, const kf_bf16 *Wqkv, const kf_bf16 *Wo, const kf_bf16 *W1, const kf_bf16 *W2,
	      kf_bf16 *qkv, kf_bf16 *act, kf_bf16 *y, int B, int L, int H, int HKV, int D, int F)
{
	int M = B * L, dm = H * D, nqkv = (H + 2 * HKV) * D;
	kf_bf16 *attn = malloc((2 * (size_t)M * dm + 1) * sizeof *attn);
	if (!attn)
		return 1;
	kf_bf16 *hid = attn + (size_t)M * dm;
	product(qkv, x, Wqkv, NULL, M, nqkv, dm, nqkv, 0, 1, 0);
#pragma omp parallel for schedule(dynamic, 4)
	for (long long r = 0; r < (long long)M * H; r++) {
		int t = (int)(r / H), h = (int)(r % H), i = t % L, g = h / (H / HKV);
		const kf_bf16 *q = qkv + (size_t)t * nqkv + (size_t)h * D;
		float max = -INFINITY, sum = 0, acc[256] = { 0 };
		for (int j = 0; j <= i; j++) {
			const kf_bf16 *kj = qkv + (size_t)(t - i + j) * nqkv + (size_t)(H + g) * D;
			const kf_bf16 *vj = kj + (size_t)HKV * D;
			float s = 0;
			for (int d = 0; d < D; d++)
				s += kf_bf16_to_float(q[d]) * kf_bf16_to_float(kj[d]);
			s /= sqrtf((float)D);
			float m = fmaxf(max, s), alpha = expf(max - m), p = expf(s - m);
			for (int d = 0; d < D; d++)
				acc[d] = acc[d] * alpha + p * kf_bf16_to_float(vj[d]);
			sum = sum * alpha + p;
			max = m;
		}
		for (int d = 0; d < D; d++)
			attn[(size_t)t * dm + (size_t)h * D + d] = kf_float_to_bf16(acc[d] / sum);
	}
	product(hid, attn, Wo, x, M, dm, dm, dm, 0, 0, 0);
	product(act, hid, W1, NULL, M, F, dm, 2 * F, F, 1, F);
	product(y, act, W2, hid, M, dm, F, dm, 0, 0, 0);
	free(attn);
	return 0;
}
