/* GEMM with fused prologue and epilogue, C = epilogue(prologue(A) @ B) in bf16 with fp32 accumulation, for the
 * level-2/3 tasks that are a matrix product plus elementwise work; OPS (gemm_op bits) picks RMSNorm statistics and a
 * K gain on A, row/column scales, bias, SwiGLU over two B operands, GELU, residual. Fast path: TMA 4-stage ring, one
 * producer warpgroup (TMA issuer + prologue helper warps), two wgmma consumer warpgroups; any other shape: mma.sync
 * 64x64 tiles. Kernels live in an unnamed namespace, so each reference that includes this owns its copies. */
#pragma once
#include "mma.cuh"
#include "reduce.cuh"
#include "tma_strided.cuh"
#include "wgmma.cuh"

namespace kf {

enum gemm_op : unsigned {
    GEMM_ROW_RMS = 1u << 0,      /* out *= 1 / sqrt(mean_k A[m,k]^2 + eps), from A as given */
    GEMM_K_GAIN = 1u << 1,       /* A[m,k] * gain[k], rounded to bf16, is what gets multiplied (the RMSNorm gain) */
    GEMM_DUAL = 1u << 2,         /* out = silu(A B) * (A B2) */
    GEMM_ROW_SCALE = 1u << 3,    /* out *= row_scale[m] */
    GEMM_COL_SCALE = 1u << 4,    /* out *= col_scale[n] */
    GEMM_BIAS = 1u << 5,         /* out += bias[n] */
    GEMM_GELU = 1u << 6,         /* out = gelu(out), erf form */
    GEMM_RESIDUAL = 1u << 7,     /* out += residual[m, n]; residual may alias C (read before written, same thread) */
};

struct gemm_args {
    const __nv_bfloat16 *A;        /* [M][K], row pitch K */
    const __nv_bfloat16 *B, *B2;   /* [K][N], row pitch ldb; B2 only with GEMM_DUAL */
    __nv_bfloat16 *C;              /* [M][N], row pitch N */
    int M, N, K, ldb;
    const __nv_bfloat16 *gain, *bias, *residual;
    const float *row_scale, *col_scale;
    float eps;
    bool c_pairs;                  /* C takes 4-byte bf16 pairs (set by gemm_fused) */
};

__device__ __forceinline__ float gelu_erf(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
__device__ __forceinline__ float silu(float x) { return x / (1.0f + __expf(-x)); }

template <unsigned OPS>
__device__ __forceinline__ float epilogue_value(const gemm_args &g, long long r, long long c, float v, float up,
                                                float rstd) {
    if (OPS & GEMM_ROW_RMS) { v *= rstd; up *= rstd; }
    if (OPS & GEMM_ROW_SCALE) v *= g.row_scale[r];
    if (OPS & GEMM_COL_SCALE) v *= g.col_scale[c];
    if (OPS & GEMM_BIAS) v += __bfloat162float(g.bias[c]);
    if (OPS & GEMM_DUAL) v = silu(v) * up;
    if (OPS & GEMM_GELU) v = gelu_erf(v);
    if (OPS & GEMM_RESIDUAL) v += __bfloat162float(g.residual[r * g.N + c]);
    return v;
}

/* Columns c and c+1 of row r (u: the up-projection values with GEMM_DUAL); what lies outside C is skipped. */
template <unsigned OPS>
__device__ __forceinline__ void epilogue_pair(const gemm_args &g, long long r, long long c, float v0, float v1,
                                              float u0, float u1, float rstd) {
    if (r >= g.M || c >= g.N) return;
    __nv_bfloat16 *dst = g.C + r * g.N + c;
    const float o0 = epilogue_value<OPS>(g, r, c, v0, u0, rstd);
    if (c + 1 >= g.N) { dst[0] = __float2bfloat16_rn(o0); return; }
    const float o1 = epilogue_value<OPS>(g, r, c + 1, v1, u1, rstd);
    if (g.c_pairs) {
        *reinterpret_cast<__nv_bfloat162 *>(dst) = __floats2bfloat162_rn(o0, o1);
    } else {
        dst[0] = __float2bfloat16_rn(o0);
        dst[1] = __float2bfloat16_rn(o1);
    }
}

__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
template <int ID, int THREADS> __device__ __forceinline__ void named_barrier() {
    asm volatile("bar.sync %0, %1;\n" ::"n"(ID), "n"(THREADS) : "memory");
}

namespace {

/* ---- fast path: shapes named once ---- */
constexpr int GF_BM = 128, GF_BN = 256, GF_BK = 64;          /* block tile; GF_BK * 2 bytes = one swizzled row */
constexpr int GF_STAGES = 4;
constexpr int GF_CONSUMERS = GF_BM / WG_M;
constexpr int GF_THREADS = (GF_CONSUMERS + 1) * WARPGROUP;
constexpr int GF_CHUNK_COLS = SWIZZLE_BYTES / 2;             /* widest swizzled TMA box of bf16 */
constexpr int GF_CHUNKS = GF_BN / GF_CHUNK_COLS;
constexpr int GF_A_STAGE_BYTES = GF_BM * GF_BK * 2;
constexpr int GF_CHUNK_BYTES = GF_BK * GF_CHUNK_COLS * 2;
constexpr int GF_STAGE_BYTES = GF_A_STAGE_BYTES + GF_CHUNKS * GF_CHUNK_BYTES;
constexpr int GF_SMEM_BYTES = SWIZZLE_ATOM_BYTES /* alignment slack */ + GF_STAGES * GF_STAGE_BYTES +
                              3 * GF_STAGES * (int)sizeof(uint64_t) + GF_BM * (int)sizeof(float);
constexpr int GF_PRODUCER_REGS = 56, GF_CONSUMER_REGS = 224;  /* 128*56 + 256*224 <= 64K */
constexpr int GF_A_K_STEP_BYTES = WG_K * 2;                  /* next 16 columns of a K-major row */
constexpr int GF_B_K_STEP_BYTES = WG_K * SWIZZLE_BYTES;      /* next 16 rows of an MN-major chunk */
constexpr int GF_A_SLICE_BYTES = WG_M * GF_BK * 2;           /* one consumer's 64 rows of the A stage */
constexpr int GF_HELPER_WARP0 = 1, GF_HELPER_WARPS = 2;      /* producer-warpgroup warps: 0 issues TMA, 1-2 run the */
constexpr int GF_HELPER_THREADS = GF_HELPER_WARPS * WARP;    /* prologue on the A stages */
constexpr int GF_RSTD_BARRIER = 1;                           /* named barrier: rstd written -> consumers' epilogue */
constexpr int GF_RSTD_THREADS = GF_CONSUMERS * WARPGROUP + GF_HELPER_THREADS;
constexpr int GF_GROUP_M = 16;   /* block tiles walk down 16 M tiles per N tile: concurrent blocks share B in L2 */

#define GF_HAS_PROLOGUE(OPS) (((OPS) & (GEMM_ROW_RMS | GEMM_K_GAIN)) != 0)

/* Block tile order: groups of GF_GROUP_M M tiles, walked down M first within a group. */
__device__ __forceinline__ void gf_tile(int tile, int m_tiles, int n_tiles, int &mt, int &nt) {
    const int per_group = GF_GROUP_M * n_tiles, first = tile / per_group * GF_GROUP_M;
    const int rows = min(m_tiles - first, GF_GROUP_M), in_group = tile % per_group;
    mt = first + in_group % rows;
    nt = in_group / rows;
}

struct gf_ring {
    uint8_t *tiles;
    uint64_t *full, *empty, *ready;  /* ready: A stage scaled by the gain (GEMM_K_GAIN) */
    float *rstd;                   /* GF_BM rows of the block */
    __device__ uint8_t *a(int s) const { return tiles + s * GF_STAGE_BYTES; }
    __device__ uint8_t *b(int s, int chunk) const { return a(s) + GF_A_STAGE_BYTES + chunk * GF_CHUNK_BYTES; }
};

template <unsigned OPS>
__device__ void gf_produce(const gf_ring &ring, const CUtensorMap *map_a, const CUtensorMap *map_b,
                           const CUtensorMap *map_b2, int m0, int n0, int k_tiles) {
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % GF_STAGES;
        if (kt >= GF_STAGES) mbar_wait(&ring.empty[s], (kt / GF_STAGES - 1) % 2);
        mbar_arrive_expect_bytes(&ring.full[s], GF_STAGE_BYTES);
        tma_load(ring.a(s), map_a, &ring.full[s], m0, kt * GF_BK);
        for (int c = 0; c < GF_CHUNKS; ++c) {
            if (OPS & GEMM_DUAL) {
                const int half = GF_CHUNKS / 2;
                tma_load(ring.b(s, c), c < half ? map_b : map_b2, &ring.full[s], kt * GF_BK,
                         n0 + (c % half) * GF_CHUNK_COLS);
            } else {
                tma_load(ring.b(s, c), map_b, &ring.full[s], kt * GF_BK, n0 + c * GF_CHUNK_COLS);
            }
        }
    }
}

/* Prologue helpers (GF_HELPER_WARPS of the producer warpgroup, besides the TMA issuer), so the consumers' loop
 * stays the plain wgmma pipeline. Helper thread t owns logical 16-byte piece t % 8 (k columns 8*(t % 8) ..) of rows
 * t/8 + 8i of each A stage; the 128-byte swizzle puts that piece at the same physical slot in all of them, and a
 * warp's 32 accesses cover four whole rows (no bank conflicts). Per stage: sums of squares of the pieces (GEMM_ROW_RMS)
 * and the gain applied in place (GEMM_K_GAIN, then fenced for the tensor cores and announced on ready[s]); one
 * arrival per warp on empty[s]. At the end the row sums meet across the 8 threads of a row, rstd goes to shared memory
 * and the helpers arrive on the named barrier the consumers wait on before their epilogue. */
template <unsigned OPS>
__device__ void gf_prologue(const gemm_args &g, const gf_ring &ring, int k_tiles) {
    constexpr int PIECES = SWIZZLE_BYTES / VEC_BYTES, ROWS = GF_BM / (GF_HELPER_THREADS / PIECES);
    const int t = (int)threadIdx.x % WARPGROUP - GF_HELPER_WARP0 * WARP;
    const int piece = t % PIECES, row0 = t / PIECES, slot = piece ^ (row0 % PIECES);
    float ss[ROWS] = {};
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % GF_STAGES, k = kt * GF_BK + piece * (VEC_BYTES / 2);
        const bool scale = (OPS & GEMM_K_GAIN) && k < g.K;     /* pieces past K are TMA zero fill */
        uint4 gain_raw = make_uint4(0, 0, 0, 0);
        if (scale) gain_raw = __ldg(reinterpret_cast<const uint4 *>(g.gain + k));
        const __nv_bfloat162 *gain = reinterpret_cast<const __nv_bfloat162 *>(&gain_raw);
        mbar_wait(&ring.full[s], (kt / GF_STAGES) % 2);
#pragma unroll   /* whole, so ss[] stays in registers */
        for (int i = 0; i < ROWS; ++i) {
            uint4 *q = reinterpret_cast<uint4 *>(ring.a(s) + (row0 + i * (GF_HELPER_THREADS / PIECES)) * SWIZZLE_BYTES +
                                                 slot * VEC_BYTES);
            uint4 raw = *q;
            __nv_bfloat162 *pairs = reinterpret_cast<__nv_bfloat162 *>(&raw);
#pragma unroll
            for (int e = 0; e < VEC_BYTES / 4; ++e) {
                if (OPS & GEMM_ROW_RMS) {
                    const float2 x = __bfloat1622float2(pairs[e]);
                    ss[i] += x.x * x.x + x.y * x.y;
                }
                if (OPS & GEMM_K_GAIN) pairs[e] = __hmul2(pairs[e], gain[e]);
            }
            if (scale) *q = raw;
        }
        if (OPS & GEMM_K_GAIN) {
            fence_proxy_async();   /* the tensor cores read these tiles through the async proxy */
            mbar_arrive(&ring.ready[s]);
        }
        __syncwarp();
        if (t % WARP == 0) mbar_arrive(&ring.empty[s]);
    }
    if (OPS & GEMM_ROW_RMS) {
#pragma unroll
        for (int i = 0; i < ROWS; ++i) {
#pragma unroll
            for (int offset = 1; offset < PIECES; offset *= 2) ss[i] += __shfl_xor_sync(FULL_MASK, ss[i], offset);
            if (piece == 0) ring.rstd[row0 + i * (GF_HELPER_THREADS / PIECES)] = rsqrtf(ss[i] / (float)g.K + g.eps);
        }
        asm volatile("bar.arrive %0, %1;\n" ::"n"(GF_RSTD_BARRIER), "n"(GF_RSTD_THREADS) : "memory");
    }
}

template <unsigned OPS>
__device__ void gf_consume(rt_wg_acc &acc, const gf_ring &ring, int slice, int k_tiles) {
    const bool warp_leader = threadIdx.x % WARP == 0;
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % GF_STAGES;
        mbar_wait(&ring.full[s], (kt / GF_STAGES) % 2);
        if (OPS & GEMM_K_GAIN) mbar_wait(&ring.ready[s], (kt / GF_STAGES) % 2);
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < GF_BK / WG_K; ++k)
            wgmma_ab(acc, desc_k_major(ring.a(s) + slice * GF_A_SLICE_BYTES + k * GF_A_K_STEP_BYTES),
                     desc_mn_major(ring.b(s, 0) + k * GF_B_K_STEP_BYTES, GF_CHUNK_BYTES));
        wgmma_commit();
        wgmma_wait<1>();
        if (kt > 0 && warp_leader) mbar_arrive(&ring.empty[(kt - 1) % GF_STAGES]);
    }
    wgmma_wait<0>();
}

/* Register d[i] of the 64x256 accumulator holds row 16*warp + lane/4 + 8*((i/2)%2), column 8*(i/4) + 2*(lane%4) + i%2;
 * with GEMM_DUAL, columns 128.. (registers 64..) are the up projection of columns 0... */
template <unsigned OPS>
__device__ void gf_store(const gemm_args &g, const rt_wg_acc &acc, const float *rstd, int row0, int col0) {
    const int lane = threadIdx.x % WARP, warp = (threadIdx.x / WARP) % (WARPGROUP / WARP);
    constexpr int COLS_REGS = (OPS & GEMM_DUAL) ? WG_ACC_REGS / 2 : WG_ACC_REGS;
#pragma unroll
    for (int i = 0; i < COLS_REGS; i += 2) {
        const int r_local = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
        const long long r = row0 + r_local, c = col0 + 8 * (i / 4) + 2 * (lane % 4);
        const float rs = (OPS & GEMM_ROW_RMS) ? rstd[r_local] : 1.0f;
        if (OPS & GEMM_DUAL)
            epilogue_pair<OPS>(g, r, c, acc.d[i], acc.d[i + 1], acc.d[i + COLS_REGS], acc.d[i + 1 + COLS_REGS], rs);
        else
            epilogue_pair<OPS>(g, r, c, acc.d[i], acc.d[i + 1], 0.0f, 0.0f, rs);
    }
}

template <unsigned OPS>
__global__ void __launch_bounds__(GF_THREADS, 1)
gemm_fused_wgmma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 const __grid_constant__ CUtensorMap map_b2, const gemm_args g) {
    extern __shared__ uint8_t smem_raw[];
    const uintptr_t atom = SWIZZLE_ATOM_BYTES;
    gf_ring ring;
    ring.tiles = reinterpret_cast<uint8_t *>(((uintptr_t)smem_raw + atom - 1) & ~(atom - 1));
    ring.full = reinterpret_cast<uint64_t *>(ring.tiles + GF_STAGES * GF_STAGE_BYTES);
    ring.empty = ring.full + GF_STAGES;
    ring.ready = ring.empty + GF_STAGES;
    ring.rstd = reinterpret_cast<float *>(ring.ready + GF_STAGES);

    constexpr int out_cols = (OPS & GEMM_DUAL) ? GF_BN / 2 : GF_BN;
    const int warpgroup = threadIdx.x / WARPGROUP;
    int mt, nt;
    gf_tile(blockIdx.x, (int)ceil_div(g.M, GF_BM), (int)ceil_div(g.N, out_cols), mt, nt);
    const int m0 = mt * GF_BM, n0 = nt * out_cols;
    const int k_tiles = (int)ceil_div(g.K, GF_BK);
    if (threadIdx.x == 0) {
        for (int s = 0; s < GF_STAGES; ++s) {
            mbar_init(&ring.full[s], 1);
            mbar_init(&ring.empty[s], GF_CONSUMERS * WARPGROUP / WARP + (GF_HAS_PROLOGUE(OPS) ? GF_HELPER_WARPS : 0));
            mbar_init(&ring.ready[s], GF_HELPER_THREADS);
        }
        mbar_init_fence();
    }
    __syncthreads();

    if (warpgroup == GF_CONSUMERS) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(GF_PRODUCER_REGS));
        const int warp = (threadIdx.x / WARP) % (WARPGROUP / WARP);
        if (threadIdx.x == GF_CONSUMERS * WARPGROUP) gf_produce<OPS>(ring, &map_a, &map_b, &map_b2, m0, n0, k_tiles);
        else if (GF_HAS_PROLOGUE(OPS) && warp >= GF_HELPER_WARP0 && warp < GF_HELPER_WARP0 + GF_HELPER_WARPS)
            gf_prologue<OPS>(g, ring, k_tiles);
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(GF_CONSUMER_REGS));
    rt_wg_acc acc;
    zero(acc);
    gf_consume<OPS>(acc, ring, warpgroup, k_tiles);
    if (OPS & GEMM_ROW_RMS) named_barrier<GF_RSTD_BARRIER, GF_RSTD_THREADS>();
    gf_store<OPS>(g, acc, ring.rstd + warpgroup * WG_M, m0 + warpgroup * WG_M, n0);
}

/* ---- any shape: mma.sync on 64x64 block tiles, four warps of 32x32 ---- */
constexpr int GS_M = 64, GS_N = 64, GS_K = 32;
constexpr int GS_THREADS = 128;
constexpr int GS_WARP_TILES = 2;    /* 16x16 register tiles per warp along M and along N */
constexpr int GS_PAD = 8;           /* keeps ldmatrix rows 16-byte aligned and off each other's banks */

template <unsigned OPS>
__global__ void __launch_bounds__(GS_THREADS) gemm_fused_mma(const gemm_args g) {
    constexpr int N_B = (OPS & GEMM_DUAL) ? 2 : 1;
    __shared__ __align__(16) __nv_bfloat16 sa[GS_M][GS_K + GS_PAD];
    __shared__ __align__(16) __nv_bfloat16 sb[N_B][GS_K][GS_N + GS_PAD];
    __shared__ float rstd[GS_M];
    const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    const int wm = (warp / 2) * GS_WARP_TILES * TILE, wn = (warp % 2) * GS_WARP_TILES * TILE;
    const long long m0 = (long long)blockIdx.y * GS_M, n0 = (long long)blockIdx.x * GS_N;

    if (OPS & GEMM_ROW_RMS) {
        for (int i = warp; i < GS_M; i += GS_THREADS / WARP) {
            const long long r = m0 + i;
            float ss = 0.0f;
            for (int k = lane; r < g.M && k < g.K; k += WARP) {
                const float x = __bfloat162float(g.A[r * g.K + k]);
                ss += x * x;
            }
            warp_reduce<op_sum>(ss, ss);
            if (lane == 0) rstd[i] = rsqrtf(ss / (float)g.K + g.eps);
        }
        __syncthreads();
    }

    rt_acc acc[N_B][GS_WARP_TILES][GS_WARP_TILES];
#pragma unroll
    for (int o = 0; o < N_B; ++o)
#pragma unroll
        for (int i = 0; i < GS_WARP_TILES; ++i)
#pragma unroll
            for (int j = 0; j < GS_WARP_TILES; ++j) zero(acc[o][i][j]);

    for (long long k0 = 0; k0 < g.K; k0 += GS_K) {
        for (int i = threadIdx.x; i < GS_M * GS_K; i += GS_THREADS) {
            const long long r = m0 + i / GS_K, c = k0 + i % GS_K;
            float x = 0.0f;
            if (r < g.M && c < g.K) {
                x = __bfloat162float(g.A[r * g.K + c]);
                if (OPS & GEMM_K_GAIN) x *= __bfloat162float(g.gain[c]);
            }
            sa[i / GS_K][i % GS_K] = __float2bfloat16_rn(x);
        }
#pragma unroll
        for (int o = 0; o < N_B; ++o) {
            const __nv_bfloat16 *bsrc = o == 0 ? g.B : g.B2;
            for (int i = threadIdx.x; i < GS_K * GS_N; i += GS_THREADS) {
                const long long r = k0 + i / GS_N, c = n0 + i % GS_N;
                sb[o][i / GS_N][i % GS_N] = r < g.K && c < g.N ? bsrc[r * g.ldb + c] : __float2bfloat16(0.0f);
            }
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < GS_K; kk += TILE) {
            rt_a a[GS_WARP_TILES];
#pragma unroll
            for (int t = 0; t < GS_WARP_TILES; ++t) load(a[t], &sa[wm + t * TILE][kk], GS_K + GS_PAD);
#pragma unroll
            for (int o = 0; o < N_B; ++o)
#pragma unroll
                for (int j = 0; j < GS_WARP_TILES; ++j) {
                    rt_b b;
                    load(b, &sb[o][kk][wn + j * TILE], GS_N + GS_PAD);
#pragma unroll
                    for (int i = 0; i < GS_WARP_TILES; ++i) mma_ab(acc[o][i][j], a[i], b);
                }
        }
        __syncthreads();
    }

    /* rt_acc element e sits at row lane/4 + 8*((e/2)%2), column 8*(e/4) + 2*(lane%4) + e%2 of its 16x16 tile. */
#pragma unroll
    for (int i = 0; i < GS_WARP_TILES; ++i)
#pragma unroll
        for (int j = 0; j < GS_WARP_TILES; ++j)
#pragma unroll
            for (int e = 0; e < 8; e += 2) {
                const int r_local = wm + i * TILE + lane / 4 + 8 * ((e / 2) % 2);
                const long long c = n0 + wn + j * TILE + 8 * (e / 4) + 2 * (lane % 4);
                const float rs = (OPS & GEMM_ROW_RMS) ? rstd[r_local] : 1.0f;
                const rt_acc &up = acc[N_B - 1][i][j];
                epilogue_pair<OPS>(g, m0 + r_local, c, acc[0][i][j].d[e], acc[0][i][j].d[e + 1], up.d[e], up.d[e + 1],
                                   rs);
            }
}

template <unsigned OPS>
bool gemm_fused_fast_path_fits(const gemm_args &g) {
    const int per_pitch = TMA_STRIDE_ALIGN / 2;
    bool ok = g.K > 0 && g.K % per_pitch == 0 && g.N % per_pitch == 0 && g.ldb % per_pitch == 0 &&
              is_aligned(g.A, TMA_STRIDE_ALIGN) && is_aligned(g.B, TMA_STRIDE_ALIGN);
    if (OPS & GEMM_DUAL) ok = ok && is_aligned(g.B2, TMA_STRIDE_ALIGN);
    if (OPS & GEMM_K_GAIN) ok = ok && is_aligned(g.gain, TMA_STRIDE_ALIGN);
    return ok;
}

template <unsigned OPS>
bool gemm_fused_launch_wgmma(const gemm_args &g, cudaStream_t stream) {
    CUtensorMap map_a, map_b, map_b2;
    if (!make_tensor_map_bf16(&map_a, g.A, g.M, g.K, GF_BM, GF_BK) ||
        !make_tensor_map_bf16_pitched(&map_b, g.B, g.K, g.N, g.ldb, GF_BK, GF_CHUNK_COLS))
        return false;
    map_b2 = map_b;
    if ((OPS & GEMM_DUAL) && !make_tensor_map_bf16_pitched(&map_b2, g.B2, g.K, g.N, g.ldb, GF_BK, GF_CHUNK_COLS))
        return false;
    if (cudaFuncSetAttribute(gemm_fused_wgmma<OPS>, cudaFuncAttributeMaxDynamicSharedMemorySize, GF_SMEM_BYTES) !=
        cudaSuccess)
        return false;
    const int out_cols = (OPS & GEMM_DUAL) ? GF_BN / 2 : GF_BN;
    const long long tiles = ceil_div(g.N, out_cols) * ceil_div(g.M, GF_BM);
    gemm_fused_wgmma<OPS><<<(unsigned)tiles, GF_THREADS, GF_SMEM_BYTES, stream>>>(map_a, map_b, map_b2, g);
    return true;
}

/* Enqueues C = epilogue(prologue(A) @ B) on stream; returns 0 or the CUDA error the launch left. */
template <unsigned OPS>
int gemm_fused(gemm_args g, cudaStream_t stream) {
    if (bad_shape(g.M, g.N, g.K) || g.ldb < g.N) return (int)cudaErrorInvalidValue;
    if (g.M == 0 || g.N == 0) return 0;
    g.c_pairs = g.N % 2 == 0 && is_aligned(g.C, sizeof(__nv_bfloat162));
    if (gemm_fused_fast_path_fits<OPS>(g) && gemm_fused_launch_wgmma<OPS>(g, stream)) return launch_status();
    const dim3 grid((unsigned)ceil_div(g.N, GS_N), (unsigned)ceil_div(g.M, GS_M));
    gemm_fused_mma<OPS><<<grid, GS_THREADS, 0, stream>>>(g);
    return launch_status();
}

} /* namespace */
} /* namespace kf */
