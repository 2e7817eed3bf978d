/* flash_attention_causal: causal grouped-query attention, [B, H, L, D] tensors, one query head per grid row. */
#include <cuda_bf16.h>

#define WARP 32

/* Attention with one warp per query row and keys in tiles of 32, one key per lane: a lane computes its
 * key's score against the query (both staged in shared memory), the warp keeps an online softmax (running
 * max and sum, the output rescaled when the max grows), and the probabilities are broadcast by shuffle
 * while every lane accumulates its dimensions of the output (d = lane + 32 i) in fp32. Tensors are
 * addressed through strides, so packed layouts need no copy. */
#define QROWS 16 /* query rows (warps) per block */
#define KT 32    /* keys per tile: one per lane */
#define DMAX 256
#define DSLOTS (DMAX / WARP)

struct attn_view {
	const __nv_bfloat16 *p;
	long long sb, sh, st; /* strides of batch, head and position, in elements (dimension stride 1) */
};

struct attn_params {
	attn_view q, k, v;
	__nv_bfloat16 *o;
	long long o_sb, o_sh, o_st;
	int H, HKV, L, D;
	bool causal;
	float scale;
};

__global__ static void __launch_bounds__(QROWS * WARP) attention(attn_params p)
{
	/* +2: an odd number of 32-bit words per key row, so lane j's reads of row j hit distinct banks */
	__shared__ __align__(16) __nv_bfloat16 Qs[QROWS][DMAX], Ks[KT][DMAX + 2], Vs[KT][DMAX];
	const int b = blockIdx.z, h = blockIdx.y, g = h / (p.H / p.HKV);
	const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
	const int t = blockIdx.x * QROWS + warp, Dp = (p.D + 1) & ~1; /* D rounded up to pairs, zero-padded */
	const __nv_bfloat16 zero = __float2bfloat16(0.f);
	const __nv_bfloat16 *q = p.q.p + b * p.q.sb + h * p.q.sh, *k = p.k.p + b * p.k.sb + g * p.k.sh;
	const __nv_bfloat16 *v = p.v.p + b * p.v.sb + g * p.v.sh;

	for (int d = lane; d < Dp; d += WARP)
		Qs[warp][d] = t < p.L && d < p.D ? q[t * p.q.st + d] : zero;
	int last = blockIdx.x * QROWS + QROWS; /* one past the block's last query */
	int keys = p.causal ? min(last, p.L) : p.L;
	float m = -INFINITY, l = 0.f, o[DSLOTS];
	for (int i = 0; i < DSLOTS; i++)
		o[i] = 0.f;

	for (int k0 = 0; k0 < keys; k0 += KT) {
		__syncthreads(); /* the previous tile is no longer read */
		for (int e = threadIdx.x; e < KT * Dp; e += QROWS * WARP) {
			int j = e / Dp, d = e % Dp, key = k0 + j;
			bool in = key < p.L && d < p.D;
			Ks[j][d] = in ? k[key * p.k.st + d] : zero;
			Vs[j][d] = in ? v[key * p.v.st + d] : zero;
		}
		__syncthreads();
		if (t >= p.L)
			continue;
		int key = k0 + lane;
		float s = -INFINITY;
		if (key < p.L && (!p.causal || key <= t)) {
			const __nv_bfloat162 *qp = (const __nv_bfloat162 *)Qs[warp], *kp = (const __nv_bfloat162 *)Ks[lane];
			float dot = 0.f;
			for (int d2 = 0; d2 < Dp / 2; d2++) {
				float2 a = __bfloat1622float2(qp[d2]), c = __bfloat1622float2(kp[d2]);
				dot += a.x * c.x + a.y * c.y;
			}
			s = dot * p.scale;
		}
		float mt = s;
		for (int off = WARP / 2; off > 0; off /= 2)
			mt = fmaxf(mt, __shfl_xor_sync(0xffffffffu, mt, off));
		if (mt == -INFINITY)
			continue; /* no visible key in this tile for this row */
		float mn = fmaxf(m, mt), corr = expf(m - mn); /* m = -inf the first time: corr = 0 */
		float e = s == -INFINITY ? 0.f : expf(s - mn), es = e;
		for (int off = WARP / 2; off > 0; off /= 2)
			es += __shfl_xor_sync(0xffffffffu, es, off);
		l = l * corr + es;
		m = mn;
		for (int i = 0; i < DSLOTS; i++)
			o[i] *= corr;
		int n = min(KT, keys - k0);
		for (int j = 0; j < n; j++) {
			float pj = __shfl_sync(0xffffffffu, e, j);
			for (int i = 0; i < DSLOTS; i++)
				if (lane + WARP * i < p.D)
					o[i] += pj * __bfloat162float(Vs[j][lane + WARP * i]);
		}
	}
	if (t >= p.L)
		return;
	__nv_bfloat16 *out = p.o + b * p.o_sb + h * p.o_sh + t * p.o_st;
	for (int i = 0; i < DSLOTS; i++)
		if (lane + WARP * i < p.D)
			out[lane + WARP * i] = __float2bfloat16(o[i] / l);
}

static int launch_attention(const attn_params &p, int B, cudaStream_t stream)
{
	if (p.D < 1 || p.D > DMAX || p.HKV < 1 || p.H % p.HKV != 0)
		return (int)cudaErrorInvalidValue;
	dim3 grid((p.L + QROWS - 1) / QROWS, p.H, B);
	attention<<<grid, QROWS * WARP, 0, stream>>>(p);
	return (int)cudaGetLastError();
}

extern "C" int kf_launch(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, const __nv_bfloat16 *V, __nv_bfloat16 *O,
			 int B, int H, int HKV, int L, int D, cudaStream_t stream)
{
	long long st = D, sh = (long long)L * D;
	attn_params p = { { Q, H * sh, sh, st }, { K, HKV * sh, sh, st }, { V, HKV * sh, sh, st }, O, H * sh, sh, st,
			  H, HKV, L, D, true, 1.f / sqrtf((float)D) };
	return launch_attention(p, B, stream);
}
