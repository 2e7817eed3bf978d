/* matmul_bf16_tall_skinny: C = A B for M much larger than N (many row tiles, few column tiles). */
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

struct store_c {
	__nv_bfloat16 *C;
	int N;
	__device__ void operator()(int, int m, int n, float acc, float, float) const
	{
		C[(size_t)m * N + n] = __float2bfloat16(acc);
	}
};

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	gemm_params p = { A, B, NULL, K, N, 0, 0, NULL, false, 0.f, M, N, K };
	return launch_gemm<false, false>(p, 1, store_c{ C, N }, stream);
}
