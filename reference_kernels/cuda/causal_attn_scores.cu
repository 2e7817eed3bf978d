/* Reference kernel for causal_attn_scores: P[bh] = softmax(Q[bh] K[bh]^T / sqrt(D)) over keys j <= i, 0 above the
 * diagonal; Q, K, P bf16. Two passes over the key tiles up to the diagonal on mma.sync: row max and sum, then
 * P = exp2(S*c - m*c - log2 l). Fast path (D = 64 or 128, L % 8 == 0, aligned): a cp.async K ring, Q in registers, P
 * tiles staged in swizzled shared memory and written by TMA stores, and the zeros past the diagonal as TMA stores of a
 * zero tile issued at the start. Any other shape: element-guarded loads, ordinary stores. */
#include "tile/mma.cuh"
#include "tile/tma.cuh"
#include "tile/vec.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int BM = 64, BN = 64;                          /* queries per block, keys per tile */
constexpr int THREADS = 128;                             /* four warps of 16 queries */
constexpr int WARPS = THREADS / kf::WARP;
constexpr int PAD = 8;
constexpr int KEY_TILES = BN / kf::TILE;
constexpr int MAX_D = 256;

/* ---- fast path ---- */
constexpr int STAGES = 2;
constexpr int ZERO_COLS = 256;                           /* widest TMA box: the zero tile is 16 rows x 256 */
constexpr int P_BOX_BYTES = kf::TILE * BN * 2;           /* one warp's 16 x 64 tile of P, 128-byte rows */
constexpr int P_MAP_RANK = 3;                            /* {key, query, bh} */

template <int DP> struct fast_smem {
    static constexpr int LD = DP + PAD;
    static constexpr int Q_BYTES = BM * LD * 2, K_BYTES = BN * LD * 2;
    static constexpr int STAGE_BYTES = WARPS * 2 * P_BOX_BYTES, ZERO_BYTES = kf::TILE * ZERO_COLS * 2;
    /* staging first (1024-byte aligned for the swizzle), then the zero tile, Q and the K ring */
    static constexpr int BYTES = kf::SWIZZLE_ATOM_BYTES + STAGE_BYTES + ZERO_BYTES + Q_BYTES + STAGES * K_BYTES;
};

__device__ __forceinline__ void cp_async16(void *dst, const void *src, bool in) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 ::"r"(kf::smem_addr(dst)), "l"(src), "r"(in ? 16 : 0) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* rows x DP of a head ([L][DP]) from row l0 into a padded tile; rows past L read as zeros. */
template <int DP>
__device__ __forceinline__ void fetch_rows(bf16 *dst, const bf16 *src, int l0, int rows, int L) {
    constexpr int CHUNKS = DP / kf::BF16_PER_VEC, LD = fast_smem<DP>::LD;
    for (int i = threadIdx.x; i < rows * CHUNKS; i += THREADS) {
        const int r = i / CHUNKS, c = (i % CHUNKS) * kf::BF16_PER_VEC;
        const bool in = l0 + r < L;
        cp_async16(dst + r * LD + c, src + (long long)(in ? l0 + r : 0) * DP + c, in);
    }
}

/* This warp's 16 x 64 scores against the key tile in sk, raw (unscaled). */
template <int DP>
__device__ __forceinline__ void raw_scores(kf::rt_acc (&S)[KEY_TILES], const kf::rt_a (&qa)[DP / kf::TILE],
                                           const bf16 *sk) {
    constexpr int LD = fast_smem<DP>::LD;
#pragma unroll
    for (int t = 0; t < KEY_TILES; ++t) kf::zero(S[t]);
#pragma unroll
    for (int kd = 0; kd < DP / kf::TILE; ++kd)
#pragma unroll
        for (int t = 0; t < KEY_TILES; ++t) {
            kf::rt_b kb;
            kf::load_nk(kb, sk + t * kf::TILE * LD + kd * kf::TILE, LD);
            kf::mma_ab(S[t], qa[kd], kb);
        }
}

/* -inf where the key is past the query (or past L). */
__device__ __forceinline__ void mask_scores(kf::rt_acc (&S)[KEY_TILES], int row_base, int key0, int L) {
#pragma unroll
    for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int key = key0 + t * kf::TILE + kf::acc_col(i), row = row_base + 8 * kf::acc_row_half(i);
            if (key > row || key >= L) S[t].d[i] = -INFINITY;
        }
}

template <int DP>
__global__ void __launch_bounds__(THREADS)
causal_scores_tma(const __grid_constant__ CUtensorMap map_p, const __grid_constant__ CUtensorMap map_zero,
                  const bf16 *Q, const bf16 *K, int L, float scale_log2) {
    using sm = fast_smem<DP>;
    constexpr int LD = sm::LD;
    extern __shared__ uint8_t raw[];
    const uintptr_t atom = kf::SWIZZLE_ATOM_BYTES;
    uint8_t *stage = reinterpret_cast<uint8_t *>(((uintptr_t)raw + atom - 1) & ~(atom - 1));
    uint8_t *zero_tile = stage + sm::STAGE_BYTES;
    bf16 *sq = reinterpret_cast<bf16 *>(zero_tile + sm::ZERO_BYTES), *sk = sq + BM * LD;
    const int n_qt = (int)kf::ceil_div(L, BM), qt = n_qt - 1 - (int)blockIdx.x;   /* longest rows first */
    const int q0 = qt * BM, bh = blockIdx.y, warp = threadIdx.x / kf::WARP, lane = threadIdx.x % kf::WARP;
    const int w_row0 = q0 + warp * kf::TILE, row_base = w_row0 + lane / 4;
    const long long head = (long long)bh * L * DP;
    uint8_t *my_stage = stage + warp * 2 * P_BOX_BYTES;

    fetch_rows<DP>(sq, Q + head, q0, BM, L);
    fetch_rows<DP>(sk, K + head, 0, BN, L);
    cp_async_commit();
    for (int i = threadIdx.x; i < sm::ZERO_BYTES / kf::VEC_BYTES; i += THREADS)
        reinterpret_cast<uint4 *>(zero_tile)[i] = make_uint4(0, 0, 0, 0);
    kf::fence_proxy_async();
    __syncthreads();
    if (lane == 0) {                                     /* the zeros past the block's last key tile, in the background */
        for (int c0 = q0 + BM; c0 < L; c0 += ZERO_COLS) kf::tma_store_3d(&map_zero, zero_tile, bh, w_row0, c0);
        kf::tma_store_commit();
    }

    const int tiles = (int)kf::ceil_div(min(L, q0 + BM), BN), iters = 2 * tiles;
    kf::rt_a qa[DP / kf::TILE];
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, b[2];
    for (int it = 0; it < iters; ++it) {
        const int key0 = it % tiles * BN;
        if (it + 1 < iters) fetch_rows<DP>(sk + (it + 1) % STAGES * BN * LD, K + head, (it + 1) % tiles * BN, BN, L);
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();
        const bf16 *sk_cur = sk + it % STAGES * BN * LD;
        if (it == 0)
#pragma unroll
            for (int kd = 0; kd < DP / kf::TILE; ++kd) kf::load(qa[kd], sq + warp * kf::TILE * LD + kd * kf::TILE, LD);
        const bool diagonal = key0 + BN - 1 > w_row0 || key0 + BN > L;
        kf::rt_acc S[KEY_TILES];
        if (it < tiles) {                                /* pass 1: running max and sum of each row */
            if (key0 <= w_row0 + kf::TILE - 1) {         /* tiles wholly past this warp's rows add nothing */
                raw_scores<DP>(S, qa, sk_cur);
                if (diagonal) mask_scores(S, row_base, key0, L);
#pragma unroll
                for (int r = 0; r < 2; ++r) {
                    float mx = m[r];
#pragma unroll
                    for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
                        for (int i = 0; i < 8; ++i)
                            if (kf::acc_row_half(i) == r) mx = fmaxf(mx, S[t].d[i]);
                    mx = kf::quad_reduce<kf::op_max>(mx);   /* finite: key 0 <= every row is in the first tile */
                    const float base = mx * scale_log2;
                    float sum = 0.0f;
#pragma unroll
                    for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
                        for (int i = 0; i < 8; ++i)
                            if (kf::acc_row_half(i) == r) sum += kf::exp2_fast(fmaf(S[t].d[i], scale_log2, -base));
                    l[r] = l[r] * kf::exp2_fast((m[r] - mx) * scale_log2) + sum;
                    m[r] = mx;
                }
            }
            if (it == tiles - 1)
#pragma unroll
                for (int r = 0; r < 2; ++r) b[r] = m[r] * scale_log2 + __log2f(kf::quad_reduce<kf::op_sum>(l[r]));
        } else {                                         /* pass 2: P, staged and stored by the copy engine */
            raw_scores<DP>(S, qa, sk_cur);
            if (diagonal) mask_scores(S, row_base, key0, L);
            uint8_t *buf = my_stage + (it % 2) * P_BOX_BYTES;
            if (lane == 0) kf::tma_store_wait_read<1>();   /* this buffer's previous tile has left */
            __syncwarp();
#pragma unroll
            for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
                for (int i = 0; i < 8; i += 2) {
                    const int r = lane / 4 + 8 * kf::acc_row_half(i), col = t * kf::TILE + kf::acc_col(i);
                    const float h = b[kf::acc_row_half(i)];
                    *reinterpret_cast<__nv_bfloat162 *>(buf + r * kf::SWIZZLE_BYTES +
                                                        ((col / kf::BF16_PER_VEC) ^ (r % 8)) * kf::VEC_BYTES +
                                                        col % kf::BF16_PER_VEC * 2) =
                        __floats2bfloat162_rn(kf::exp2_fast(fmaf(S[t].d[i], scale_log2, -h)),
                                              kf::exp2_fast(fmaf(S[t].d[i + 1], scale_log2, -h)));
                }
            kf::fence_proxy_async();
            __syncwarp();
            if (lane == 0) {
                kf::tma_store_3d(&map_p, buf, bh, w_row0, key0);
                kf::tma_store_commit();
            }
        }
        __syncthreads();                                 /* the next fetch refills this stage */
    }
    if (lane == 0) asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

template <int DP>
int launch_tma(const bf16 *Q, const bf16 *K, bf16 *P, int BH, int L, cudaStream_t stream) {
    CUtensorMap map_p, map_zero;
    const long long dims[P_MAP_RANK] = {L, L, BH}, strides[P_MAP_RANK - 1] = {L, (long long)L * L};
    if (!kf::make_tensor_map_bf16<P_MAP_RANK>(&map_p, P, dims, strides, {BN, kf::TILE, 1}) ||
        !kf::make_tensor_map_bf16<P_MAP_RANK>(&map_zero, P, dims, strides, {ZERO_COLS, kf::TILE, 1}, false))
        return -1;
    const cudaError_t e = cudaFuncSetAttribute(causal_scores_tma<DP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               fast_smem<DP>::BYTES);
    if (e != cudaSuccess) return (int)e;
    const dim3 grid((unsigned)kf::ceil_div(L, BM), (unsigned)BH);
    causal_scores_tma<DP><<<grid, THREADS, fast_smem<DP>::BYTES, stream>>>(map_p, map_zero, Q, K, L,
                                                                           kf::LOG2E / sqrtf((float)DP));
    return kf::launch_status();
}


/* ---- any shape: mma.sync, 64 queries per block, P staged as 16-byte rows, zeros written last ---- */

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
__global__ void __launch_bounds__(THREADS) causal_scores_mma(const bf16 *Q, const bf16 *K, bf16 *P, int L, int D, bool vec) {
    constexpr int P_LD = smem<DP>::P_LD;
    extern __shared__ __align__(16) uint8_t raw[];
    bf16 *sq = reinterpret_cast<bf16 *>(raw), *sk = sq + BM * smem<DP>::LD, *sp = sk + BN * smem<DP>::LD;
    const int n_qt = (int)kf::ceil_div(L, BM), qt = n_qt - 1 - (int)blockIdx.x;   /* longest rows first */
    const int q0 = qt * BM, warp = threadIdx.x / kf::WARP, lane = threadIdx.x % kf::WARP;
    const int row_base = q0 + warp * kf::TILE + lane / 4;
    const long long head = (long long)blockIdx.y * L;
    const bf16 *q = Q + head * D, *k = K + head * D;
    bf16 *p = P + head * L;
    const float scale_log2 = kf::LOG2E / sqrtf((float)D);

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
int launch_mma(const bf16 *Q, const bf16 *K, bf16 *P, int BH, int L, int D, bool vec, cudaStream_t stream) {
    const cudaError_t e = cudaFuncSetAttribute(causal_scores_mma<DP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               smem<DP>::BYTES);
    if (e != cudaSuccess) return (int)e;
    const dim3 grid((unsigned)kf::ceil_div(L, BM), (unsigned)BH);
    causal_scores_mma<DP><<<grid, THREADS, smem<DP>::BYTES, stream>>>(Q, K, P, L, D, vec);
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
    if (vec && (D == 64 || D == 128)) {
        const int rc = D == 64 ? launch_tma<64>(Q, K, P, BH, L, stream) : launch_tma<128>(Q, K, P, BH, L, stream);
        if (rc >= 0) return rc;                          /* -1: the driver refused a tensor map */
    }
    if (D <= 64) return launch_mma<64>(Q, K, P, BH, L, D, vec, stream);
    if (D <= 128) return launch_mma<128>(Q, K, P, BH, L, D, vec, stream);
    return launch_mma<MAX_D>(Q, K, P, BH, L, D, vec, stream);
}
