/* Reference kernel for linear_attention: o_t = sum_{s<=t} (phi(q_t).phi(k_s)) v_s / sum_{s<=t} phi(q_t).phi(k_s),
 * phi = elu + 1, bf16 [BH, L, D]. Chunks of 64 tokens: masked intra-chunk attention plus the running state
 * S = sum phi(k)^T v (fp32 registers, bf16 in shared memory); a column of ones makes the same products give the
 * normaliser, with z = sum phi(k) as a bf16 high/low pair. Chunks are serial within a head.
 * Fast path (D <= 64, D % 8 == 0, 16-byte aligned): a block per head; q, k, v chunks through a 3-stage TMA ring, one
 * warpgroup applying phi in place a chunk ahead of the other, which runs the products on the tensor cores (wgmma).
 * Any other shape: one block per (head, 64 value columns), two groups of four mma.sync warps, one barrier a chunk. */
#include "tile/mma.cuh"
#include "tile/vec.cuh"
#include "tile/wgmma.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int C = 64;                        /* tokens per chunk */
constexpr int DVG = 32;                      /* value columns per warp group */
constexpr int GROUPS = 2;
constexpr int DVB = GROUPS * DVG;            /* value columns per block */
constexpr int EXTRA = kf::TILE / 2;          /* one n8 mma wide: ones in V, z (high, low) in S, then zeros */
constexpr int EXT = DVG + EXTRA;             /* a group's columns of V and S */
constexpr int GROUP_WARPS = 4, THREADS = GROUPS * GROUP_WARPS * kf::WARP;
template <int DP> constexpr int min_blocks() { return DP <= 64 ? 2 : 1; }   /* two per SM: one block per head fills the GPU */
constexpr int PAD = 8;
constexpr int MAX_D = 128;
constexpr int TOKEN_TILES = C / kf::TILE, OUT_TILES = DVG / kf::TILE;
static_assert(GROUP_WARPS * kf::TILE == C, "a warp per 16 queries of the chunk");

template <int DP> struct smem {
    /* V_LD: a 16-column fragment at the last group's extra columns reads 8 into the padding */
    static constexpr int LD = DP + PAD, V_LD = GROUPS * EXT + PAD;
    static constexpr int CHUNK_ELEMS = 2 * C * LD + C * V_LD;            /* phi(q), phi(k), v */
    static constexpr int S_ELEMS = DP * V_LD;
    static constexpr int BYTES = (2 * CHUNK_ELEMS + 2 * S_ELEMS) * 2;   /* both double-buffered */
};

/* x + 1 for x > 0, else exp(x), with no branch (the compiler would otherwise skip the exponential per element, at the
 * cost of a divergent branch each). */
__device__ __forceinline__ float phi(float x) { return fmaxf(x, 0.0f) + __expf(fminf(x, 0.0f)); }

/* One chunk of q, k (C x DP) and v (C x DVB) in flight from global memory to registers, as 16-byte vectors. */
template <int DP> struct chunk_regs {
    static constexpr int QK_VECS = C * DP / kf::BF16_PER_VEC / THREADS, V_VECS = C * DVB / kf::BF16_PER_VEC / THREADS;
    uint4 q[QK_VECS], k[QK_VECS], v[V_VECS];
};

/* Vector i of a rows x cols tile: row and first column. */
template <int COLS> __device__ __forceinline__ int vec_row(int i) { return i / (COLS / kf::BF16_PER_VEC); }
template <int COLS> __device__ __forceinline__ int vec_col(int i) { return i % (COLS / kf::BF16_PER_VEC) * kf::BF16_PER_VEC; }

/* Needs D % 8 == 0 and 16-byte aligned bases, so a vector is either wholly inside D or wholly past it. */
template <int DP>
__device__ __forceinline__ void fetch(chunk_regs<DP> &r, const bf16 *Q, const bf16 *K, const bf16 *V, long long head,
                                      int c0, int L, int D, int dv0) {
    const uint4 zero = make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int j = 0; j < chunk_regs<DP>::QK_VECS; ++j) {
        const int i = threadIdx.x + j * THREADS, row = c0 + vec_row<DP>(i), col = vec_col<DP>(i);
        const long long at = head + (long long)row * D + col;
        const bool in = row < L && col < D;
        r.q[j] = in ? __ldg(reinterpret_cast<const uint4 *>(Q + at)) : zero;
        r.k[j] = in ? __ldg(reinterpret_cast<const uint4 *>(K + at)) : zero;
    }
#pragma unroll
    for (int j = 0; j < chunk_regs<DP>::V_VECS; ++j) {
        const int i = threadIdx.x + j * THREADS, row = c0 + vec_row<DVB>(i), col = dv0 + vec_col<DVB>(i);
        r.v[j] = row < L && col < D ? __ldg(reinterpret_cast<const uint4 *>(V + head + (long long)row * D + col)) : zero;
    }
}

/* phi of a vector of 8, or 8 zeros where the vector lies outside the sequence or D (phi(0) = 1 would count). */
__device__ __forceinline__ uint4 phi_vec(uint4 raw, bool in) {
    __nv_bfloat162 *p = reinterpret_cast<__nv_bfloat162 *>(&raw);
#pragma unroll
    for (int e = 0; e < kf::BF16_PER_VEC / 2; ++e) {
        const float2 f = __bfloat1622float2(p[e]);
        p[e] = in ? __floats2bfloat162_rn(phi(f.x), phi(f.y)) : __floats2bfloat162_rn(0.0f, 0.0f);
    }
    return raw;
}

/* Column of V's block-wide value column c in the shared tile (the groups' extra columns sit after their values). */
__device__ __forceinline__ int v_col(int c) { return c / DVG * EXT + c % DVG; }

template <int DP>
__device__ __forceinline__ void stage(bf16 *sq, bf16 *sk, bf16 *sv, const chunk_regs<DP> &r, int c0, int L, int D) {
    constexpr int LD = smem<DP>::LD, V_LD = smem<DP>::V_LD;
#pragma unroll
    for (int j = 0; j < chunk_regs<DP>::QK_VECS; ++j) {
        const int i = threadIdx.x + j * THREADS, row = vec_row<DP>(i), col = vec_col<DP>(i);
        const bool in = c0 + row < L && col < D;
        *reinterpret_cast<uint4 *>(sq + row * LD + col) = phi_vec(r.q[j], in);
        *reinterpret_cast<uint4 *>(sk + row * LD + col) = phi_vec(r.k[j], in);
    }
#pragma unroll
    for (int j = 0; j < chunk_regs<DP>::V_VECS; ++j) {
        const int i = threadIdx.x + j * THREADS;
        *reinterpret_cast<uint4 *>(sv + vec_row<DVB>(i) * V_LD + v_col(vec_col<DVB>(i))) = r.v[j];
    }
}

/* Any D or alignment: element by element, straight into shared memory. */
template <int DP>
__device__ void stage_scalar(bf16 *sq, bf16 *sk, bf16 *sv, const bf16 *Q, const bf16 *K, const bf16 *V,
                             long long head, int c0, int L, int D, int dv0) {
    constexpr int LD = smem<DP>::LD, V_LD = smem<DP>::V_LD;
    for (int i = threadIdx.x; i < C * DP; i += THREADS) {
        const int r = i / DP, d = i % DP;
        const bool in = c0 + r < L && d < D;      /* padding must be 0 after phi, since phi(0) = 1 */
        const long long at = head + (long long)(c0 + r) * D + d;
        sq[r * LD + d] = __float2bfloat16_rn(in ? phi(__bfloat162float(Q[at])) : 0.0f);
        sk[r * LD + d] = __float2bfloat16_rn(in ? phi(__bfloat162float(K[at])) : 0.0f);
    }
    for (int i = threadIdx.x; i < C * DVB; i += THREADS) {
        const int r = i / DVB, j = i % DVB;
        sv[r * V_LD + v_col(j)] = c0 + r < L && dv0 + j < D ? V[head + (long long)(c0 + r) * D + dv0 + j]
                                                           : __float2bfloat16(0.0f);
    }
}

template <int DP> struct chunk_tiles {
    bf16 *q, *k, *v;
    __device__ chunk_tiles(bf16 *base) : q(base), k(base + C * smem<DP>::LD), v(base + 2 * C * smem<DP>::LD) {}
};

template <int DP, bool VEC>
__global__ void __launch_bounds__(THREADS, min_blocks<DP>())
linear_attn(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O, int L, int D) {
    constexpr int LD = smem<DP>::LD, V_LD = smem<DP>::V_LD, D_TILES = DP / kf::TILE;
    constexpr int S_ROW_TILES = D_TILES / GROUP_WARPS;    /* 16-row tiles of S this warp keeps */
    extern __shared__ __align__(16) uint8_t raw[];
    bf16 *chunk_base = reinterpret_cast<bf16 *>(raw), *s_base = chunk_base + 2 * smem<DP>::CHUNK_ELEMS;
    const int warp = threadIdx.x / kf::WARP, lane = threadIdx.x % kf::WARP;
    const int group = warp / GROUP_WARPS, w = warp % GROUP_WARPS, gcol = group * EXT;
    const int dv0 = blockIdx.x * DVB;
    const long long head = (long long)blockIdx.y * L * D;

    /* V's extra columns (a 1 then zeros) in both buffers, and S = 0, z = 0 */
    for (int i = threadIdx.x; i < 2 * C * GROUPS * EXTRA; i += THREADS) {
        const int buf = i / (C * GROUPS * EXTRA), r = i / (GROUPS * EXTRA) % C, e = i % (GROUPS * EXTRA);
        chunk_tiles<DP>(chunk_base + buf * smem<DP>::CHUNK_ELEMS).v[r * V_LD + e / EXTRA * EXT + DVG + e % EXTRA] =
            __float2bfloat16(e % EXTRA == 0 ? 1.0f : 0.0f);
    }
    for (int i = threadIdx.x; i < smem<DP>::S_ELEMS; i += THREADS) s_base[i] = __float2bfloat16(0.0f);
    kf::rt_acc S[S_ROW_TILES][OUT_TILES + 1];             /* the last: the extra columns, in d[0..3] */
#pragma unroll
    for (int m = 0; m < S_ROW_TILES; ++m)
#pragma unroll
        for (int j = 0; j <= OUT_TILES; ++j) kf::zero(S[m][j]);

    chunk_regs<DP> next;
    {
        const chunk_tiles<DP> t0(chunk_base);
        if (VEC) {
            fetch<DP>(next, Q, K, V, head, 0, L, D, dv0);
            stage<DP>(t0.q, t0.k, t0.v, next, 0, L, D);
        } else {
            stage_scalar<DP>(t0.q, t0.k, t0.v, Q, K, V, head, 0, L, D, dv0);
        }
    }
    __syncthreads();

    for (int c0 = 0, ci = 0; c0 < L; c0 += C, ++ci) {
        const chunk_tiles<DP> cur(chunk_base + ci % 2 * smem<DP>::CHUNK_ELEMS);
        const chunk_tiles<DP> nxt(chunk_base + (ci + 1) % 2 * smem<DP>::CHUNK_ELEMS);
        const bf16 *s_cur = s_base + ci % 2 * smem<DP>::S_ELEMS;
        bf16 *s_next = s_base + (ci + 1) % 2 * smem<DP>::S_ELEMS;
        const bool more = c0 + C < L;
        if (VEC && more) fetch<DP>(next, Q, K, V, head, c0 + C, L, D, dv0);

        /* this warp's 16 queries: A = phi(Q) phi(K)^T over the key tiles up to its own (causal), N = phi(Q) S */
        kf::rt_acc A[TOKEN_TILES], N[OUT_TILES + 1];
#pragma unroll
        for (int t = 0; t < TOKEN_TILES; ++t) kf::zero(A[t]);
#pragma unroll
        for (int j = 0; j <= OUT_TILES; ++j) kf::zero(N[j]);
#pragma unroll
        for (int kd = 0; kd < D_TILES; ++kd) {
            kf::rt_a qa;
            kf::load(qa, cur.q + w * kf::TILE * LD + kd * kf::TILE, LD);
#pragma unroll
            for (int t = 0; t < TOKEN_TILES; ++t) {
                if (t > w) continue;
                kf::rt_b kb;
                kf::load_nk(kb, cur.k + t * kf::TILE * LD + kd * kf::TILE, LD);
                kf::mma_ab(A[t], qa, kb);
            }
#pragma unroll
            for (int j = 0; j <= OUT_TILES; ++j) {
                kf::rt_b sb;
                kf::load(sb, s_cur + kd * kf::TILE * V_LD + gcol + j * kf::TILE, V_LD);
                if (j < OUT_TILES) kf::mma_ab(N[j], qa, sb);
                else kf::mma_ab_half(N[j], qa, sb, 0);
            }
        }
        /* N += A V over the chunk: the values, and in the extra column the masked row sums of A */
#pragma unroll
        for (int t = 0; t < TOKEN_TILES; ++t) {
            if (t > w) continue;
            if (t == w)
#pragma unroll
                for (int i = 0; i < 8; ++i)
                    if (kf::acc_col(i) > lane / 4 + 8 * kf::acc_row_half(i)) A[t].d[i] = 0.0f;
            kf::rt_a pa;
            kf::to_a(pa, A[t]);
#pragma unroll
            for (int j = 0; j <= OUT_TILES; ++j) {
                kf::rt_b vb;
                kf::load(vb, cur.v + t * kf::TILE * V_LD + gcol + j * kf::TILE, V_LD);
                if (j < OUT_TILES) kf::mma_ab(N[j], pa, vb);
                else kf::mma_ab_half(N[j], pa, vb, 0);
            }
        }
        /* the normaliser: extra columns 0 and 1 (z's two parts), held by the quad's first lane */
        float inv[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const float mine = N[OUT_TILES].d[2 * r] + N[OUT_TILES].d[2 * r + 1];
            const float total = __shfl_sync(kf::FULL_MASK, mine, lane & ~(kf::QUAD - 1));
            inv[r] = total > 0.0f ? 1.0f / total : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < OUT_TILES; ++j)
#pragma unroll
            for (int i = 0; i < 8; i += 2) {
                const int row = c0 + w * kf::TILE + lane / 4 + 8 * kf::acc_row_half(i);
                const int col = dv0 + group * DVG + j * kf::TILE + kf::acc_col(i);
                const float f = inv[kf::acc_row_half(i)];
                bf16 *dst = O + head + (long long)row * D + col;
                if (row >= L || col >= D) continue;
                if (VEC) {
                    *reinterpret_cast<__nv_bfloat162 *>(dst) = __floats2bfloat162_rn(N[j].d[i] * f, N[j].d[i + 1] * f);
                } else {
                    dst[0] = __float2bfloat16_rn(N[j].d[i] * f);
                    if (col + 1 < D) dst[1] = __float2bfloat16_rn(N[j].d[i + 1] * f);
                }
            }

        /* S += phi(K)^T V over this chunk (this warp's rows of S; z in the extra column), into the other buffer */
#pragma unroll
        for (int m = 0; m < S_ROW_TILES; ++m) {
            const int d0 = (w * S_ROW_TILES + m) * kf::TILE;
#pragma unroll
            for (int t = 0; t < TOKEN_TILES; ++t) {
                kf::rt_a ka;
                kf::load_trans(ka, cur.k + t * kf::TILE * LD + d0, LD);
#pragma unroll
                for (int j = 0; j <= OUT_TILES; ++j) {
                    kf::rt_b vb;
                    kf::load(vb, cur.v + t * kf::TILE * V_LD + gcol + j * kf::TILE, V_LD);
                    if (j < OUT_TILES) kf::mma_ab(S[m][j], ka, vb);
                    else kf::mma_ab_half(S[m][j], ka, vb, 0);
                }
            }
#pragma unroll
            for (int j = 0; j <= OUT_TILES; ++j)
#pragma unroll
                for (int i = 0; i < (j < OUT_TILES ? 8 : 4); i += 2) {   /* the extra tile: 8 columns */
                    const int col = j * kf::TILE + kf::acc_col(i);
                    float hi = S[m][j].d[i], lo = S[m][j].d[i + 1];
                    if (col == DVG) {                        /* z as bf16(z) + bf16(z - bf16(z)) */
                        hi = __bfloat162float(__float2bfloat16_rn(S[m][j].d[i]));
                        lo = S[m][j].d[i] - hi;
                    }
                    *reinterpret_cast<__nv_bfloat162 *>(s_next + (d0 + lane / 4 + 8 * kf::acc_row_half(i)) * V_LD +
                                                        gcol + col) = __floats2bfloat162_rn(hi, lo);
                }
        }

        if (more) {
            if (VEC) stage<DP>(nxt.q, nxt.k, nxt.v, next, c0 + C, L, D);
            else stage_scalar<DP>(nxt.q, nxt.k, nxt.v, Q, K, V, head, c0 + C, L, D, dv0);
        }
        __syncthreads();
    }
}

/* ---- fast path: shapes named once ---- */
constexpr int WG_D = kf::SWIZZLE_BYTES / 2;                  /* d (and value) columns of a swizzled tile */
constexpr int WG_STAGES = 3;                                 /* chunks in the ring */
constexpr int WG_TILE_BYTES = C * kf::SWIZZLE_BYTES;         /* one 64 x 64 bf16 tile: a chunk of q, k or v; S */
constexpr int WG_STAGE_BYTES = 3 * WG_TILE_BYTES;            /* q, k, v */
constexpr int WG_NARROW = 8;                                 /* width of the normaliser products */
constexpr int WG_NARROW_BYTES = WG_NARROW * kf::SWIZZLE_BYTES;
constexpr int WG_STEPS = C / kf::WG_K;                       /* k steps over 64 tokens or 64 d */
constexpr int WG_K_STEP_BYTES = kf::WG_K * 2;                /* next 16 columns of a K-major tile */
constexpr int WG_ROW_STEP_BYTES = kf::WG_K * kf::SWIZZLE_BYTES;   /* next 16 rows of an MN-major tile */
constexpr int WG_THREADS = 2 * kf::WARPGROUP;                /* the math warpgroup, then the one that feeds it */
constexpr int WG_FEED_REGS = 64, WG_MATH_REGS = 192;         /* setmaxnreg budgets: 2 blocks x 128 x 256 = 64K */
constexpr int WG_MATH_BARRIER = 1;                           /* the math warpgroup's own barrier */
static_assert(C == kf::WG_M && C == WG_D, "a chunk is one wgmma row block and one swizzled tile");

/* Shared memory, 1024-byte aligned tiles: the ring of chunks; S (bf16, [d][value]) and Z (rows: z high, z low, then
 * zeros; [8][d]) double-buffered; the ones row that sums over tokens; o of a chunk on its way out, double-buffered;
 * the ring's barriers (landed, phi applied). */
struct wg_smem {
    static constexpr int BYTES = kf::SWIZZLE_ATOM_BYTES /* alignment slack */ + WG_STAGES * WG_STAGE_BYTES +
                                 2 * WG_TILE_BYTES + 3 * WG_NARROW_BYTES + 2 * WG_TILE_BYTES +
                                 2 * WG_STAGES * (int)sizeof(uint64_t);
    uint8_t *ring, *s, *z, *ones, *o;
    uint64_t *full, *ready;
    __device__ explicit wg_smem(uint8_t *raw) {
        /* aligned by an offset from raw, not through an integer, so the compiler still sees shared memory */
        ring = raw + (kf::SWIZZLE_ATOM_BYTES - kf::smem_addr(raw) % kf::SWIZZLE_ATOM_BYTES) % kf::SWIZZLE_ATOM_BYTES;
        s = ring + WG_STAGES * WG_STAGE_BYTES;
        z = s + 2 * WG_TILE_BYTES;
        ones = z + 2 * WG_NARROW_BYTES;
        o = ones + WG_NARROW_BYTES;
        full = reinterpret_cast<uint64_t *>(o + 2 * WG_TILE_BYTES);
        ready = full + WG_STAGES;
    }
    __device__ uint8_t *q_at(int stage) const { return ring + stage * WG_STAGE_BYTES; }
    __device__ uint8_t *k_at(int stage) const { return q_at(stage) + WG_TILE_BYTES; }
    __device__ uint8_t *v_at(int stage) const { return q_at(stage) + 2 * WG_TILE_BYTES; }
    __device__ uint8_t *s_at(int buf) const { return s + buf * WG_TILE_BYTES; }
    __device__ uint8_t *z_at(int buf) const { return z + buf * WG_NARROW_BYTES; }
    __device__ uint8_t *o_at(int buf) const { return o + buf * WG_TILE_BYTES; }
};

/* Byte offset of element (row, col) in a 128-byte-swizzled tile of 64-column rows. */
__device__ __forceinline__ int swizzled(int row, int col) {
    return kf::swizzle128(row, col / kf::BF16_PER_VEC) + col % kf::BF16_PER_VEC * (int)sizeof(__nv_bfloat16);
}

/* Phase parity of a ring barrier for the chunk's use of its stage. */
__device__ __forceinline__ int wg_parity(int chunk) { return chunk / WG_STAGES % 2; }

__device__ __forceinline__ void wg_fetch(const wg_smem &sm, const CUtensorMap *mq, const CUtensorMap *mk,
                                         const CUtensorMap *mv, int chunk, int head) {
    const int stage = chunk % WG_STAGES;
    kf::mbar_arrive_expect_bytes(&sm.full[stage], WG_STAGE_BYTES);
    kf::tma_load_3d(sm.q_at(stage), mq, &sm.full[stage], head, chunk * C, 0);
    kf::tma_load_3d(sm.k_at(stage), mk, &sm.full[stage], head, chunk * C, 0);
    kf::tma_load_3d(sm.v_at(stage), mv, &sm.full[stage], head, chunk * C, 0);
}

/* The feeding warpgroup: phi over each landed chunk's q and k in place (rows past L and columns past D, zero-filled
 * by the copy, become 0, since phi(0) = 1 would count), handed over on `ready`. */
__device__ void wg_feed(const wg_smem &sm, int chunks, int L, int D) {
    constexpr int VECS = WG_TILE_BYTES / kf::VEC_BYTES, ROW_VECS = kf::SWIZZLE_BYTES / kf::VEC_BYTES;
    const int t = threadIdx.x % kf::WARPGROUP;
    for (int c = 0; c < chunks; ++c) {
        const int stage = c % WG_STAGES;
        kf::mbar_wait(&sm.full[stage], wg_parity(c));
#pragma unroll
        for (int j = 0; j < 2 * VECS / kf::WARPGROUP; ++j) {
            const int i = t + j * kf::WARPGROUP, v = i % VECS, row = v / ROW_VECS;
            const int col = (v % ROW_VECS ^ row % 8) * kf::BF16_PER_VEC;
            uint4 *p = reinterpret_cast<uint4 *>((i < VECS ? sm.q_at(stage) : sm.k_at(stage)) + v * kf::VEC_BYTES);
            *p = phi_vec(*p, c * C + row < L && col < D);
        }
        kf::fence_proxy_async();
        kf::mbar_arrive(&sm.ready[stage]);
    }
}

/* The math warpgroup: per chunk, with S and z from the chunks before it,
 *   A = phi(Q) phi(K)^T masked causally, N = phi(Q) S + A V, normaliser = phi(Q) z + A 1, o = N / normaliser,
 *   S += phi(K)^T V, z += phi(K)^T 1;
 * its first thread also fetches the chunks, each into the stage the chunk three before it has just left, and sends
 * o out. */
__device__ void wg_math(const wg_smem &sm, const CUtensorMap *mq, const CUtensorMap *mk, const CUtensorMap *mv,
                        const CUtensorMap *mo, int head, int chunks) {
    const int lane = threadIdx.x % kf::WARP, warp = threadIdx.x / kf::WARP;
    if (threadIdx.x == 0)
        for (int c = 0; c < min(chunks, WG_STAGES); ++c) wg_fetch(sm, mq, mk, mv, c, head);
    /* S = 0 and z = 0 in the first buffers, the rows of zeros of both Z buffers, the ones row */
    for (int i = threadIdx.x; i < (WG_TILE_BYTES + 3 * WG_NARROW_BYTES) / 4; i += kf::WARPGROUP) {
        const int at = 4 * i, in_ones = at - WG_TILE_BYTES - 2 * WG_NARROW_BYTES;
        const bf16 one = __float2bfloat16(in_ones >= 0 && in_ones < kf::SWIZZLE_BYTES ? 1.0f : 0.0f);
        uint8_t *dst = at < WG_TILE_BYTES ? sm.s_at(0) + at : sm.z + (at - WG_TILE_BYTES);
        *reinterpret_cast<__nv_bfloat162 *>(dst) = __nv_bfloat162(one, one);
    }
    kf::fence_proxy_async();
    kf::warpgroup_sync(WG_MATH_BARRIER);

    kf::rt_wg<C> S, A, N;             /* the state (rows d); this chunk's scores; the numerator (rows: queries) */
    kf::rt_wg<WG_NARROW> Sz, Nz;      /* column 0: z (rows d); the normaliser's parts (rows: queries) */
    kf::zero(S);
    kf::zero(Sz);
    const int row0 = 16 * warp + lane / 4;           /* of this thread's rows in the chunk: row0, row0 + 8 */
    for (int c = 0; c < chunks; ++c) {
        const int stage = c % WG_STAGES;
        const uint8_t *q = sm.q_at(stage), *k = sm.k_at(stage), *v = sm.v_at(stage);
        const uint8_t *s_cur = sm.s_at(c % 2), *z_cur = sm.z_at(c % 2);
        kf::mbar_wait(&sm.ready[stage], wg_parity(c));
        kf::wgmma_fence();
#pragma unroll
        for (int kd = 0; kd < WG_STEPS; ++kd) {
            const uint64_t qd = kf::desc_k_major(q + kd * WG_K_STEP_BYTES);
            kf::wgmma<kf::WG_B_K_MAJOR>(A, qd, kf::desc_k_major(k + kd * WG_K_STEP_BYTES), kd > 0);
            kf::wgmma<kf::WG_B_MN_MAJOR>(N, qd, kf::desc_mn_major(s_cur + kd * WG_ROW_STEP_BYTES, WG_TILE_BYTES),
                                         kd > 0);
            kf::wgmma<kf::WG_B_K_MAJOR>(Nz, qd, kf::desc_k_major(z_cur + kd * WG_K_STEP_BYTES), kd > 0);
        }
        kf::wgmma_commit();
#pragma unroll
        for (int kt = 0; kt < WG_STEPS; ++kt) {
            const uint64_t kt_desc = kf::desc_mn_major(k + kt * WG_ROW_STEP_BYTES, WG_TILE_BYTES);
            kf::wgmma<kf::WG_B_MN_MAJOR, C, kf::WG_A_MN_MAJOR>(
                S, kt_desc, kf::desc_mn_major(v + kt * WG_ROW_STEP_BYTES, WG_TILE_BYTES), 1);
            kf::wgmma<kf::WG_B_K_MAJOR, WG_NARROW, kf::WG_A_MN_MAJOR>(
                Sz, kt_desc, kf::desc_k_major(sm.ones + kt * WG_K_STEP_BYTES), 1);
        }
        kf::wgmma_commit();

        kf::wgmma_wait<1>();
#pragma unroll
        for (int i = 0; i < kf::WG_M * C / kf::WARPGROUP; ++i)
            if (kf::acc_col(i) > row0 + 8 * kf::acc_row_half(i)) A.d[i] = 0.0f;
        kf::rt_wg_a P[WG_STEPS];
#pragma unroll
        for (int kt = 0; kt < WG_STEPS; ++kt) kf::to_a(P[kt], A, kt);
        kf::wgmma_fence();
#pragma unroll
        for (int kt = 0; kt < WG_STEPS; ++kt) {
            kf::wgmma<kf::WG_B_MN_MAJOR>(N, P[kt], kf::desc_mn_major(v + kt * WG_ROW_STEP_BYTES, WG_TILE_BYTES), 1);
            kf::wgmma<kf::WG_B_K_MAJOR>(Nz, P[kt], kf::desc_k_major(sm.ones + kt * WG_K_STEP_BYTES), 1);
        }
        kf::wgmma_commit();
        kf::wgmma_wait<0>();

        /* o = N / (z high + z low + row sum of P), the normaliser's columns 0 and 1 */
        float inv[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const float total = kf::quad_reduce<kf::op_sum>(Nz.d[2 * r] + Nz.d[2 * r + 1]);
            inv[r] = total > 0.0f ? 1.0f / total : 0.0f;
        }
        uint8_t *o = sm.o_at(c % 2);                 /* the copy engine clips rows past L, columns past D */
#pragma unroll
        for (int i = 0; i < kf::WG_M * C / kf::WARPGROUP; i += 2) {
            const int row = row0 + 8 * kf::acc_row_half(i);
            const float f = inv[kf::acc_row_half(i)];
            *reinterpret_cast<__nv_bfloat162 *>(o + swizzled(row, kf::acc_col(i))) =
                __floats2bfloat162_rn(N.d[i] * f, N.d[i + 1] * f);
        }
        /* the state after this chunk, for the next: S in bf16, z as bf16(z) + bf16(z - bf16(z)) */
        uint8_t *s_next = sm.s_at((c + 1) % 2), *z_next = sm.z_at((c + 1) % 2);
#pragma unroll
        for (int i = 0; i < kf::WG_M * C / kf::WARPGROUP; i += 2) {
            const int row = row0 + 8 * kf::acc_row_half(i);
            *reinterpret_cast<__nv_bfloat162 *>(s_next + swizzled(row, kf::acc_col(i))) =
                __floats2bfloat162_rn(S.d[i], S.d[i + 1]);
        }
        if (lane % kf::QUAD == 0)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int d = row0 + 8 * r;
                const bf16 hi = __float2bfloat16_rn(Sz.d[2 * r]);
                reinterpret_cast<bf16 *>(z_next + swizzled(0, d))[0] = hi;
                reinterpret_cast<bf16 *>(z_next + swizzled(1, d))[0] =
                    __float2bfloat16_rn(Sz.d[2 * r] - __bfloat162float(hi));
            }
        kf::fence_proxy_async();
        if (threadIdx.x == 0) kf::tma_store_wait_read<0>();   /* the previous chunk's o has left its buffer */
        kf::warpgroup_sync(WG_MATH_BARRIER);         /* o, S and z are in place; every warp is done with the stage */
        if (threadIdx.x == 0) {
            kf::tma_store_3d(mo, o, head, c * C, 0);
            kf::tma_store_commit();
            if (c + WG_STAGES < chunks) wg_fetch(sm, mq, mk, mv, c + WG_STAGES, head);
        }
    }
    if (threadIdx.x == 0) kf::tma_store_wait_read<0>();
}

__global__ void __launch_bounds__(WG_THREADS, 2)
linear_attn_wgmma(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, const __grid_constant__ CUtensorMap map_o, int L, int D) {
    extern __shared__ uint8_t smem_raw[];
    const wg_smem sm(smem_raw);
    const int head = blockIdx.x, chunks = (int)kf::ceil_div(L, C);
    if (threadIdx.x == 0) {
        for (int s = 0; s < WG_STAGES; ++s) {
            kf::mbar_init(&sm.full[s], 1);
            kf::mbar_init(&sm.ready[s], kf::WARPGROUP);
        }
        kf::mbar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x >= kf::WARPGROUP) {
        kf::warpgroup_regs_dec<WG_FEED_REGS>();
        wg_feed(sm, chunks, L, D);
        return;
    }
    kf::warpgroup_regs_inc<WG_MATH_REGS>();
    wg_math(sm, &map_q, &map_k, &map_v, &map_o, head, chunks);
}

/* [BH][L][D] in boxes of 64 rows x 64 columns of one head (columns past D read as zero, and are not written). */
inline bool wg_map(CUtensorMap *dst, const bf16 *base, int BH, int L, int D) {
    return kf::make_tensor_map_bf16_batched(dst, base, BH, L, D, D, (long long)L * D, C, WG_D);
}

/* False where the fast path does not apply or could not start (the caller falls back). */
bool launch_wgmma(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O, int BH, int L, int D, cudaStream_t stream) {
    if (D > WG_D || D % kf::BF16_PER_VEC || !kf::is_aligned(Q, kf::TMA_STRIDE_ALIGN) ||
        !kf::is_aligned(K, kf::TMA_STRIDE_ALIGN) || !kf::is_aligned(V, kf::TMA_STRIDE_ALIGN) ||
        !kf::is_aligned(O, kf::TMA_STRIDE_ALIGN))
        return false;
    CUtensorMap mq, mk, mv, mo;
    if (!wg_map(&mq, Q, BH, L, D) || !wg_map(&mk, K, BH, L, D) || !wg_map(&mv, V, BH, L, D) ||
        !wg_map(&mo, O, BH, L, D))
        return false;
    if (cudaFuncSetAttribute(linear_attn_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, wg_smem::BYTES) !=
        cudaSuccess)
        return false;
    linear_attn_wgmma<<<(unsigned)BH, WG_THREADS, wg_smem::BYTES, stream>>>(mq, mk, mv, mo, L, D);
    return true;
}

template <int DP, bool VEC>
int launch(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O, int BH, int L, int D, cudaStream_t stream) {
    const cudaError_t e = cudaFuncSetAttribute(linear_attn<DP, VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               smem<DP>::BYTES);
    if (e != cudaSuccess) return (int)e;
    const dim3 grid((unsigned)kf::ceil_div(D, DVB), (unsigned)BH);
    linear_attn<DP, VEC><<<grid, THREADS, smem<DP>::BYTES, stream>>>(Q, K, V, O, L, D);
    return kf::launch_status();
}

template <int DP>
int launch(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O, int BH, int L, int D, cudaStream_t stream) {
    const bool vec = D % kf::BF16_PER_VEC == 0 && kf::is_aligned(Q, kf::VEC_BYTES) && kf::is_aligned(K, kf::VEC_BYTES) &&
                     kf::is_aligned(V, kf::VEC_BYTES) && kf::is_aligned(O, sizeof(__nv_bfloat162));
    return vec ? launch<DP, true>(Q, K, V, O, BH, L, D, stream) : launch<DP, false>(Q, K, V, O, BH, L, D, stream);
}

} /* namespace */

extern "C" int kf_launch(const bf16 *q, const bf16 *k, const bf16 *v, bf16 *o, int BH, int L, int D,
                         cudaStream_t stream) {
    if (kf::bad_shape(BH, L, D) || D > MAX_D) return (int)cudaErrorInvalidValue;
    if (BH == 0 || L == 0 || D == 0) return 0;
    if (launch_wgmma(q, k, v, o, BH, L, D, stream)) return kf::launch_status();
    return D <= 64 ? launch<64>(q, k, v, o, BH, L, D, stream) : launch<MAX_D>(q, k, v, o, BH, L, D, stream);
}
