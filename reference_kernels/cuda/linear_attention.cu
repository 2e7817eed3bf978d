/* Reference kernel for linear_attention: o_t = sum_{s<=t} (phi(q_t).phi(k_s)) v_s / sum_{s<=t} phi(q_t).phi(k_s),
 * phi = elu + 1, bf16 [BH, L, D]. Chunks of 64 tokens: masked intra-chunk attention plus the running state
 * S = sum phi(k)^T v (fp32 registers, bf16 in shared memory); an extra column of ones in V makes the same mma products
 * give the normaliser (z as a bf16 high/low pair). One block per (bh, 64 value columns), two groups of four mma.sync
 * warps; chunks serial, double-buffered, one barrier each. */
#include "tile/mma.cuh"
#include "tile/vec.cuh"

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

__device__ __forceinline__ float phi(float x) { return x > 0.0f ? x + 1.0f : __expf(x); }

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
    return D <= 64 ? launch<64>(q, k, v, o, BH, L, D, stream) : launch<MAX_D>(q, k, v, o, BH, L, D, stream);
}
