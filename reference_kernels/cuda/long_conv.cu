/* Reference kernel for long_conv: y[b, c, t] = sum_{s<=t} k[c, s] x[b, c, t - s]; x, y bf16 [B, C, L], k f32 [C, L].
 *
 * Tensor-core path (L <= TC_MAX_L): cut t and s into 64-blocks, so output block i is sum_{d<=i} T_d x_{i-d} with
 * T_d the 64x64 Toeplitz block T_d[p][r] = k[64d + p - r] (zero outside [0, L)). With the output blocks of a sequence
 * as rows, step d is one GEMM: rows i (16 per mma tile) times T_d^T, A = x blocks i - d straight from the sequence in
 * shared memory (128-byte rows, 16-byte chunks swizzled), B = T_d built in registers. Along a Toeplitz block only
 * p - r matters, so an mma tile's B fragments take 15 distinct values per lane, read from k reversed in shared memory
 * (two copies one element apart, so every pair is one aligned 32-bit load). k is split exactly into three bf16 terms
 * (hi + mid + lo, 24 bits), each its own product, and the tensor cores' partial sums go into fp32 registers every
 * few steps, so the result carries fp32's precision; x is bf16 already. A warp owns one sequence's chunk of 32 output
 * blocks (2 mma row tiles) and skips the tiles whose rows all precede d; a block holds 4 warps of one channel,
 * sharing its k.
 *
 * Direct path (longer sequences): one block per (channel, 512 outputs), longest prefixes first; taps and the matching
 * window of x go through shared memory 512 at a time (the window padded one word in 8: conflict-free), each thread
 * slides a 15-value register window over x for its 8 outputs, one shared load per 8 FMAs. */
#include "tile/common.cuh"
#include "tile/mma.cuh"
#include "tile/tma.cuh"
#include "tile/vec.cuh"

namespace {

typedef __nv_bfloat16 bf16;

/* ---- tensor-core path: shapes named once ---- */
constexpr int TB = 64;                         /* block length: the Toeplitz blocks are TB x TB */
constexpr int TC_WARPS = 4, TC_THREADS = TC_WARPS * kf::WARP;
constexpr int ROW_TILES = 2;                   /* mma row tiles (16 output blocks each) per warp */
constexpr int FLUSH_STEPS = 4;                 /* steps summed on the tensor cores before an fp32 add */
constexpr int CHUNK = ROW_TILES * kf::TILE;    /* output blocks per warp item */
constexpr int PAD_ROWS = kf::TILE;             /* zero x blocks before a sequence (rows i - d >= -15) and after it
                                                  (a row tile may run 15 blocks past the last) */
constexpr int SPLITS = 3;                      /* k = hi + mid + lo, each bf16 */
constexpr int FRAGS = 15;                      /* distinct B registers of a Toeplitz block per lane */
constexpr int TC_MAX_L = 8192;                 /* beyond this, k and x no longer fit in shared memory */
static_assert(TB * sizeof(bf16) == kf::SWIZZLE_BYTES, "an x block is one 128-byte swizzled row");

struct tc_layout {
    int nb, words;                             /* blocks of L; 32-bit words per reversed-k copy */
    size_t x_bytes, k_bytes;
};

__host__ __device__ inline tc_layout tc_layout_for(int L) {
    tc_layout t;
    t.nb = (int)kf::ceil_div(L, TB);
    t.words = TB / 2 * t.nb + TB / 2 + 2;
    t.x_bytes = (size_t)TC_WARPS * (2 * PAD_ROWS + t.nb) * TB * sizeof(bf16);
    t.k_bytes = (size_t)SPLITS * 2 * t.words * sizeof(uint32_t);
    return t;
}

__device__ __forceinline__ uint32_t pack(bf16 lo, bf16 hi) {
    return (uint32_t)__bfloat16_as_ushort(lo) | (uint32_t)__bfloat16_as_ushort(hi) << 16;
}

/* Element offset of x block row `row` (of a warp's region), 16-byte chunk `chunk`: the 128-byte swizzle, so
 * ldmatrix is conflict-free. */
__device__ __forceinline__ int x_offset(int row, int chunk) { return kf::swizzle128(row, chunk) / (int)sizeof(bf16); }

/* The three bf16 terms of v: v = hi + mid + lo to 24 bits (each residual is exact in fp32). */
__device__ __forceinline__ void split3(float v, bf16 (&out)[SPLITS]) {
    out[0] = __float2bfloat16_rn(v);
    const float r1 = v - __bfloat162float(out[0]);
    out[1] = __float2bfloat16_rn(r1);
    out[2] = __float2bfloat16_rn(r1 - __bfloat162float(out[1]));
}

__global__ void __launch_bounds__(TC_THREADS)
long_conv_tc(const bf16 *__restrict__ x, const float *__restrict__ k, bf16 *__restrict__ y, int B, int C, int L,
             bool vec_x, bool vec_y) {
    extern __shared__ __align__(16) unsigned char smem[];
    const tc_layout lay = tc_layout_for(L);
    const int nb = lay.nb, c = blockIdx.y, warp = threadIdx.x / kf::WARP, lane = threadIdx.x % kf::WARP;
    const int chunks = (int)kf::ceil_div(nb, CHUNK), item = blockIdx.x * TC_WARPS + warp;
    const bool active = item < B * chunks;
    /* items sequence-major: a block mixes long and short chunks, so every block takes about as long */
    const int b = active ? item / chunks : 0, ch = active ? item % chunks : 0;
    bf16 *sx = reinterpret_cast<bf16 *>(smem) + (size_t)warp * (2 * PAD_ROWS + nb) * TB;
    uint32_t *kw = reinterpret_cast<uint32_t *>(smem + lay.x_bytes);   /* [split][copy][word] */

    /* k reversed about P = TB * nb: element m is kv(P - m); copy 0 packs (m, m + 1) = (2q, 2q + 1) into word q,
     * copy 1 packs (2q - 1, 2q), so the pair starting at any m is one word of one copy. */
    const float *kc = k + (long long)c * L;
    const int P = TB * nb;
    for (int q = threadIdx.x; q < lay.words; q += TC_THREADS) {
        bf16 e[3][SPLITS];
#pragma unroll
        for (int o = 0; o < 3; ++o) {                  /* elements m = 2q - 1, 2q, 2q + 1 */
            const int j = P - (2 * q - 1 + o);
            split3(j >= 0 && j < L ? kc[j] : 0.0f, e[o]);
        }
#pragma unroll
        for (int s = 0; s < SPLITS; ++s) {
            kw[(2 * s) * lay.words + q] = pack(e[1][s], e[2][s]);
            kw[(2 * s + 1) * lay.words + q] = pack(e[0][s], e[1][s]);
        }
    }
    /* this warp's sequence between PAD_ROWS zero blocks on either side, zeros past L */
    if (active) {
        const bf16 *xs = x + ((long long)b * C + c) * L;
        for (int v = lane; v < (2 * PAD_ROWS + nb) * kf::SWIZZLE_CHUNKS; v += kf::WARP) {
            const int row = v / kf::SWIZZLE_CHUNKS, chunk = v % kf::SWIZZLE_CHUNKS;
            const int t0 = (row - PAD_ROWS) * TB + chunk * kf::BF16_PER_VEC;
            uint4 val = make_uint4(0, 0, 0, 0);
            if (row >= PAD_ROWS && vec_x && t0 + 8 <= L) {
                val = *reinterpret_cast<const uint4 *>(xs + t0);
            } else if (row >= PAD_ROWS) {
                __align__(16) bf16 e[8];
#pragma unroll
                for (int i = 0; i < 8; ++i) e[i] = t0 + i < L ? xs[t0 + i] : __float2bfloat16_rn(0.0f);
                val = *reinterpret_cast<const uint4 *>(e);
            }
            *reinterpret_cast<uint4 *>(sx + x_offset(row, chunk)) = val;
        }
    }
    __syncthreads();
    if (!active) return;

    const int i0 = ch * CHUNK, dmax = min(i0 + CHUNK, nb) - 1;
    const int g = lane / 4, t = lane % 4;
    /* lane's B register v (0..FRAGS-1) at step d holds the pair at m = P - (TB d + g - 2t + 8 (v - 7)) */
    const int par = (P - g + 2 * t) & 1;
    const uint32_t *kp[SPLITS];
#pragma unroll
    for (int s = 0; s < SPLITS; ++s) kp[s] = kw + (2 * s + par) * lay.words;
    /* The tensor cores round their fp32 sums toward zero, so a long chain of them drifts with the size of the sum;
     * they sum FLUSH_STEPS steps at a time (acc) and ordinary fp32 adds carry the total (sum). */
    kf::rt_acc acc[ROW_TILES][TB / kf::TILE], sum[ROW_TILES][TB / kf::TILE];
#pragma unroll
    for (int mt = 0; mt < ROW_TILES; ++mt)
#pragma unroll
        for (int nt = 0; nt < TB / kf::TILE; ++nt) {
            kf::zero(acc[mt][nt]);
            kf::zero(sum[mt][nt]);
        }

    for (int d = 0; d <= dmax; ++d) {
        uint32_t f[SPLITS][FRAGS];
        const int m0 = P - (TB * d + g - 2 * t) + 8 * 7;     /* m at v = 0 */
        const int w0 = (m0 + par) / 2;
#pragma unroll
        for (int s = 0; s < SPLITS; ++s)
#pragma unroll
            for (int v = 0; v < FRAGS; ++v) f[s][v] = kp[s][w0 - 4 * v];
#pragma unroll
        for (int mt = 0; mt < ROW_TILES; ++mt) {
            const int r0 = i0 + kf::TILE * mt;               /* first output block of the tile */
            if (r0 > dmax || r0 + kf::TILE - 1 < d) continue;
#pragma unroll
            for (int kt = 0; kt < TB / kf::TILE; ++kt) {
                kf::rt_a a;
                const int row = PAD_ROWS + r0 - d + lane % kf::TILE, chunk = 2 * kt + lane / kf::TILE;
                kf::ldsm_x4(a.r, kf::smem_addr(sx + x_offset(row, chunk)));
#pragma unroll
                for (int nt = 0; nt < TB / 8; ++nt) {
                    /* B rows r = 16 kt + 2t (+8), columns p = 8 nt + g: v = nt - 2 kt + 7 (the +8 rows: v - 1) */
                    const int v = nt - 2 * kt + 7;
#pragma unroll
                    for (int s = 0; s < SPLITS; ++s) {
                        kf::rt_b bt;
                        bt.r[2 * (nt % 2)] = f[s][v];
                        bt.r[2 * (nt % 2) + 1] = f[s][v - 1];
                        kf::mma_ab_half(acc[mt][nt / 2], a, bt, nt % 2);
                    }
                }
            }
        }
        if (d % FLUSH_STEPS == FLUSH_STEPS - 1 || d == dmax) {
#pragma unroll
            for (int mt = 0; mt < ROW_TILES; ++mt)
#pragma unroll
                for (int nt = 0; nt < TB / kf::TILE; ++nt)
#pragma unroll
                    for (int e = 0; e < 8; ++e) {
                        sum[mt][nt].d[e] += acc[mt][nt].d[e];
                        acc[mt][nt].d[e] = 0.0f;
                    }
        }
    }

    bf16 *ys = y + ((long long)b * C + c) * L;
#pragma unroll
    for (int mt = 0; mt < ROW_TILES; ++mt)
#pragma unroll
        for (int nt = 0; nt < TB / kf::TILE; ++nt)
#pragma unroll
            for (int e = 0; e < 8; e += 2) {
                const int blk = i0 + kf::TILE * mt + g + 8 * kf::acc_row_half(e);
                const long long pos = (long long)blk * TB + kf::TILE * nt + kf::acc_col(e);
                const float v0 = sum[mt][nt].d[e], v1 = sum[mt][nt].d[e + 1];
                if (vec_y && pos + 1 < L) {
                    *reinterpret_cast<__nv_bfloat162 *>(ys + pos) = __floats2bfloat162_rn(v0, v1);
                } else {
                    if (pos < L) ys[pos] = __float2bfloat16_rn(v0);
                    if (pos + 1 < L) ys[pos + 1] = __float2bfloat16_rn(v1);
                }
            }
}

/* ---- direct path ---- */
constexpr int OUT_PER_THREAD = 8;
constexpr int THREADS = 64;
constexpr int T_OUT = THREADS * OUT_PER_THREAD;    /* outputs per block */
constexpr int S_TILE = 512;                        /* taps per shared-memory tile */
constexpr int WINDOW = T_OUT + S_TILE - 1;         /* x values one tap tile touches */
constexpr int PAD_SHIFT = 3;                       /* one padding word after every 8 */
constexpr int STEP = OUT_PER_THREAD;               /* taps per register-window step */
static_assert(S_TILE % STEP == 0, "whole steps per tap tile");

__device__ __forceinline__ int padded(int i) { return i + (i >> PAD_SHIFT); }

__global__ void __launch_bounds__(THREADS) long_conv_direct(const bf16 *x, const float *k, bf16 *y, int B, int C, int L) {
    __shared__ float sk[S_TILE];
    __shared__ float sx[WINDOW + (WINDOW >> PAD_SHIFT) + 1];
    const int c = blockIdx.y, n_t = (int)kf::ceil_div(L, T_OUT);
    const int t0 = (n_t - 1 - (int)blockIdx.x) * T_OUT;
    const int mine = OUT_PER_THREAD * threadIdx.x;    /* first output of this thread, relative to t0 */
    const float *kc = k + (long long)c * L;
    for (int b = 0; b < B; ++b) {
        const bf16 *xr = x + ((long long)b * C + c) * L;
        float acc[OUT_PER_THREAD] = {};
        for (int s0 = 0; s0 < min(L, t0 + T_OUT); s0 += S_TILE) {
            __syncthreads();
            for (int i = threadIdx.x; i < S_TILE; i += THREADS) sk[i] = s0 + i < L ? kc[s0 + i] : 0.0f;
            const int p0 = t0 - s0 - (S_TILE - 1);     /* x position of window entry 0 */
            for (int i = threadIdx.x; i < WINDOW; i += THREADS) {
                const int p = p0 + i;
                sx[padded(i)] = p >= 0 && p < L ? __bfloat162float(xr[p]) : 0.0f;
            }
            __syncthreads();
            /* output mine + o at tap ss reads window entry mine + o + S_TILE - 1 - ss; for the taps
             * ss = q, ..., q + 7 that is xw[o - j + 7] with xw[m] = entry mine + S_TILE - 8 - q + m */
            float xw[2 * STEP - 1];
#pragma unroll
            for (int m = STEP; m < 2 * STEP - 1; ++m) xw[m] = sx[padded(mine + S_TILE - STEP + m)];
            for (int q = 0; q < S_TILE; q += STEP) {
#pragma unroll
                for (int m = 0; m < STEP; ++m) xw[m] = sx[padded(mine + S_TILE - STEP - q + m)];
#pragma unroll
                for (int j = 0; j < STEP; ++j) {
                    const float kv = sk[q + j];
#pragma unroll
                    for (int o = 0; o < OUT_PER_THREAD; ++o) acc[o] += kv * xw[o - j + STEP - 1];
                }
#pragma unroll
                for (int m = STEP; m < 2 * STEP - 1; ++m) xw[m] = xw[m - STEP];
            }
        }
        bf16 *yr = y + ((long long)b * C + c) * L;
#pragma unroll
        for (int o = 0; o < OUT_PER_THREAD; ++o)
            if (t0 + mine + o < L) yr[t0 + mine + o] = __float2bfloat16_rn(acc[o]);
    }
}

} /* namespace */

extern "C" int kf_launch(const bf16 *x, const float *k, bf16 *y, int B, int C, int L, cudaStream_t stream) {
    if (kf::bad_shape(B, C, L)) return (int)cudaErrorInvalidValue;
    if (B == 0 || C == 0 || L == 0) return 0;
    if (L <= TC_MAX_L) {
        const tc_layout lay = tc_layout_for(L);
        const size_t bytes = lay.x_bytes + lay.k_bytes;
        const int items = B * (int)kf::ceil_div(lay.nb, CHUNK);
        if (cudaFuncSetAttribute(long_conv_tc, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes) == cudaSuccess) {
            const dim3 grid((unsigned)kf::ceil_div(items, TC_WARPS), (unsigned)C);
            long_conv_tc<<<grid, TC_THREADS, bytes, stream>>>(x, k, y, B, C, L, L % 8 == 0 && kf::is_aligned(x, 16),
                                                            L % 2 == 0 && kf::is_aligned(y, 4));
            return kf::launch_status();
        }
        (void)cudaGetLastError();
    }
    const dim3 grid((unsigned)kf::ceil_div(L, T_OUT), (unsigned)C);
    long_conv_direct<<<grid, THREADS, 0, stream>>>(x, k, y, B, C, L);
    return kf::launch_status();
}
