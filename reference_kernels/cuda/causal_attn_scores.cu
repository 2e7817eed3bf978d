/* Reference kernel for causal_attn_scores: P[bh] = softmax(Q[bh] K[bh]^T / sqrt(D)) over keys j <= i, 0 above the
 * diagonal; Q, K, P bf16. Two passes over the key tiles up to the diagonal on mma.sync: row max and sum, then
 * P = exp2(S*c - m*c - log2 l). Fast path (D = 64 or 128, L % 8 == 0, aligned): 128 queries a block, Q and a ring of
 * K tiles by TMA (128-byte swizzle, K kept in L2 by an evict-last hint), per-lane statistics merged once, P staged by
 * stmatrix and written as streaming 16-byte rows; during pass 1, which writes no P, each block streams out the zeros
 * of the query tile mirrored to its own, so that stores and arithmetic stay in step across the grid; blocks run
 * longest first over all heads. Any other shape: element-guarded loads, ordinary stores. */
#include <cfloat>
#include "tile/mma.cuh"
#include "tile/tma.cuh"
#include "tile/vec.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int BM = 64, BN = 64;                          /* queries per block, keys per tile */
constexpr int THREADS = 128;                             /* four warps of 16 queries */
constexpr int PAD = 8;
constexpr int KEY_TILES = BN / kf::TILE;
constexpr int MAX_D = 256;

/* ---- fast path ---- */
constexpr int FAST_BM = 128;                             /* queries per block: eight warps share each K tile */
constexpr int FAST_THREADS = FAST_BM / kf::TILE * kf::WARP, FAST_WARPS = FAST_THREADS / kf::WARP;
constexpr int STAGES = 2;                                /* K tiles in flight (two timed faster than three) */
constexpr int SUB_D = kf::SWIZZLE_BYTES / 2;             /* head-dim columns per swizzled sub-tile (128-byte rows) */
constexpr int SUB_BYTES = BN * kf::SWIZZLE_BYTES;        /* one 64-row sub-tile */
constexpr int P_TILE_BYTES = kf::TILE * BN * 2;          /* a warp's 16 x 64 tile of P, 128-byte rows */
constexpr int VECS_PER_ROW = BN / kf::BF16_PER_VEC;
constexpr int ROWS_PER_STORE = kf::WARP / VECS_PER_ROW;  /* a warp's 16-byte stores cover 4 rows of a tile */
constexpr int MAP_RANK = 3;                              /* {column, row, bh} */
constexpr int ROW_VALS = 2 * KEY_TILES * 2;              /* a lane's values of one accumulator row per key tile */
/* A lane's running max starts here, not at -inf: a lane whose keys so far are all masked then rescales by 2^0
 * instead of 2^(-inf + inf). Finite after scaling by scale_log2 < 1. */
constexpr float NO_MAX = -FLT_MAX;

/* Blocks per SM that the register budget must allow: 80 registers a thread at D = 64, 128 at D = 128. */
constexpr int fast_min_blocks(int dp) { return dp == 64 ? 3 : 2; }

template <int DP> struct fast_smem {
    static constexpr int TILE_BYTES = DP / SUB_D * SUB_BYTES;                 /* one K tile */
    static constexpr int Q_SUB_BYTES = FAST_BM * kf::SWIZZLE_BYTES, Q_BYTES = DP / SUB_D * Q_SUB_BYTES;
    static constexpr int P_BYTES = FAST_WARPS * P_TILE_BYTES;                /* one staged tile of P per warp */
    static constexpr int STAGE_BYTES = P_BYTES > Q_BYTES ? P_BYTES : Q_BYTES;  /* P staging; holds Q at first */
    static constexpr int BARS = 2 * STAGES + 1;                              /* full and empty per stage, Q */
    static constexpr int BYTES = kf::SWIZZLE_ATOM_BYTES + STAGE_BYTES + STAGES * TILE_BYTES +
                                 BARS * (int)sizeof(uint64_t);
};

__device__ __forceinline__ void stsm_x4(uint32_t addr, const uint32_t (&r)[4]) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                 ::"r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
}

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&v);
}

/* v[0] <- v[0] op ... op v[N-1], as a tree (W: the current half-width) */
template <int W, class T, int N, class F> __device__ __forceinline__ void fold(T (&v)[N], F op) {
#pragma unroll
    for (int i = 0; i < W; ++i) v[i] = op(v[i], v[i + W]);
    if constexpr (W > 1) fold<W / 2>(v, op);
}

template <class Op, int N> __device__ __forceinline__ float tree(float (&v)[N]) {
    fold<N / 2>(v, Op::apply);
    return v[0];
}

/* This lane's values of accumulator row half r (rows lane/4 and lane/4 + 8) over the key tile. */
__device__ __forceinline__ void row_values(float (&v)[ROW_VALS], const kf::rt_acc (&S)[KEY_TILES], int r) {
#pragma unroll
    for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
        for (int j = 0; j < 4; ++j) v[4 * t + j] = S[t].d[2 * r + (j / 2) * 4 + j % 2];
}

/* The warp's 16 x 64 raw scores against a K tile; k_lane: this lane's ldmatrix row in the tile, xo: its swizzled
 * chunk offsets for the four 16-column steps of a sub-tile. */
template <int DP>
__device__ __forceinline__ void raw_scores(kf::rt_acc (&S)[KEY_TILES], const kf::rt_a (&qa)[DP / kf::TILE],
                                           uint32_t k_lane, const uint32_t (&xo)[SUB_D / kf::TILE]) {
    constexpr int STEPS = SUB_D / kf::TILE;
#pragma unroll
    for (int t = 0; t < KEY_TILES; ++t) kf::zero(S[t]);
#pragma unroll
    for (int kd = 0; kd < DP / kf::TILE; ++kd)
#pragma unroll
        for (int t = 0; t < KEY_TILES; ++t) {
            kf::rt_b kb;
            kf::ldsm_x4(kb.r, k_lane + kd / STEPS * SUB_BYTES + t * kf::TILE * kf::SWIZZLE_BYTES + xo[kd % STEPS]);
            kf::mma_ab(S[t], qa[kd], kb);
        }
}

/* -inf where the key is past the query; over: key0 - row for this lane's first element. */
__device__ __forceinline__ void mask_scores(kf::rt_acc (&S)[KEY_TILES], int over) {
#pragma unroll
    for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
        for (int i = 0; i < 8; ++i)
            if (over + t * kf::TILE + 8 * (i / 4) + i % 2 - 8 * kf::acc_row_half(i) > 0) S[t].d[i] = -INFINITY;
}

/* sum of 2^(v*scale - base) over this lane's row values */
__device__ __forceinline__ float exp2_sum(float (&v)[ROW_VALS], float scale, float base) {
#pragma unroll
    for (int j = 0; j < ROW_VALS; ++j) v[j] = kf::exp2_fast(fmaf(v[j], scale, -base));
    return tree<kf::op_sum>(v);
}

/* A warp's rows x (L - col0) block of zeros in P as 16-byte stores, the warp's lanes on consecutive vectors of a
 * row (512 contiguous bytes a store); (r, c) is this lane's next vector. */
struct zero_block {
    bf16 *origin;                                        /* P at (row0, col0) */
    int L, vecs_per_row, rows, r, c;

    __device__ zero_block(bf16 *p, int row0, int col0, int L_) : origin(p + (long long)row0 * L_ + col0), L(L_) {
        const int lane = threadIdx.x % kf::WARP;
        vecs_per_row = (L - col0) / kf::BF16_PER_VEC;
        rows = vecs_per_row > 0 ? max(0, min(kf::TILE, L - row0)) : 0;
        r = rows > 0 ? lane / vecs_per_row : 0;
        c = rows > 0 ? lane % vecs_per_row : 0;
    }
    __device__ int lane_vectors() const { return (int)kf::ceil_div((long long)rows * vecs_per_row, kf::WARP); }
    /* up to n of this lane's stores */
    __device__ __forceinline__ void store(int n) {
        for (int j = 0; j < n && r < rows; ++j) {
            __stcs(reinterpret_cast<uint4 *>(origin + (long long)r * L + c * kf::BF16_PER_VEC), make_uint4(0, 0, 0, 0));
            for (c += kf::WARP; c >= vecs_per_row; c -= vecs_per_row) ++r;
        }
    }
};

template <int DP>
__global__ void __launch_bounds__(FAST_THREADS, fast_min_blocks(DP))
causal_scores_tma(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k, bf16 *P,
                  int L, int BH, float scale_log2) {
    using sm = fast_smem<DP>;
    constexpr int SUBS = DP / SUB_D, STEPS = SUB_D / kf::TILE;
    extern __shared__ uint8_t raw[];
    const uintptr_t atom = kf::SWIZZLE_ATOM_BYTES;
    uint8_t *stage = reinterpret_cast<uint8_t *>(((uintptr_t)raw + atom - 1) & ~(atom - 1));
    uint8_t *ring = stage + sm::STAGE_BYTES;
    uint64_t *full = reinterpret_cast<uint64_t *>(ring + STAGES * sm::TILE_BYTES), *empty = full + STAGES,
             *q_bar = empty + STAGES;
    /* longest rows first across all heads: a block's work grows with its query tile */
    const int n_qt = (int)kf::ceil_div(L, FAST_BM), rank = (int)blockIdx.x / BH, qt = n_qt - 1 - rank;
    const int zt = rank;                                 /* the query tile whose zeros this block writes */
    const int q0 = qt * FAST_BM, bh = (int)blockIdx.x % BH, warp = threadIdx.x / kf::WARP;
    const int lane = threadIdx.x % kf::WARP;
    const int w_row0 = q0 + warp * kf::TILE, row_base = w_row0 + lane / 4;
    const int tiles = (int)kf::ceil_div(min(L, q0 + FAST_BM), BN), iters = 2 * tiles;   /* pass 1, then pass 2 */

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            kf::mbar_init(&full[s], 1);
            kf::mbar_init(&empty[s], FAST_WARPS);
        }
        kf::mbar_init(q_bar, 1);
        kf::mbar_init_fence();
    }
    __syncthreads();
    /* every K tile is read again by the longer query tiles of its head; P, written once, streams past it */
    const uint64_t k_policy = kf::l2_evict_last_policy();
    if (threadIdx.x == 0) {
        kf::mbar_arrive_expect_bytes(q_bar, sm::Q_BYTES);
        for (int s = 0; s < SUBS; ++s) kf::tma_load_3d(stage + s * sm::Q_SUB_BYTES, &map_q, q_bar, bh, q0, s * SUB_D);
        for (int it = 0; it < STAGES && it < iters; ++it) {
            kf::mbar_arrive_expect_bytes(&full[it], sm::TILE_BYTES);
            for (int s = 0; s < SUBS; ++s)
                kf::tma_load_3d_hint(ring + it * sm::TILE_BYTES + s * SUB_BYTES, &map_k, &full[it], bh, it % tiles * BN,
                                 s * SUB_D, k_policy);
        }
    }
    zero_block zeros(P + (long long)bh * L * L, zt * FAST_BM + warp * kf::TILE, (zt + 1) * FAST_BM, L);
    const int zeros_per_tile = (int)kf::ceil_div(zeros.lane_vectors(), tiles);

    /* per-lane ldmatrix / stmatrix addressing: rows and swizzled 16-byte chunks */
    const int quarter = lane / 8;
    uint32_t xo_k[STEPS], xo_q[STEPS], xo_p[KEY_TILES];
#pragma unroll
    for (int j = 0; j < STEPS; ++j) {
        xo_k[j] = kf::swizzle128(0, (2 * j + quarter % 2) ^ lane % 8);
        xo_q[j] = kf::swizzle128(0, (2 * j + lane / kf::TILE) ^ lane % 8);
    }
#pragma unroll
    for (int t = 0; t < KEY_TILES; ++t) xo_p[t] = kf::swizzle128(0, (2 * t + lane / kf::TILE) ^ lane % 8);
    const uint32_t k_row = (lane % 8 + 8 * (quarter / 2)) * kf::SWIZZLE_BYTES;
    const uint32_t p_row = (lane % 8 + 8 * (quarter % 2)) * kf::SWIZZLE_BYTES;
    const uint32_t ring_addr = kf::smem_addr(ring);

    kf::rt_a qa[DP / kf::TILE];
    kf::mbar_wait(q_bar, 0);
    {
        const uint32_t q_lane = kf::smem_addr(stage) + (warp * kf::TILE + lane % kf::TILE) * kf::SWIZZLE_BYTES;
#pragma unroll
        for (int kd = 0; kd < DP / kf::TILE; ++kd)
            kf::ldsm_x4(qa[kd].r, q_lane + kd / STEPS * sm::Q_SUB_BYTES + xo_q[kd % STEPS]);
    }
    __syncthreads();                                     /* Q has left the staging area before P arrives there */

    float m[2] = {NO_MAX, NO_MAX}, l[2] = {0.0f, 0.0f}, b[2];
    for (int it = 0; it < iters; ++it) {
        const int s = it % STAGES, key0 = it % tiles * BN;
        if (threadIdx.x == 0 && it > 0 && it - 1 + STAGES < iters) {   /* refill the stage freed last iteration */
            const int prev = (it - 1) % STAGES, next = it - 1 + STAGES;
            kf::mbar_wait(&empty[prev], (it - 1) / STAGES % 2);
            kf::mbar_arrive_expect_bytes(&full[prev], sm::TILE_BYTES);
            for (int d = 0; d < SUBS; ++d)
                kf::tma_load_3d_hint(ring + prev * sm::TILE_BYTES + d * SUB_BYTES, &map_k, &full[prev], bh,
                                 next % tiles * BN, d * SUB_D, k_policy);
        }
        kf::mbar_wait(&full[s], it / STAGES % 2);
        kf::rt_acc S[KEY_TILES];
        raw_scores<DP>(S, qa, ring_addr + s * sm::TILE_BYTES + k_row, xo_k);
        __syncwarp();
        if (lane == 0) kf::mbar_arrive(&empty[s]);
        if (key0 + BN - 1 > w_row0) mask_scores(S, key0 + 2 * (lane % 4) - row_base);
        if (it < tiles) {                                /* pass 1: this lane's running max and sum of each row */
            zeros.store(zeros_per_tile);
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                float v[ROW_VALS];
                row_values(v, S, r);
                const float mx = fmaxf(m[r], tree<kf::op_max>(v));
                row_values(v, S, r);
                l[r] = l[r] * kf::exp2_fast((m[r] - mx) * scale_log2) + exp2_sum(v, scale_log2, mx * scale_log2);
                m[r] = mx;
            }
        } else {                                         /* pass 2: P, staged in this warp's buffer */
            if (it == tiles)
#pragma unroll
                for (int r = 0; r < 2; ++r) {            /* the quad's statistics; key 0 makes its max finite */
                    const float mx = kf::quad_reduce<kf::op_max>(m[r]);
                    const float sum = kf::quad_reduce<kf::op_sum>(l[r] * kf::exp2_fast((m[r] - mx) * scale_log2));
                    b[r] = mx * scale_log2 + __log2f(sum);
                }
            uint8_t *buf = stage + warp * P_TILE_BYTES;
            __syncwarp();                                /* the last tile's 16-byte loads are done with buf */
            const uint32_t p_lane = kf::smem_addr(buf) + p_row;
#pragma unroll
            for (int t = 0; t < KEY_TILES; ++t) {
                uint32_t p[4];
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    p[j] = pack_bf16(kf::exp2_fast(fmaf(S[t].d[2 * j], scale_log2, -b[j % 2])),
                                     kf::exp2_fast(fmaf(S[t].d[2 * j + 1], scale_log2, -b[j % 2])));
                stsm_x4(p_lane + xo_p[t], p);
            }
            __syncwarp();
#pragma unroll
            for (int k = 0; k < kf::TILE / ROWS_PER_STORE; ++k) {   /* 16-byte rows from the staged tile */
                const int row = k * ROWS_PER_STORE + lane / VECS_PER_ROW, chunk = lane % VECS_PER_ROW;
                const uint4 v = *reinterpret_cast<const uint4 *>(buf + kf::swizzle128(row, chunk));
                if (w_row0 + row < L && key0 + chunk * kf::BF16_PER_VEC < L)
                    __stcs(reinterpret_cast<uint4 *>(P + ((long long)bh * L + w_row0 + row) * L + key0 +
                                                     chunk * kf::BF16_PER_VEC), v);
            }
        }
    }
}

template <int DP>
int launch_tma(const bf16 *Q, const bf16 *K, bf16 *P, int BH, int L, cudaStream_t stream) {
    CUtensorMap map_q, map_k;
    const long long dims[MAP_RANK] = {DP, L, BH}, strides[MAP_RANK - 1] = {DP, (long long)L * DP};
    if (!kf::make_tensor_map_bf16<MAP_RANK>(&map_q, Q, dims, strides, {SUB_D, FAST_BM, 1}) ||
        !kf::make_tensor_map_bf16<MAP_RANK>(&map_k, K, dims, strides, {SUB_D, BN, 1}))
        return -1;
    const cudaError_t e = cudaFuncSetAttribute(causal_scores_tma<DP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               fast_smem<DP>::BYTES);
    if (e != cudaSuccess) return (int)e;
    const unsigned blocks = (unsigned)(kf::ceil_div(L, FAST_BM) * BH);
    causal_scores_tma<DP><<<blocks, FAST_THREADS, fast_smem<DP>::BYTES, stream>>>(map_q, map_k, P, L, BH,
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
