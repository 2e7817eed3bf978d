/* Reference kernel for causal_attn_scores: P[bh] = softmax(Q[bh] K[bh]^T / sqrt(D)) over keys j <= i, 0 above the
 * diagonal; Q, K bf16 [BH, L, D], P bf16 [BH, L, L]. One block per 64 queries on mma.sync: pass 1 over the key tiles
 * up to the diagonal for each row's max and sum, pass 2 recomputes S and writes P through a shared staging tile as
 * 16-byte rows, then zeros past the diagonal. Bound by writing P and by the two exps per element. */
#include "tile/mma_frag.cuh"
#include "tile/vec.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int BM = 64, BN = 64;                          /* queries per block, keys per tile */
constexpr int THREADS = 128;                             /* four warps of 16 queries */
constexpr int PAD = 8;
constexpr int KEY_TILES = BN / kf::TILE;
constexpr int MAX_D = 256;
constexpr float LOG2E = 1.4426950408889634f;

template <int DP> struct smem {
    static constexpr int LD = DP + PAD, P_LD = BN + PAD;
    static constexpr int BYTES = (BM + BN) * LD * 2 + BM * P_LD * 2;
};

/* rows x DP tile of src ([L][D] of one head) from row l0; zeros outside L and D. 16-byte loads when vec. */
template <int DP>
__device__ void load_tile(bf16 *dst, const bf16 *src, int l0, int rows, int L, int D, bool vec) {
    constexpr int LD = smem<DP>::LD;
    if (vec) {
        constexpr int CHUNKS = DP / kf::BF16_PER_VEC;
        for (int i = threadIdx.x; i < rows * CHUNKS; i += THREADS) {
            const int r = i / CHUNKS, c = (i % CHUNKS) * kf::BF16_PER_VEC;
            uint4 v = make_uint4(0, 0, 0, 0);
            if (l0 + r < L && c < D) v = __ldg(reinterpret_cast<const uint4 *>(src + (long long)(l0 + r) * D + c));
            *reinterpret_cast<uint4 *>(dst + r * LD + c) = v;
        }
    } else {
        for (int i = threadIdx.x; i < rows * DP; i += THREADS) {
            const int r = i / DP, c = i % DP;
            dst[r * LD + c] = l0 + r < L && c < D ? src[(long long)(l0 + r) * D + c] : __float2bfloat16(0.0f);
        }
    }
}

/* This warp's 16 x 64 scores of key tile key0, scaled to base-2 exponents, masked to -inf. */
template <int DP>
__device__ __forceinline__ void scores(kf::rt_acc (&S)[KEY_TILES], const bf16 *sq, const bf16 *sk, int row_base,
                                       int key0, int L, float scale_log2) {
    constexpr int LD = smem<DP>::LD;
    const int warp = threadIdx.x / kf::WARP;
#pragma unroll
    for (int t = 0; t < KEY_TILES; ++t) kf::zero(S[t]);
#pragma unroll
    for (int kd = 0; kd < DP / kf::TILE; ++kd) {
        kf::rt_a qa;
        kf::load(qa, sq + warp * kf::TILE * LD + kd * kf::TILE, LD);
#pragma unroll
        for (int t = 0; t < KEY_TILES; ++t) {
            kf::rt_b kb;
            kf::load_nk(kb, sk + t * kf::TILE * LD + kd * kf::TILE, LD);
            kf::mma_ab(S[t], qa, kb);
        }
    }
#pragma unroll
    for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int key = key0 + t * kf::TILE + kf::acc_col(i), row = row_base + 8 * kf::acc_row_half(i);
            S[t].d[i] = key > row || key >= L ? -INFINITY : S[t].d[i] * scale_log2;
        }
}

template <int DP>
__global__ void __launch_bounds__(THREADS) causal_scores(const bf16 *Q, const bf16 *K, bf16 *P, int L, int D, bool vec) {
    constexpr int P_LD = smem<DP>::P_LD;
    extern __shared__ __align__(16) uint8_t raw[];
    bf16 *sq = reinterpret_cast<bf16 *>(raw), *sk = sq + BM * smem<DP>::LD, *sp = sk + BN * smem<DP>::LD;
    const int n_qt = (int)kf::ceil_div(L, BM), qt = n_qt - 1 - (int)blockIdx.x;   /* longest rows first */
    const int q0 = qt * BM, warp = threadIdx.x / kf::WARP, lane = threadIdx.x % kf::WARP;
    const int row_base = q0 + warp * kf::TILE + lane / 4;
    const long long head = (long long)blockIdx.y * L;
    const bf16 *q = Q + head * D, *k = K + head * D;
    bf16 *p = P + head * L;
    const float scale_log2 = LOG2E / sqrtf((float)D);

    load_tile<DP>(sq, q, q0, BM, L, D, vec);
    kf::rt_acc S[KEY_TILES];
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    for (int key0 = 0; key0 <= q0; key0 += BN) {          /* pass 1: running max and sum per row */
        __syncthreads();
        load_tile<DP>(sk, k, key0, BN, L, D, vec);
        __syncthreads();
        scores<DP>(S, sq, sk, row_base, key0, L, scale_log2);
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float mx = m[r];
#pragma unroll
            for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
                for (int i = 0; i < 8; ++i)
                    if (kf::acc_row_half(i) == r) mx = fmaxf(mx, S[t].d[i]);
            mx = kf::quad_reduce<kf::op_max>(mx);         /* finite: key 0 <= every row is in the first tile */
            l[r] *= exp2f(m[r] - mx);
            m[r] = mx;
#pragma unroll
            for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
                for (int i = 0; i < 8; ++i)
                    if (kf::acc_row_half(i) == r) l[r] += exp2f(S[t].d[i] - mx);
        }
    }
    float inv[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) inv[r] = 1.0f / kf::quad_reduce<kf::op_sum>(l[r]);

    bf16 *warp_p = sp + warp * kf::TILE * P_LD;
    for (int key0 = 0; key0 <= q0; key0 += BN) {          /* pass 2: the probabilities */
        __syncthreads();
        load_tile<DP>(sk, k, key0, BN, L, D, vec);
        __syncthreads();
        scores<DP>(S, sq, sk, row_base, key0, L, scale_log2);
#pragma unroll
        for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
            for (int i = 0; i < 8; i += 2) {
                const int r = kf::acc_row_half(i);
                *reinterpret_cast<__nv_bfloat162 *>(warp_p + (lane / 4 + 8 * r) * P_LD + t * kf::TILE + kf::acc_col(i)) =
                    __floats2bfloat162_rn(exp2f(S[t].d[i] - m[r]) * inv[r], exp2f(S[t].d[i + 1] - m[r]) * inv[r]);
            }
        __syncwarp();
        if (vec) {
            constexpr int CHUNKS = BN / kf::BF16_PER_VEC;
            for (int i = lane; i < kf::TILE * CHUNKS; i += kf::WARP) {
                const int r = i / CHUNKS, c = (i % CHUNKS) * kf::BF16_PER_VEC, row = q0 + warp * kf::TILE + r;
                if (row < L && key0 + c < L)
                    *reinterpret_cast<uint4 *>(p + (long long)row * L + key0 + c) =
                        *reinterpret_cast<const uint4 *>(warp_p + r * P_LD + c);
            }
        } else {
            for (int i = lane; i < kf::TILE * BN; i += kf::WARP) {
                const int r = i / BN, c = i % BN, row = q0 + warp * kf::TILE + r;
                if (row < L && key0 + c < L) p[(long long)row * L + key0 + c] = warp_p[r * P_LD + c];
            }
        }
        __syncwarp();
    }

    const int zero_from = q0 + BM;                       /* keys past the diagonal tile: probability 0 */
    const int rows = min(BM, L - q0), width = L - zero_from;
    if (width <= 0) return;
    if (vec) {
        const int chunks = width / kf::BF16_PER_VEC;
        for (int i = threadIdx.x; i < rows * chunks; i += THREADS)
            *reinterpret_cast<uint4 *>(p + (long long)(q0 + i / chunks) * L + zero_from +
                                       (i % chunks) * kf::BF16_PER_VEC) = make_uint4(0, 0, 0, 0);
    } else {
        for (int i = threadIdx.x; i < rows * width; i += THREADS)
            p[(long long)(q0 + i / width) * L + zero_from + i % width] = __float2bfloat16(0.0f);
    }
}

template <int DP>
int launch(const bf16 *Q, const bf16 *K, bf16 *P, int BH, int L, int D, bool vec, cudaStream_t stream) {
    const cudaError_t e = cudaFuncSetAttribute(causal_scores<DP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               smem<DP>::BYTES);
    if (e != cudaSuccess) return (int)e;
    const dim3 grid((unsigned)kf::ceil_div(L, BM), (unsigned)BH);
    causal_scores<DP><<<grid, THREADS, smem<DP>::BYTES, stream>>>(Q, K, P, L, D, vec);
    return kf::launch_status();
}

} /* namespace */

extern "C" int kf_launch(const bf16 *Q, const bf16 *K, bf16 *P, int BH, int L, int D, cudaStream_t stream) {
    if (kf::bad_shape(BH, L, D) || D > MAX_D) return (int)cudaErrorInvalidValue;
    if (BH == 0 || L == 0) return 0;
    if (D == 0) return (int)cudaErrorInvalidValue;
    /* 16-byte rows of Q, K and P: pitches of whole vectors and aligned bases */
    const bool vec = D % kf::BF16_PER_VEC == 0 && L % kf::BF16_PER_VEC == 0 && kf::is_aligned(Q, kf::VEC_BYTES) &&
                     kf::is_aligned(K, kf::VEC_BYTES) && kf::is_aligned(P, kf::VEC_BYTES);
    if (D <= 64) return launch<64>(Q, K, P, BH, L, D, vec, stream);
    if (D <= 128) return launch<128>(Q, K, P, BH, L, D, vec, stream);
    return launch<MAX_D>(Q, K, P, BH, L, D, vec, stream);
}
