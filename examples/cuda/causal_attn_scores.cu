#include <cuda_bf16.h>

/* Causal attention probabilities with one warp per query row and keys in tiles of 32, one key per lane
 * (the query and the key tile staged in shared memory). Pass one keeps the row's online softmax (running
 * max and sum); pass two recomputes each score and writes exp(s - max) / sum, or 0 above the diagonal. */
#define WARP 32
#define QROWS 16 /* query rows (warps) per block */
#define KT 32    /* keys per tile: one per lane */
#define DMAX 256

__global__ static void __launch_bounds__(QROWS * WARP)
	causal_scores(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, __nv_bfloat16 *P, int L, int D, float scale)
{
	/* +2: an odd number of 32-bit words per key row, so lane j's reads of row j hit distinct banks */
	__shared__ __align__(16) __nv_bfloat16 Qs[QROWS][DMAX], Ks[KT][DMAX + 2];
	const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
	const int t = blockIdx.x * QROWS + warp, Dp = (D + 1) & ~1; /* D rounded up to pairs, zero-padded */
	const __nv_bfloat16 zero = __float2bfloat16(0.f);
	const __nv_bfloat16 *q = Q + (size_t)blockIdx.y * L * D, *k = K + (size_t)blockIdx.y * L * D;
	__nv_bfloat16 *prow = P + ((size_t)blockIdx.y * L + t) * L;
	for (int d = lane; d < Dp; d += WARP)
		Qs[warp][d] = t < L && d < D ? q[(size_t)t * D + d] : zero;
	const int keys = min(blockIdx.x * QROWS + QROWS, L); /* keys any query of the block sees */
	float m = -INFINITY, l = 0.f;

	for (int pass = 0; pass < 2; pass++)
		for (int k0 = 0; k0 < (pass ? L : keys); k0 += KT) {
			int key = k0 + lane;
			if (k0 >= keys) { /* pass two, past every query of the block: zeros only */
				if (t < L && key < L)
					prow[key] = zero;
				continue;
			}
			__syncthreads(); /* the previous tile is no longer read */
			for (int e = threadIdx.x; e < KT * Dp; e += QROWS * WARP) {
				int j = e / Dp, d = e % Dp;
				Ks[j][d] = k0 + j < L && d < D ? k[(size_t)(k0 + j) * D + d] : zero;
			}
			__syncthreads();
			if (t >= L)
				continue;
			float s = -INFINITY;
			if (key <= t) { /* also key < L, as t < L */
				const __nv_bfloat162 *qp = (const __nv_bfloat162 *)Qs[warp];
				const __nv_bfloat162 *kp = (const __nv_bfloat162 *)Ks[lane];
				float dot = 0.f;
				for (int d2 = 0; d2 < Dp / 2; d2++) {
					float2 a = __bfloat1622float2(qp[d2]), c = __bfloat1622float2(kp[d2]);
					dot += a.x * c.x + a.y * c.y;
				}
				s = dot * scale;
			}
			if (pass == 1) {
				if (key < L)
					prow[key] = __float2bfloat16(s == -INFINITY ? 0.f : expf(s - m) / l);
				continue;
			}
			float mt = s;
			for (int off = WARP / 2; off > 0; off /= 2)
				mt = fmaxf(mt, __shfl_xor_sync(0xffffffffu, mt, off));
			if (mt == -INFINITY)
				continue; /* every key of this tile lies above the diagonal */
			float mn = fmaxf(m, mt), e = s == -INFINITY ? 0.f : expf(s - mn);
			for (int off = WARP / 2; off > 0; off /= 2)
				e += __shfl_xor_sync(0xffffffffu, e, off);
			l = l * expf(m - mn) + e; /* m = -inf the first time: the old sum is 0 */
			m = mn;
		}
}

extern "C" int kf_launch(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, __nv_bfloat16 *P, int BH, int L, int D,
			 cudaStream_t stream)
{
	if (D < 1 || D > DMAX)
		return (int)cudaErrorInvalidValue;
	dim3 grid((L + QROWS - 1) / QROWS, BH);
	causal_scores<<<grid, QROWS * WARP, 0, stream>>>(Q, K, P, L, D, 1.f / sqrtf((float)D));
	return cudaGetLastError() != cudaSuccess;
}
