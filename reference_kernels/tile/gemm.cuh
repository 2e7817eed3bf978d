/* The GEMM of the reference kernels: C = epilogue(prologue(A) @ B), bf16 in and out, fp32 accumulation, batched; B is
 * [K][N] (B_KN) or [N][K] (B_NK); OPS (gemm_op bits) adds RMS statistics and a K gain on A, scales, bias, SwiGLU,
 * GELU or a residual. Fast path (sm_90a; K and B's pitch multiples of 8, aligned operands): TMA ring (the K gain
 * copied with each stage), one producer, two wgmma consumer warpgroups that also run the prologue. Any shape: mma.sync
 * tiles (gemm_mma). Kernels live in an unnamed namespace, so each reference that includes this owns its copies. */
#pragma once
#include "mma.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace kf {

enum b_layout { B_KN, B_NK };   /* B stored [K][N] (row-major B), or [N][K] (C = A @ Bᵀ) */

enum gemm_op : unsigned {
    GEMM_ROW_RMS = 1u << 0,      /* out *= 1 / sqrt(mean_k A[m,k]^2 + eps), from A as given */
    GEMM_K_GAIN = 1u << 1,       /* A[m,k] * gain[k], rounded to bf16, is what gets multiplied (the RMSNorm gain) */
    GEMM_DUAL = 1u << 2,         /* out = silu(A B) * (A B2); B_KN only */
    GEMM_ROW_SCALE = 1u << 3,    /* out *= row_scale[m] */
    GEMM_COL_SCALE = 1u << 4,    /* out *= col_scale[n] */
    GEMM_BIAS = 1u << 5,         /* out += bias[n] */
    GEMM_GELU = 1u << 6,         /* out = gelu(out), erf form */
    GEMM_RESIDUAL = 1u << 7,     /* out += residual[m, n]; residual may alias C (read before written, same thread) */
};

__host__ __device__ constexpr bool gemm_has_prologue(unsigned ops) { return (ops & (GEMM_ROW_RMS | GEMM_K_GAIN)) != 0; }

/* Matrix b of a batch starts b*M*K (A), b*(rows of B)*ldb (B), b*M*N (C, residual) elements after matrix 0. */
struct gemm_args {
    const __nv_bfloat16 *A;        /* [M][K], row pitch K */
    const __nv_bfloat16 *B, *B2;   /* rows ldb apart; B2 only with GEMM_DUAL */
    __nv_bfloat16 *C;              /* [M][N], row pitch N */
    int M, N, K;
    int ldb;                       /* B's row pitch; 0: N for B_KN, K for B_NK */
    const __nv_bfloat16 *gain, *bias, *residual;
    const float *row_scale, *col_scale;
    float eps;
    bool pairs;                    /* C (and the residual) take 4-byte bf16 pairs: set by the launchers */
};

/* The product every GEMM task starts from, C[M,N] = A[M,K] B; callers add B's pitch, B2 and the fused operands. */
inline gemm_args gemm_problem(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K) {
    gemm_args g = {};
    g.A = A;
    g.B = B;
    g.C = C;
    g.M = M;
    g.N = N;
    g.K = K;
    return g;
}

__device__ __forceinline__ float gelu_erf(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
__device__ __forceinline__ float silu(float x) { return x / (1.0f + __expf(-x)); }

/* Everything after the product for one element; residual is read by the caller (a pair at a time). */
template <unsigned OPS>
__device__ __forceinline__ float epilogue_value(const gemm_args &g, long long r, long long c, float v, float up,
                                                float rstd, float residual) {
    if (OPS & GEMM_ROW_RMS) { v *= rstd; up *= rstd; }
    if (OPS & GEMM_ROW_SCALE) v *= g.row_scale[r];
    if (OPS & GEMM_COL_SCALE) v *= g.col_scale[c];
    if (OPS & GEMM_BIAS) v += __bfloat162float(g.bias[c]);
    if (OPS & GEMM_DUAL) v = silu(v) * up;
    if (OPS & GEMM_GELU) v = gelu_erf(v);
    if (OPS & GEMM_RESIDUAL) v += residual;
    return v;
}

/* Columns c and c+1 of row r of the matrix starting `base` elements into C (u: the up-projection values with
 * GEMM_DUAL); what lies outside C is skipped. */
template <unsigned OPS>
__device__ __forceinline__ void epilogue_pair(const gemm_args &g, long long base, long long r, long long c, float v0,
                                              float v1, float u0, float u1, float rstd) {
    if (r >= g.M || c >= g.N) return;
    const long long at = base + r * g.N + c;
    __nv_bfloat16 *dst = g.C + at;
    const bool both = c + 1 < g.N;
    float2 res = make_float2(0.0f, 0.0f);
    if (OPS & GEMM_RESIDUAL) {
        if (both && g.pairs) res = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(g.residual + at));
        else res = make_float2(__bfloat162float(g.residual[at]), both ? __bfloat162float(g.residual[at + 1]) : 0.0f);
    }
    const float o0 = epilogue_value<OPS>(g, r, c, v0, u0, rstd, res.x);
    if (!both) { dst[0] = __float2bfloat16_rn(o0); return; }
    const float o1 = epilogue_value<OPS>(g, r, c + 1, v1, u1, rstd, res.y);
    if (g.pairs) {
        *reinterpret_cast<__nv_bfloat162 *>(dst) = __floats2bfloat162_rn(o0, o1);
    } else {
        dst[0] = __float2bfloat16_rn(o0);
        dst[1] = __float2bfloat16_rn(o1);
    }
}

__host__ __device__ inline long long gemm_b_rows(b_layout L, const gemm_args &g) { return L == B_KN ? g.K : g.N; }

/* Fills the default pitch; false for a shape no kernel can take. */
inline bool gemm_normalize(b_layout L, gemm_args &g, long long batch) {
    if (bad_shape(g.M, g.N, g.K) || batch < 0) return false;
    const int min_ldb = L == B_KN ? g.N : g.K;
    if (g.ldb == 0) g.ldb = min_ldb;
    if (g.ldb < min_ldb) return false;
    g.pairs = g.N % 2 == 0 && is_aligned(g.C, sizeof(__nv_bfloat162)) &&
              (!g.residual || is_aligned(g.residual, sizeof(__nv_bfloat162)));
    return true;
}

namespace {

constexpr int GEMM_MAX_GRID_Y = 65535;   /* matrices per launch; a larger batch takes further launches */

/* ---- fast path: shapes named once ---- */
constexpr int GW_BM = 128, GW_BN = 256, GW_BK = 64;          /* block tile; GW_BK * 2 bytes = one swizzled row */
constexpr int GW_STAGES = 4;
constexpr int GW_CONSUMERS = GW_BM / WG_M;                   /* consumer warpgroups, one 64-row slice each */
constexpr int GW_THREADS = (GW_CONSUMERS + 1) * WARPGROUP;   /* + the producer warpgroup */
constexpr int GW_CHUNK_COLS = SWIZZLE_BYTES / 2;             /* widest swizzled box of bf16 */
constexpr int GW_CHUNKS = GW_BN / GW_CHUNK_COLS;             /* B_KN: the B tile as 64-column chunks */
constexpr int GW_A_STAGE_BYTES = GW_BM * GW_BK * 2;
constexpr int GW_B_STAGE_BYTES = GW_BK * GW_BN * 2;
constexpr int GW_CHUNK_BYTES = GW_B_STAGE_BYTES / GW_CHUNKS;
constexpr int GW_STAGE_BYTES = GW_A_STAGE_BYTES + GW_B_STAGE_BYTES;
constexpr int GW_SMEM_BYTES = SWIZZLE_ATOM_BYTES /* alignment slack */ + GW_STAGES * GW_STAGE_BYTES +
                              2 * GW_STAGES * (int)sizeof(uint64_t);
constexpr int GW_GAIN_STAGE_BYTES = GW_BK * 2;               /* GEMM_K_GAIN: a stage's gains, after the ring */
constexpr int GW_PRODUCER_REGS = 40, GW_CONSUMER_REGS = 232;  /* setmaxnreg budgets: 128*40 + 256*232 <= 64K */
constexpr int GW_K_STEPS = GW_BK / WG_K;
constexpr int GW_K_STEP_BYTES = WG_K * 2;                    /* K-major: the next 16 columns of a row */
constexpr int GW_MN_K_STEP_BYTES = WG_K * SWIZZLE_BYTES;     /* MN-major: the next 16 rows of a chunk */
constexpr int GW_A_SLICE_BYTES = WG_M * GW_BK * 2;           /* one consumer's 64 rows of the A stage */
constexpr int GW_RMS_PARTS = GW_A_SLICE_BYTES / (WARPGROUP * VEC_BYTES);   /* 16-byte pieces per thread and stage */
constexpr int GW_RMS_ROW_LANES = SWIZZLE_BYTES / VEC_BYTES;     /* lanes whose pieces make one row */
constexpr int GW_GROUP_M = 16;   /* block tiles walk down 16 M tiles per N tile: concurrent blocks share B in L2 */

template <unsigned OPS> __host__ __device__ constexpr int gw_out_cols() { return (OPS & GEMM_DUAL) ? GW_BN / 2 : GW_BN; }
template <unsigned OPS> __host__ __device__ constexpr int gw_gain_bytes() {
    return (OPS & GEMM_K_GAIN) ? GW_STAGES * GW_GAIN_STAGE_BYTES : 0;
}
template <unsigned OPS> constexpr int gw_smem_bytes() { return GW_SMEM_BYTES + gw_gain_bytes<OPS>(); }

/* Block tile order within a matrix: groups of GW_GROUP_M M tiles, walked down M first within a group. */
__device__ __forceinline__ void gw_tile(int tile, int m_tiles, int n_tiles, int &mt, int &nt) {
    const int per_group = GW_GROUP_M * n_tiles, first = tile / per_group * GW_GROUP_M;
    const int rows = min(m_tiles - first, GW_GROUP_M), in_group = tile % per_group;
    mt = first + in_group % rows;
    nt = in_group / rows;
}

struct gw_ring {
    uint8_t *tiles;                /* GW_STAGES x (A tile, B tile), 1024-byte aligned */
    const uint32_t *gains;         /* GEMM_K_GAIN: GW_STAGES x the stage's gains, as bf16 pairs */
    uint64_t *full, *empty;        /* full: TMA bytes landed; empty: both consumers done reading */
    __device__ uint8_t *a(int s) const { return tiles + s * GW_STAGE_BYTES; }
    __device__ uint8_t *b(int s) const { return a(s) + GW_A_STAGE_BYTES; }
    __device__ const uint32_t *gain(int s) const { return gains + s * (GW_GAIN_STAGE_BYTES / 4); }
};

/* dst (shared) <- `bytes` of global src by the copy engine, both 16-byte aligned, bytes a multiple of 16; completes
 * on bar. */
__device__ __forceinline__ void gw_bulk_load(const void *dst, const void *src, uint32_t bytes, uint64_t *bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                 ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar)) : "memory");
}

template <b_layout L, unsigned OPS>
__device__ void gw_produce(const gw_ring &ring, const CUtensorMap *map_a, const CUtensorMap *map_b,
                           const CUtensorMap *map_b2, const gemm_args &g, int batch, int m0, int n0, int k_tiles) {
    constexpr int PER_B = (OPS & GEMM_DUAL) ? GW_CHUNKS / 2 : GW_CHUNKS;
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % GW_STAGES;
        if (kt >= GW_STAGES) mbar_wait(&ring.empty[s], (kt / GW_STAGES - 1) % 2);
        int gain_bytes = 0;   /* the gains of the stage's columns inside K (K % 8 == 0: whole 16-byte pieces) */
        if (OPS & GEMM_K_GAIN) gain_bytes = min(GW_BK, g.K - kt * GW_BK) * 2;
        mbar_arrive_expect_bytes(&ring.full[s], GW_STAGE_BYTES + gain_bytes);
        if (gain_bytes > 0) gw_bulk_load(ring.gain(s), g.gain + kt * GW_BK, gain_bytes, &ring.full[s]);
        tma_load_3d(ring.a(s), map_a, &ring.full[s], batch, m0, kt * GW_BK);
        if (L == B_NK) {
            tma_load_3d(ring.b(s), map_b, &ring.full[s], batch, n0, kt * GW_BK);
        } else {
            for (int c = 0; c < GW_CHUNKS; ++c)
                tma_load_3d(ring.b(s) + c * GW_CHUNK_BYTES, c < PER_B ? map_b : map_b2, &ring.full[s], batch,
                            kt * GW_BK, n0 + (c % PER_B) * GW_CHUNK_COLS);
        }
    }
}

template <b_layout L>
__device__ __forceinline__ uint64_t gw_desc_b(const gw_ring &ring, int s, int ks) {
    return L == B_NK ? desc_k_major(ring.b(s) + ks * GW_K_STEP_BYTES)
                     : desc_mn_major(ring.b(s) + ks * GW_MN_K_STEP_BYTES, GW_CHUNK_BYTES);
}

__host__ __device__ constexpr int gw_b_major(b_layout L) { return L == B_NK ? WG_B_K_MAJOR : WG_B_MN_MAJOR; }

/* GEMM_K_GAIN on one k step's A operand in registers: squares of the values as given into ss[0..1]
 * (GEMM_ROW_RMS; rows lane/4 and lane/4 + 8 of the warp's 16), then the gain (gain_pair[h]: columns 8h + 2*(lane%4),
 * +1 of the step). */
template <unsigned OPS>
__device__ __forceinline__ void gw_gain(rt_wg_a &a, const uint32_t (&gain_pair)[2], float (&ss)[GW_RMS_PARTS]) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        __nv_bfloat162 *v = reinterpret_cast<__nv_bfloat162 *>(&a.r[j]);
        if (OPS & GEMM_ROW_RMS) {
            const float2 x = __bfloat1622float2(*v);
            ss[j % 2] = fmaf(x.x, x.x, fmaf(x.y, x.y, ss[j % 2]));
        }
        *v = __hmul2(*v, *reinterpret_cast<const __nv_bfloat162 *>(&gain_pair[j / 2]));
    }
}

/* GEMM_ROW_RMS without a gain: sums of squares straight from the A slice the wgmmas read, each warp over its own
 * 16 rows (2 KB), lane l taking the 16-byte pieces l + 32j (rows lane/8 + 4j of the warp's, whatever the swizzle put
 * where); fixed offsets of the stage, so the wgmma pipeline is left alone. gw_row_rstd gathers them by shuffles
 * (shared-memory traffic in that window makes ptxas serialise the wgmmas). */
__device__ __forceinline__ void gw_row_squares(const uint8_t *a_tile, float (&ss)[GW_RMS_PARTS]) {
    const int lane = threadIdx.x % WARP, warp = (threadIdx.x / WARP) % (WARPGROUP / WARP);
    const uint8_t *mine = a_tile + warp * TILE * SWIZZLE_BYTES + lane * VEC_BYTES;
#pragma unroll
    for (int j = 0; j < GW_RMS_PARTS; ++j) {
        const uint4 raw = *reinterpret_cast<const uint4 *>(mine + j * WARP * VEC_BYTES);
        const __nv_bfloat162 *pairs = reinterpret_cast<const __nv_bfloat162 *>(&raw);
#pragma unroll
        for (int e = 0; e < VEC_BYTES / 4; ++e) {
            const float2 x = __bfloat1622float2(pairs[e]);
            ss[j] = fmaf(x.x, x.x, fmaf(x.y, x.y, ss[j]));
        }
    }
}

/* rstd of the thread's accumulator rows g = lane/4 and g + 8 from gw_row_squares' partials: row R of the warp's 16
 * sits in part R/4 of lanes 8*(R%4) .. +7. */
__device__ __forceinline__ void gw_row_rstd(float (&rstd)[2], float (&ss)[GW_RMS_PARTS], const gemm_args &g) {
    const int g4 = threadIdx.x % WARP / QUAD;
#pragma unroll
    for (int j = 0; j < GW_RMS_PARTS; ++j)
#pragma unroll
        for (int offset = 1; offset < GW_RMS_ROW_LANES; offset *= 2) ss[j] += __shfl_xor_sync(FULL_MASK, ss[j], offset);
    const int src = GW_RMS_ROW_LANES * (g4 % 4);
    float part[GW_RMS_PARTS];
#pragma unroll
    for (int j = 0; j < GW_RMS_PARTS; ++j) part[j] = __shfl_sync(FULL_MASK, ss[j], src);
#pragma unroll
    for (int h = 0; h < 2; ++h) rstd[h] = rsqrtf((g4 < 4 ? part[2 * h] : part[2 * h + 1]) / (float)g.K + g.eps);
}

/* GEMM_K_GAIN, stage kt of one consumer warpgroup: A through registers (set a, whose last reader, stage kt - 2, has
 * completed), squared and scaled by the stage's gains, then the register-A wgmmas as one commit group. The gains came
 * with the stage (gw_produce), so nothing between the barrier and the wgmmas waits on global memory. The wait leaves
 * this group in flight while the next stage is prepared, as on the shared-memory path. */
template <b_layout L, unsigned OPS>
__device__ __forceinline__ void gw_gain_stage(rt_wg<GW_BN> &acc, rt_wg_a (&a)[GW_K_STEPS], float (&ss)[GW_RMS_PARTS],
                                              const gw_ring &ring, const gemm_args &g, int slice, int kt) {
    const int s = kt % GW_STAGES;
    const uint8_t *a_tile = ring.a(s) + slice * GW_A_SLICE_BYTES;
    uint32_t gain_pairs[GW_K_STEPS][2] = {};
    mbar_wait(&ring.full[s], (kt / GW_STAGES) % 2);
#pragma unroll
    for (int ks = 0; ks < GW_K_STEPS; ++ks)
#pragma unroll
        for (int h = 0; h < 2; ++h) {   /* nothing was copied past K: A is zero there, but 0 * (stale inf) is not */
            const int col = ks * WG_K + 8 * h + 2 * (threadIdx.x % QUAD);
            gain_pairs[ks][h] = kt * GW_BK + col < g.K ? ring.gain(s)[col / 2] : 0u;
        }
#pragma unroll
    for (int ks = 0; ks < GW_K_STEPS; ++ks) {
        load_a(a[ks], a_tile, ks);
        gw_gain<OPS>(a[ks], gain_pairs[ks], ss);
    }
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < GW_K_STEPS; ++ks) wgmma<gw_b_major(L)>(acc, a[ks], gw_desc_b<L>(ring, s, ks), 1);
    wgmma_commit();
    wgmma_wait<1>();
    if (kt > 0 && threadIdx.x % WARP == 0) mbar_arrive(&ring.empty[(kt - 1) % GW_STAGES]);
}

/* One consumer warpgroup: one stage's wgmmas stay in flight while the next stage's are issued. With GEMM_K_GAIN the
 * stages alternate between two register sets; the loop takes them in pairs so that each set is a fixed set of
 * registers, and the last stage of an odd count comes after the loop (a conditional second stage inside it makes
 * ptxas serialise the wgmmas, warning C7513). */
template <b_layout L, unsigned OPS>
__device__ void gw_consume(rt_wg<GW_BN> &acc, float (&ss)[GW_RMS_PARTS], const gw_ring &ring, const gemm_args &g,
                           int slice, int k_tiles) {
    if constexpr ((OPS & GEMM_K_GAIN) != 0) {
        rt_wg_a even[GW_K_STEPS], odd[GW_K_STEPS];
        int kt = 0;
        for (; kt + 1 < k_tiles; kt += 2) {
            gw_gain_stage<L, OPS>(acc, even, ss, ring, g, slice, kt);
            gw_gain_stage<L, OPS>(acc, odd, ss, ring, g, slice, kt + 1);
        }
        if (kt < k_tiles) gw_gain_stage<L, OPS>(acc, even, ss, ring, g, slice, kt);
        wgmma_wait<0>();
        return;
    }
    const bool warp_leader = threadIdx.x % WARP == 0;
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % GW_STAGES;
        const uint8_t *a_tile = ring.a(s) + slice * GW_A_SLICE_BYTES;
        mbar_wait(&ring.full[s], (kt / GW_STAGES) % 2);
        if (OPS & GEMM_ROW_RMS) gw_row_squares(a_tile, ss);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < GW_K_STEPS; ++ks)
            wgmma<gw_b_major(L)>(acc, desc_k_major(a_tile + ks * GW_K_STEP_BYTES), gw_desc_b<L>(ring, s, ks), 1);
        wgmma_commit();
        wgmma_wait<1>();
        if (kt > 0 && warp_leader) mbar_arrive(&ring.empty[(kt - 1) % GW_STAGES]);
    }
    wgmma_wait<0>();
}

/* Register d[i] of the 64x256 accumulator holds row 16*warp + lane/4 + 8*((i/2)%2), column 8*(i/4) + 2*(lane%4) + i%2;
 * with GEMM_DUAL, columns 128.. (registers 64..) are the up projection of columns 0... rstd: the thread's two rows. */
template <unsigned OPS>
__device__ void gw_store(const gemm_args &g, const rt_wg<GW_BN> &acc, const float (&rstd)[2], long long base, int row0,
                         int col0) {
    const int lane = threadIdx.x % WARP, warp = (threadIdx.x / WARP) % (WARPGROUP / WARP);
    constexpr int COLS_REGS = (OPS & GEMM_DUAL) ? WG_M * GW_BN / WARPGROUP / 2 : WG_M * GW_BN / WARPGROUP;
#pragma unroll
    for (int i = 0; i < COLS_REGS; i += 2) {
        const int half = acc_row_half(i);
        const long long r = row0 + 16 * warp + lane / 4 + 8 * half, c = col0 + 8 * (i / 4) + 2 * (lane % 4);
        if (OPS & GEMM_DUAL)
            epilogue_pair<OPS>(g, base, r, c, acc.d[i], acc.d[i + 1], acc.d[i + COLS_REGS], acc.d[i + 1 + COLS_REGS],
                               rstd[half]);
        else
            epilogue_pair<OPS>(g, base, r, c, acc.d[i], acc.d[i + 1], 0.0f, 0.0f, rstd[half]);
    }
}

/* blockIdx.x: output tile of a matrix (gw_tile order); batch0 + blockIdx.y: matrix of the batch. */
template <b_layout L, unsigned OPS>
__global__ void __launch_bounds__(GW_THREADS, 1)
gemm_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                  const __grid_constant__ CUtensorMap map_b2, const gemm_args g, int batch0) {
    extern __shared__ uint8_t smem_raw[];
    const uintptr_t atom = SWIZZLE_ATOM_BYTES;
    gw_ring ring;
    ring.tiles = reinterpret_cast<uint8_t *>(((uintptr_t)smem_raw + atom - 1) & ~(atom - 1));
    ring.gains = reinterpret_cast<const uint32_t *>(ring.tiles + GW_STAGES * GW_STAGE_BYTES);
    ring.full = reinterpret_cast<uint64_t *>(ring.tiles + GW_STAGES * GW_STAGE_BYTES + gw_gain_bytes<OPS>());
    ring.empty = ring.full + GW_STAGES;

    const int warpgroup = threadIdx.x / WARPGROUP, batch = batch0 + (int)blockIdx.y;
    int mt, nt;
    gw_tile(blockIdx.x, (int)ceil_div(g.M, GW_BM), (int)ceil_div(g.N, gw_out_cols<OPS>()), mt, nt);
    const int m0 = mt * GW_BM, n0 = nt * gw_out_cols<OPS>();
    const int k_tiles = (int)ceil_div(g.K, GW_BK);
    if (threadIdx.x == 0) {
        for (int s = 0; s < GW_STAGES; ++s) {
            mbar_init(&ring.full[s], 1);
            mbar_init(&ring.empty[s], GW_CONSUMERS * WARPGROUP / WARP);
        }
        mbar_init_fence();
    }
    __syncthreads();

    if (warpgroup == GW_CONSUMERS) {
        warpgroup_regs_dec<GW_PRODUCER_REGS>();
        if (threadIdx.x == GW_CONSUMERS * WARPGROUP)
            gw_produce<L, OPS>(ring, &map_a, &map_b, &map_b2, g, batch, m0, n0, k_tiles);
        return;
    }
    warpgroup_regs_inc<GW_CONSUMER_REGS>();
    rt_wg<GW_BN> acc;
    zero(acc);
    wgmma_fence_operand(acc);
    float ss[GW_RMS_PARTS] = {}, rstd[2] = {1.0f, 1.0f};
    gw_consume<L, OPS>(acc, ss, ring, g, warpgroup, k_tiles);
    wgmma_fence_operand(acc);
    if ((OPS & GEMM_ROW_RMS) && (OPS & GEMM_K_GAIN)) {
#pragma unroll
        for (int h = 0; h < 2; ++h) rstd[h] = rsqrtf(quad_reduce<op_sum>(ss[h]) / (float)g.K + g.eps);
    } else if (OPS & GEMM_ROW_RMS) {
        gw_row_rstd(rstd, ss, g);
    }
    gw_store<OPS>(g, acc, rstd, (long long)batch * g.M * g.N, m0 + warpgroup * WG_M, n0);
}

template <b_layout L, unsigned OPS>
bool gemm_wgmma_fits(const gemm_args &g) {
    const int per_pitch = TMA_STRIDE_ALIGN / 2;
    bool ok = g.K > 0 && g.K % per_pitch == 0 && g.ldb % per_pitch == 0 && is_aligned(g.A, TMA_STRIDE_ALIGN) &&
              is_aligned(g.B, TMA_STRIDE_ALIGN);
    if (OPS & GEMM_DUAL) ok = ok && L == B_KN && is_aligned(g.B2, TMA_STRIDE_ALIGN);
    if (OPS & GEMM_K_GAIN) ok = ok && is_aligned(g.gain, VEC_BYTES);
    return ok;
}

/* A tensor map over B (or B2): boxes of GW_BK x 64 columns (B_KN) or GW_BN rows x GW_BK (B_NK). */
template <b_layout L>
bool gw_map_b(CUtensorMap *dst, const __nv_bfloat16 *b, const gemm_args &g, long long batch) {
    const long long rows = gemm_b_rows(L, g), cols = L == B_KN ? g.N : g.K;
    return L == B_KN ? make_tensor_map_bf16_batched(dst, b, batch, rows, cols, g.ldb, rows * g.ldb, GW_BK, GW_CHUNK_COLS)
                     : make_tensor_map_bf16_batched(dst, b, batch, rows, cols, g.ldb, rows * g.ldb, GW_BN, GW_BK);
}

template <b_layout L, unsigned OPS>
bool gemm_wgmma_launch(const gemm_args &g, long long batch, cudaStream_t stream) {
    CUtensorMap map_a, map_b, map_b2;
    if (!make_tensor_map_bf16_batched(&map_a, g.A, batch, g.M, g.K, g.K, (long long)g.M * g.K, GW_BM, GW_BK) ||
        !gw_map_b<L>(&map_b, g.B, g, batch))
        return false;
    map_b2 = map_b;
    if ((OPS & GEMM_DUAL) && !gw_map_b<L>(&map_b2, g.B2, g, batch)) return false;
    if (cudaFuncSetAttribute(gemm_wgmma_kernel<L, OPS>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             gw_smem_bytes<OPS>()) != cudaSuccess)
        return false;
    const unsigned tiles = (unsigned)(ceil_div(g.N, gw_out_cols<OPS>()) * ceil_div(g.M, GW_BM));
    for (long long b0 = 0; b0 < batch; b0 += GEMM_MAX_GRID_Y) {
        const unsigned nb = (unsigned)(batch - b0 < GEMM_MAX_GRID_Y ? batch - b0 : GEMM_MAX_GRID_Y);
        gemm_wgmma_kernel<L, OPS><<<dim3(tiles, nb), GW_THREADS, gw_smem_bytes<OPS>(), stream>>>(map_a, map_b, map_b2,
                                                                                                g, (int)b0);
    }
    return true;
}

/* ---- any shape: mma.sync on 128x128x32 block tiles, eight warps of 64x32 ---- */
constexpr int GM_BM = 128, GM_BN = 128, GM_BK = 32;
constexpr int GM_THREADS = 256;
constexpr int GM_WARPS_N = 4, GM_WARP_M = 64, GM_WARP_N = 32;   /* warps 2 x 4 over the block tile */
constexpr int GM_TM = GM_WARP_M / TILE, GM_TN = GM_WARP_N / TILE;   /* 16x16 register tiles per warp */
constexpr int GM_PAD = 8;                                        /* keeps rows 16-byte aligned and ldmatrix conflict-free */
constexpr int GM_VEC = VEC_BYTES / 2;
constexpr int GM_A_PITCH = GM_BK + GM_PAD, GM_C_PITCH = GM_BN + GM_PAD;

template <unsigned OPS> __host__ __device__ constexpr int gm_b_count() { return (OPS & GEMM_DUAL) ? 2 : 1; }
template <unsigned OPS> constexpr int gm_min_blocks() { return (OPS & GEMM_DUAL) ? 1 : 2; }   /* two fit the registers */

/* Shared tile shapes: A is GM_BM x GM_BK; B is GM_BK x GM_BN (B_KN) or GM_BN x GM_BK (B_NK). */
template <b_layout L> struct gm_b_tile {
    static constexpr int ROWS = L == B_KN ? GM_BK : GM_BN, COLS = L == B_KN ? GM_BN : GM_BK;
};

template <b_layout L, int NB> union gm_smem {
    struct {
        __nv_bfloat16 a[GM_BM][GM_A_PITCH];
        __nv_bfloat16 b[NB][gm_b_tile<L>::ROWS][gm_b_tile<L>::COLS + GM_PAD];
    } op;
    __nv_bfloat16 c[GM_BM][GM_C_PITCH];   /* the finished tile, after the last operand read */
};

template <int ROWS, int COLS> struct gm_vectors { static constexpr int PER_THREAD = ROWS * COLS / GM_VEC / GM_THREADS; };

/* Row and first column of vector v of a ROWS x COLS tile. */
template <int COLS> __device__ __forceinline__ int gm_vec_row(int v) { return v / (COLS / GM_VEC); }
template <int COLS> __device__ __forceinline__ int gm_vec_col(int v) { return v % (COLS / GM_VEC) * GM_VEC; }

/* The thread's share of a ROWS x COLS tile at (r0, c0) of a rows x cols matrix with row pitch ld, zeros outside. */
template <bool VEC_LOADS, int ROWS, int COLS>
__device__ __forceinline__ void gm_fetch(uint4 (&dst)[gm_vectors<ROWS, COLS>::PER_THREAD], const __nv_bfloat16 *src,
                                         long long rows, long long cols, long long ld, long long r0, long long c0) {
#pragma unroll
    for (int i = 0; i < gm_vectors<ROWS, COLS>::PER_THREAD; ++i) {
        const int v = threadIdx.x + i * GM_THREADS;
        const long long r = r0 + gm_vec_row<COLS>(v), c = c0 + gm_vec_col<COLS>(v);
        if (VEC_LOADS) {
            dst[i] = r < rows && c < cols ? __ldg(reinterpret_cast<const uint4 *>(src + r * ld + c))
                                          : make_uint4(0, 0, 0, 0);
        } else {
            __nv_bfloat16 *e = reinterpret_cast<__nv_bfloat16 *>(&dst[i]);
#pragma unroll
            for (int k = 0; k < GM_VEC; ++k)
                e[k] = r < rows && c + k < cols ? src[r * ld + c + k] : __float2bfloat16(0.0f);
        }
    }
}

/* GEMM_K_GAIN on the thread's A vectors of the slice starting at column k0. */
__device__ __forceinline__ void gm_gain(uint4 (&a)[gm_vectors<GM_BM, GM_BK>::PER_THREAD], const gemm_args &g,
                                        long long k0) {
#pragma unroll
    for (int i = 0; i < gm_vectors<GM_BM, GM_BK>::PER_THREAD; ++i) {
        const long long c = k0 + gm_vec_col<GM_BK>(threadIdx.x + i * GM_THREADS);
        __nv_bfloat16 *e = reinterpret_cast<__nv_bfloat16 *>(&a[i]);
#pragma unroll
        for (int k = 0; k < GM_VEC; ++k)
            if (c + k < g.K) e[k] = __hmul(e[k], g.gain[c + k]);
    }
}

template <int ROWS, int COLS, int PITCH>
__device__ __forceinline__ void gm_put(__nv_bfloat16 (*dst)[PITCH], const uint4 (&src)[gm_vectors<ROWS, COLS>::PER_THREAD]) {
#pragma unroll
    for (int i = 0; i < gm_vectors<ROWS, COLS>::PER_THREAD; ++i) {
        const int v = threadIdx.x + i * GM_THREADS;
        *reinterpret_cast<uint4 *>(&dst[gm_vec_row<COLS>(v)][gm_vec_col<COLS>(v)]) = src[i];
    }
}

template <b_layout L, int NB>
__device__ __forceinline__ void gm_mma_slice(rt_acc (&acc)[NB][GM_TM][GM_TN], const gm_smem<L, NB> &s, int wm, int wn) {
    constexpr int B_LD = gm_b_tile<L>::COLS + GM_PAD;
#pragma unroll
    for (int kk = 0; kk < GM_BK; kk += TILE) {
        rt_a a[GM_TM];
#pragma unroll
        for (int i = 0; i < GM_TM; ++i) load(a[i], &s.op.a[wm + i * TILE][kk], GM_A_PITCH);
#pragma unroll
        for (int o = 0; o < NB; ++o) {
            rt_b b[GM_TN];
#pragma unroll
            for (int j = 0; j < GM_TN; ++j) {
                if (L == B_KN) load(b[j], &s.op.b[o][kk][wn + j * TILE], B_LD);
                else load_nk(b[j], &s.op.b[o][wn + j * TILE][kk], B_LD);
            }
#pragma unroll
            for (int i = 0; i < GM_TM; ++i)
#pragma unroll
                for (int j = 0; j < GM_TN; ++j) mma_ab(acc[o][i][j], a[i], b[j]);
        }
    }
}

/* The epilogue into s.c, rounded to bf16; rt_acc register e holds row lane/4 + 8*((e/2)%2), column
 * 8*(e/4) + 2*(lane%4) + e%2 of its 16x16 tile. */
template <b_layout L, unsigned OPS, int NB>
__device__ __forceinline__ void gm_stage_tile(gm_smem<L, NB> &s, const rt_acc (&acc)[NB][GM_TM][GM_TN],
                                              const float *rstd, const gemm_args &g, long long base, long long m0,
                                              long long n0, int wm, int wn) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int i = 0; i < GM_TM; ++i)
#pragma unroll
        for (int j = 0; j < GM_TN; ++j)
#pragma unroll
            for (int e = 0; e < 8; e += 2) {
                const int r = wm + i * TILE + lane / 4 + 8 * acc_row_half(e), c = wn + j * TILE + acc_col(e);
                float v0 = acc[0][i][j].d[e], v1 = acc[0][i][j].d[e + 1];
                if (OPS != 0) {
                    const long long gr = m0 + r, gc = n0 + c;
                    float res0 = 0.0f, res1 = 0.0f;
                    if ((OPS & GEMM_RESIDUAL) && gr < g.M) {
                        if (gc < g.N) res0 = __bfloat162float(g.residual[base + gr * g.N + gc]);
                        if (gc + 1 < g.N) res1 = __bfloat162float(g.residual[base + gr * g.N + gc + 1]);
                    }
                    const rt_acc &up = acc[NB - 1][i][j];
                    const float rs = (OPS & GEMM_ROW_RMS) ? rstd[r] : 1.0f;
                    v0 = gr < g.M && gc < g.N ? epilogue_value<OPS>(g, gr, gc, v0, up.d[e], rs, res0) : 0.0f;
                    v1 = gr < g.M && gc + 1 < g.N ? epilogue_value<OPS>(g, gr, gc + 1, v1, up.d[e + 1], rs, res1) : 0.0f;
                }
                *reinterpret_cast<__nv_bfloat162 *>(&s.c[r][c]) = __floats2bfloat162_rn(v0, v1);
            }
}

template <b_layout L, int NB>
__device__ __forceinline__ void gm_write_tile(__nv_bfloat16 *C, const gm_smem<L, NB> &s, long long m0, long long n0,
                                              int M, int N, bool vec_store) {
#pragma unroll
    for (int i = 0; i < GM_BM * GM_BN / GM_VEC / GM_THREADS; ++i) {
        const int v = threadIdx.x + i * GM_THREADS, r = gm_vec_row<GM_BN>(v), c = gm_vec_col<GM_BN>(v);
        if (m0 + r >= M) continue;
        __nv_bfloat16 *dst = C + (m0 + r) * N + n0 + c;
        if (vec_store && n0 + c < N) {
            *reinterpret_cast<uint4 *>(dst) = *reinterpret_cast<const uint4 *>(&s.c[r][c]);
        } else if (!vec_store) {
#pragma unroll
            for (int k = 0; k < GM_VEC; ++k)
                if (n0 + c + k < N) dst[k] = s.c[r][c + k];
        }
    }
}

/* rstd of the block's rows from A as given, one warp per row at a time. */
__device__ __forceinline__ void gm_row_rms(float *rstd, const __nv_bfloat16 *A, const gemm_args &g, long long m0) {
    const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    for (int i = warp; i < GM_BM; i += GM_THREADS / WARP) {
        const long long r = m0 + i;
        float ss = 0.0f;
        for (int k = lane; r < g.M && k < g.K; k += WARP) {
            const float x = __bfloat162float(A[r * g.K + k]);
            ss = fmaf(x, x, ss);
        }
        warp_reduce<op_sum>(ss, ss);
        if (lane == 0) rstd[i] = rsqrtf(ss / (float)g.K + g.eps);
    }
}

/* blockIdx.x: output tile (row-major over tiles_n columns of tiles); batch0 + blockIdx.y: matrix of the batch. */
template <b_layout L, unsigned OPS, bool VEC_LOADS>
__global__ void __launch_bounds__(GM_THREADS, gm_min_blocks<OPS>())
gemm_mma_kernel(const gemm_args g, int tiles_n, int batch0, bool vec_store) {
    constexpr int NB = gm_b_count<OPS>(), BR = gm_b_tile<L>::ROWS, BC = gm_b_tile<L>::COLS;
    __shared__ __align__(16) gm_smem<L, NB> s;
    __shared__ float rstd[(OPS & GEMM_ROW_RMS) ? GM_BM : 1];
    const long long batch = batch0 + (long long)blockIdx.y, b_rows = gemm_b_rows(L, g);
    const __nv_bfloat16 *A = g.A + batch * g.M * g.K;
    const __nv_bfloat16 *Bs[NB];
#pragma unroll
    for (int o = 0; o < NB; ++o) Bs[o] = (o == 0 ? g.B : g.B2) + batch * b_rows * g.ldb;
    const long long m0 = (long long)(blockIdx.x / tiles_n) * GM_BM, n0 = (long long)(blockIdx.x % tiles_n) * GM_BN;
    const int warp = threadIdx.x / WARP, wm = (warp / GM_WARPS_N) * GM_WARP_M, wn = (warp % GM_WARPS_N) * GM_WARP_N;
    if (OPS & GEMM_ROW_RMS) gm_row_rms(rstd, A, g, m0);   /* read after the main loop's barriers */

    rt_acc acc[NB][GM_TM][GM_TN];
#pragma unroll
    for (int o = 0; o < NB; ++o)
#pragma unroll
        for (int i = 0; i < GM_TM; ++i)
#pragma unroll
            for (int j = 0; j < GM_TN; ++j) zero(acc[o][i][j]);

    uint4 a_next[gm_vectors<GM_BM, GM_BK>::PER_THREAD], b_next[NB][gm_vectors<BR, BC>::PER_THREAD];
    auto fetch_slice = [&](long long k0) {
        gm_fetch<VEC_LOADS, GM_BM, GM_BK>(a_next, A, g.M, g.K, g.K, m0, k0);
        if (OPS & GEMM_K_GAIN) gm_gain(a_next, g, k0);
#pragma unroll
        for (int o = 0; o < NB; ++o) {
            if (L == B_KN) gm_fetch<VEC_LOADS, BR, BC>(b_next[o], Bs[o], g.K, g.N, g.ldb, k0, n0);
            else gm_fetch<VEC_LOADS, BR, BC>(b_next[o], Bs[o], g.N, g.K, g.ldb, n0, k0);
        }
    };
    if (g.K > 0) fetch_slice(0);
    for (long long k0 = 0; k0 < g.K; k0 += GM_BK) {
        __syncthreads();                   /* everyone is done reading the previous slice */
        gm_put<GM_BM, GM_BK, GM_A_PITCH>(s.op.a, a_next);
#pragma unroll
        for (int o = 0; o < NB; ++o) gm_put<BR, BC, BC + GM_PAD>(s.op.b[o], b_next[o]);
        __syncthreads();
        if (k0 + GM_BK < g.K) fetch_slice(k0 + GM_BK);   /* in flight while the tensor cores work */
        gm_mma_slice<L, NB>(acc, s, wm, wn);
    }
    __syncthreads();
    const long long base = batch * g.M * g.N;
    gm_stage_tile<L, OPS, NB>(s, acc, rstd, g, base, m0, n0, wm, wn);
    __syncthreads();
    gm_write_tile<L, NB>(g.C + base, s, m0, n0, g.M, g.N, vec_store);
}

template <b_layout L, unsigned OPS>
void gemm_mma_launch(const gemm_args &g, long long batch, cudaStream_t stream) {
    bool vec_loads = g.K % GM_VEC == 0 && g.ldb % GM_VEC == 0 && (L == B_NK || g.N % GM_VEC == 0) &&
                     is_aligned(g.A, VEC_BYTES) && is_aligned(g.B, VEC_BYTES);
    if (OPS & GEMM_DUAL) vec_loads = vec_loads && is_aligned(g.B2, VEC_BYTES);
    const bool vec_store = g.N % GM_VEC == 0 && is_aligned(g.C, VEC_BYTES);
    const int tiles_n = (int)ceil_div(g.N, GM_BN);
    const unsigned tiles = (unsigned)(ceil_div(g.M, GM_BM) * tiles_n);
    for (long long b0 = 0; b0 < batch; b0 += GEMM_MAX_GRID_Y) {
        const dim3 grid(tiles, (unsigned)(batch - b0 < GEMM_MAX_GRID_Y ? batch - b0 : GEMM_MAX_GRID_Y));
        if (vec_loads) gemm_mma_kernel<L, OPS, true><<<grid, GM_THREADS, 0, stream>>>(g, tiles_n, (int)b0, vec_store);
        else gemm_mma_kernel<L, OPS, false><<<grid, GM_THREADS, 0, stream>>>(g, tiles_n, (int)b0, vec_store);
    }
}

/* Enqueues the whole batched product on the mma.sync path; returns 0 or the CUDA error the launches left. */
template <b_layout L = B_KN, unsigned OPS = 0>
int gemm_mma(gemm_args g, long long batch, cudaStream_t stream) {
    if (!gemm_normalize(L, g, batch)) return (int)cudaErrorInvalidValue;
    if (g.M == 0 || g.N == 0 || batch == 0) return 0;
    gemm_mma_launch<L, OPS>(g, batch, stream);
    return launch_status();
}

/* Enqueues the whole batched product: the TMA + wgmma path where the shape and pointers allow, mma.sync otherwise. */
template <b_layout L = B_KN, unsigned OPS = 0>
int gemm(gemm_args g, long long batch, cudaStream_t stream) {
    static_assert(!(OPS & GEMM_DUAL) || L == B_KN, "GEMM_DUAL reads B and B2 as [K][N]");
    if (!gemm_normalize(L, g, batch)) return (int)cudaErrorInvalidValue;
    if (g.M == 0 || g.N == 0 || batch == 0) return 0;
    if (gemm_wgmma_fits<L, OPS>(g) && gemm_wgmma_launch<L, OPS>(g, batch, stream)) return launch_status();
    gemm_mma_launch<L, OPS>(g, batch, stream);
    return launch_status();
}

} /* namespace */
} /* namespace kf */
