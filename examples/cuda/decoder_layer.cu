/* decoder_layer: four WMMA GEMM launches and one attention launch. attn is kept in act's buffer and hid
 * in y's (F >= H * D), so the layer needs no memory of its own: qkv = rms(x) Wqkv; attn from the packed qkv
 * rows; y = hid = x + attn Wo; act = silu(rms(hid) W1[:, :F]) * (rms(hid) W1[:, F:]); y = hid + act W2. */
#include <cuda_bf16.h>
#include <mma.h>

/* A plain WMMA GEMM: a block computes a BM x BN tile of C from BK-deep slices of A and B staged in
 * shared memory (bounds-checked element loads, zeros past the edges, so any shape works); 8 warps in
 * a 4 x 2 grid each own 2 x 2 fragments of 16 x 16 with fp32 accumulators. Each fragment goes through
 * a per-warp scratch tile to the epilogue, which sees (batch, m, n, accumulator[s]). Options: B stored
 * [K, N] or [N, K]; a second B sharing A (two accumulators); A's columns scaled by a gain vector as
 * they are staged; each row's 1 / rms computed by the block before the main loop. */
#define BM 128
#define BN 64
#define BK 32
#define WARP 32
#define WARPS_M 4
#define WARPS_N 2
#define THREADS (WARPS_M * WARPS_N * WARP)
#define FRAG 16
#define FM (BM / WARPS_M / FRAG)
#define FN (BN / WARPS_N / FRAG)
#define PAD 8 /* keeps rows 16-byte multiples and spreads the banks */

using namespace nvcuda;

struct gemm_params {
	const __nv_bfloat16 *A, *B, *B2; /* B2: the second B of a dual GEMM, else unused */
	long long lda, ldb, batch_a, batch_b; /* leading dimensions and per-batch strides, in elements */
	const __nv_bfloat16 *a_gain;       /* NULL, or A[m, k] is multiplied by a_gain[k] */
	bool rms;                           /* the epilogue gets 1 / sqrt(mean_k A[m, k]^2 + eps) */
	float eps;
	int M, N, K;
};

template <bool B_NK, bool DUAL, class Epi>
__global__ static void __launch_bounds__(THREADS) gemm(gemm_params p, Epi epi)
{
	__shared__ __align__(128) __nv_bfloat16 As[BM][BK + PAD];
	__shared__ __align__(128) __nv_bfloat16 Bs[DUAL ? 2 : 1][B_NK ? BN : BK][B_NK ? BK + PAD : BN + PAD];
	__shared__ __align__(128) float scratch[WARPS_M * WARPS_N][DUAL ? 2 : 1][FRAG * FRAG];
	__shared__ float rstd[BM];
	const int b = blockIdx.z, m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
	const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
	const int wm = warp / WARPS_N, wn = warp % WARPS_N;
	const __nv_bfloat16 *A = p.A + b * p.batch_a;

	if (p.rms) {
		for (int r = warp; r < BM; r += WARPS_M * WARPS_N) {
			float ss = 0.f;
			if (m0 + r < p.M)
				for (int k = lane; k < p.K; k += WARP) {
					float v = __bfloat162float(A[(size_t)(m0 + r) * p.lda + k]);
					ss += v * v;
				}
			for (int off = WARP / 2; off > 0; off /= 2)
				ss += __shfl_xor_sync(0xffffffffu, ss, off);
			if (lane == 0)
				rstd[r] = rsqrtf(ss / p.K + p.eps);
		}
	}

	wmma::fragment<wmma::accumulator, FRAG, FRAG, FRAG, float> acc[DUAL ? 2 : 1][FM][FN];
	for (int d = 0; d < (DUAL ? 2 : 1); d++)
		for (int i = 0; i < FM; i++)
			for (int j = 0; j < FN; j++)
				wmma::fill_fragment(acc[d][i][j], 0.f);

	const __nv_bfloat16 zero = __float2bfloat16(0.f);
	for (int k0 = 0; k0 < p.K; k0 += BK) {
		for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
			int r = e / BK, k = e % BK, m = m0 + r, kk = k0 + k;
			__nv_bfloat16 v = zero;
			if (m < p.M && kk < p.K) {
				v = A[(size_t)m * p.lda + kk];
				if (p.a_gain)
					v = __float2bfloat16(__bfloat162float(v) * __bfloat162float(p.a_gain[kk]));
			}
			As[r][k] = v;
		}
		for (int d = 0; d < (DUAL ? 2 : 1); d++) {
			const __nv_bfloat16 *B = (d ? p.B2 : p.B) + b * p.batch_b;
			for (int e = threadIdx.x; e < BN * BK; e += THREADS) {
				if (B_NK) { /* Bs[d][n][k] = B[n, k], read along k */
					int c = e / BK, k = e % BK, n = n0 + c, kk = k0 + k;
					Bs[d][c][k] = n < p.N && kk < p.K ? B[(size_t)n * p.ldb + kk] : zero;
				} else { /* Bs[d][k][n] = B[k, n], read along n */
					int k = e / BN, c = e % BN, n = n0 + c, kk = k0 + k;
					Bs[d][k][c] = n < p.N && kk < p.K ? B[(size_t)kk * p.ldb + n] : zero;
				}
			}
		}
		__syncthreads();
		for (int ks = 0; ks < BK; ks += FRAG) {
			wmma::fragment<wmma::matrix_a, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major> fa[FM];
			for (int i = 0; i < FM; i++)
				wmma::load_matrix_sync(fa[i], &As[(wm * FM + i) * FRAG][ks], BK + PAD);
			for (int d = 0; d < (DUAL ? 2 : 1); d++)
				for (int j = 0; j < FN; j++) {
					int c = (wn * FN + j) * FRAG;
					if (B_NK) {
						wmma::fragment<wmma::matrix_b, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::col_major> fb;
						wmma::load_matrix_sync(fb, &Bs[d][c][ks], BK + PAD);
						for (int i = 0; i < FM; i++)
							wmma::mma_sync(acc[d][i][j], fa[i], fb, acc[d][i][j]);
					} else {
						wmma::fragment<wmma::matrix_b, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major> fb;
						wmma::load_matrix_sync(fb, &Bs[d][ks][c], BN + PAD);
						for (int i = 0; i < FM; i++)
							wmma::mma_sync(acc[d][i][j], fa[i], fb, acc[d][i][j]);
					}
				}
		}
		__syncthreads();
	}

	for (int i = 0; i < FM; i++)
		for (int j = 0; j < FN; j++) {
			for (int d = 0; d < (DUAL ? 2 : 1); d++)
				wmma::store_matrix_sync(scratch[warp][d], acc[d][i][j], FRAG, wmma::mem_row_major);
			__syncwarp();
			for (int e = lane; e < FRAG * FRAG; e += WARP) {
				int r = (wm * FM + i) * FRAG + e / FRAG, m = m0 + r;
				int n = n0 + (wn * FN + j) * FRAG + e % FRAG;
				if (m < p.M && n < p.N)
					epi(b, m, n, scratch[warp][0][e], scratch[warp][DUAL ? 1 : 0][e], p.rms ? rstd[r] : 1.f);
			}
			__syncwarp();
		}
}

/* Launches gemm over every tile of C (and every batch entry); returns 0 or the launch error. */
template <bool B_NK, bool DUAL, class Epi>
static int launch_gemm(const gemm_params &p, int batch, Epi epi, cudaStream_t stream)
{
	dim3 grid((p.N + BN - 1) / BN, (p.M + BM - 1) / BM, batch);
	gemm<B_NK, DUAL><<<grid, THREADS, 0, stream>>>(p, epi);
	return (int)cudaGetLastError();
}

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

#define EPS 1e-6f

__device__ static float silu(float z)
{
	return z / (1.f + expf(-z));
}

struct scale_rows {
	__nv_bfloat16 *out;
	int N;
	__device__ void operator()(int, int m, int n, float acc, float, float rstd) const
	{
		out[(size_t)m * N + n] = __float2bfloat16(acc * rstd);
	}
};

struct swiglu_rows {
	__nv_bfloat16 *act;
	int F;
	__device__ void operator()(int, int m, int n, float gate, float up, float rstd) const
	{
		act[(size_t)m * F + n] = __float2bfloat16(silu(gate * rstd) * (up * rstd));
	}
};

/* y = residual + acc; residual may be y itself (each element is read, then written, by one thread). */
struct add_residual {
	const __nv_bfloat16 *residual;
	__nv_bfloat16 *y;
	int N;
	__device__ void operator()(int, int m, int n, float acc, float, float) const
	{
		size_t i = (size_t)m * N + n;
		y[i] = __float2bfloat16(__bfloat162float(residual[i]) + acc);
	}
};

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *Wqkv, const __nv_bfloat16 *Wo,
			 const __nv_bfloat16 *W1, const __nv_bfloat16 *W2, __nv_bfloat16 *qkv, __nv_bfloat16 *act,
			 __nv_bfloat16 *y, int B, int L, int H, int HKV, int D, int F, cudaStream_t stream)
{
	const int M = B * L, Dm = H * D, Nqkv = (H + 2 * HKV) * D;
	if (HKV < 1 || H % HKV != 0 || F < Dm)
		return (int)cudaErrorInvalidValue;
	__nv_bfloat16 *attn = act, *hid = y;
	int rc;
	gemm_params proj = { x, Wqkv, NULL, Dm, Nqkv, 0, 0, NULL, true, EPS, M, Nqkv, Dm };
	if ((rc = launch_gemm<false, false>(proj, 1, scale_rows{ qkv, Nqkv }, stream)))
		return rc;
	const long long seq = (long long)L * Nqkv;
	attn_params a = { { qkv, seq, D, Nqkv }, { qkv + (size_t)H * D, seq, D, Nqkv },
			  { qkv + (size_t)(H + HKV) * D, seq, D, Nqkv }, attn, (long long)L * Dm, D, Dm,
			  H, HKV, L, D, true, 1.f / sqrtf((float)D) };
	if ((rc = launch_attention(a, B, stream)))
		return rc;
	gemm_params out = { attn, Wo, NULL, Dm, Dm, 0, 0, NULL, false, 0.f, M, Dm, Dm };
	if ((rc = launch_gemm<false, false>(out, 1, add_residual{ x, hid, Dm }, stream)))
		return rc;
	gemm_params up = { hid, W1, W1 + F, Dm, 2LL * F, 0, 0, NULL, true, EPS, M, F, Dm };
	if ((rc = launch_gemm<false, true>(up, 1, swiglu_rows{ act, F }, stream)))
		return rc;
	gemm_params down = { act, W2, NULL, F, Dm, 0, 0, NULL, false, 0.f, M, Dm, F };
	return launch_gemm<false, false>(down, 1, add_residual{ hid, y, Dm }, stream);
}
