/* Flash attention forward (bf16 in/out, fp32 softmax) with grouped KV heads and operands at any strides, so one
 * kernel serves [B][H][L][D] tensors and packed [B][L][heads][D] QKV rows; optional causal mask. Fast path (D = 64 or
 * 128, 16-byte aligned): 128 queries per block, Q once and K/V through a 2-stage ring by TMA, two wgmma consumer
 * warpgroups with P fed from the S registers and the online softmax in between. Any other shape: mma.sync, D <= 256.
 * Kernels live in an unnamed namespace. */
#pragma once
#include "mma.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace kf {

/* Element (b, h, l, d) of an attention operand sits at base + b*stride_b + (head0 + h)*stride_h + l*stride_l + d. */
struct attn_view {
    const __nv_bfloat16 *base;
    long long stride_b, stride_h, stride_l;
    int heads;       /* heads the underlying tensor holds (all of them, for the tensor map) */
    int head0;       /* this operand's first head within them */
};

struct attn_args {
    attn_view q, k, v;
    __nv_bfloat16 *o;                     /* written at o + b*o_stride_b + h*o_stride_h + l*o_stride_l + d */
    long long o_stride_b, o_stride_h, o_stride_l;
    int B, H, HKV, L, D;
    bool causal;                          /* query i sees keys j <= i */
};

constexpr int FA_MAX_D = 256;

namespace {

/* ---- fast path: shapes named once ---- */
constexpr int FA_BM = 128, FA_BN = 128;                   /* queries per block, keys per tile */
constexpr int FA_STAGES = 2;
constexpr int FA_CONSUMERS = FA_BM / WG_M;
constexpr int FA_THREADS = (FA_CONSUMERS + 1) * WARPGROUP;
constexpr int FA_BOX_COLS = SWIZZLE_BYTES / 2;            /* d columns per swizzled box */
constexpr int FA_SUB_BYTES = FA_BN * SWIZZLE_BYTES;        /* one 128-row x 64-column box */
constexpr int FA_PRODUCER_REGS = 40, FA_CONSUMER_REGS = 232;
constexpr int FA_K_STEPS = FA_BN / WG_K;                   /* key steps of O += P V */
constexpr int FA_D_STEP_BYTES = WG_K * 2;                  /* next 16 d columns of a K-major row */
constexpr int FA_KEY_STEP_BYTES = WG_K * SWIZZLE_BYTES;    /* next 16 key rows of V */
constexpr int FA_MAP_RANK = 4;                             /* {d, l or head, head or l, b} */
static_assert(FA_BM == FA_BN, "the causal tile count assumes square tiles");

template <int DH> struct fa_smem {
    static constexpr int SUBS = DH / FA_BOX_COLS;
    static constexpr int TILE_BYTES = SUBS * FA_SUB_BYTES;  /* Q, or one stage of K or V */
    static constexpr int BYTES = SWIZZLE_ATOM_BYTES /* alignment slack */ + (1 + 2 * FA_STAGES) * TILE_BYTES +
                                 (1 + 3 * FA_STAGES) * (int)sizeof(uint64_t);
    uint8_t *q, *k, *v;
    uint64_t *q_full, *k_full, *v_full, *empty;
    __device__ explicit fa_smem(uint8_t *raw) {
        const uintptr_t atom = SWIZZLE_ATOM_BYTES;
        q = reinterpret_cast<uint8_t *>(((uintptr_t)raw + atom - 1) & ~(atom - 1));
        k = q + TILE_BYTES;
        v = k + FA_STAGES * TILE_BYTES;
        q_full = reinterpret_cast<uint64_t *>(v + FA_STAGES * TILE_BYTES);
        k_full = q_full + 1;
        v_full = k_full + FA_STAGES;
        empty = v_full + FA_STAGES;
    }
    __device__ uint8_t *k_at(int s) const { return k + s * TILE_BYTES; }
    __device__ uint8_t *v_at(int s) const { return v + s * TILE_BYTES; }
};

/* Tensor maps order dims by stride: {d, l, head, b} for [B][H][L][D], {d, head, l, b} for packed rows. */
struct fa_view_dev { int head0; bool heads_inner; };

__device__ __forceinline__ void fa_load(void *dst, const CUtensorMap *map, uint64_t *bar, const fa_view_dev &v, int d0,
                                        int l0, int head, int b) {
    if (v.heads_inner) tma_load_4d(dst, map, bar, d0, v.head0 + head, l0, b);
    else tma_load_4d(dst, map, bar, d0, l0, v.head0 + head, b);
}

struct fa_params {
    fa_view_dev q, k, v;
    __nv_bfloat16 *o;
    long long o_stride_b, o_stride_h, o_stride_l;
    int H, group, L, n_qblocks;     /* group = H / HKV */
    bool causal;
    float scale_log2;               /* log2(e) / sqrt(D) */
};

__device__ __forceinline__ int fa_qblock(const fa_params &p) {
    /* causal blocks near the end see the most keys: start them first */
    return p.causal ? p.n_qblocks - 1 - (int)blockIdx.x : (int)blockIdx.x;
}

__device__ __forceinline__ int fa_kv_tiles(const fa_params &p, int qb) {
    const int all = (int)ceil_div(p.L, FA_BN);
    return p.causal ? min(all, qb + 1) : all;
}

template <int DH>
__device__ void fa_produce(const fa_smem<DH> &sm, const CUtensorMap *mq, const CUtensorMap *mk, const CUtensorMap *mv,
                           const fa_params &p, int qb, int h, int b) {
    constexpr int SUBS = fa_smem<DH>::SUBS;
    mbar_arrive_expect_bytes(sm.q_full, fa_smem<DH>::TILE_BYTES);
    for (int c = 0; c < SUBS; ++c) fa_load(sm.q + c * FA_SUB_BYTES, mq, sm.q_full, p.q, c * FA_BOX_COLS, qb * FA_BM, h, b);
    const int kvh = h / p.group, tiles = fa_kv_tiles(p, qb);
    for (int j = 0; j < tiles; ++j) {
        const int s = j % FA_STAGES;
        if (j >= FA_STAGES) mbar_wait(&sm.empty[s], (j / FA_STAGES - 1) % 2);
        mbar_arrive_expect_bytes(&sm.k_full[s], fa_smem<DH>::TILE_BYTES);
        for (int c = 0; c < SUBS; ++c)
            fa_load(sm.k_at(s) + c * FA_SUB_BYTES, mk, &sm.k_full[s], p.k, c * FA_BOX_COLS, j * FA_BN, kvh, b);
        mbar_arrive_expect_bytes(&sm.v_full[s], fa_smem<DH>::TILE_BYTES);
        for (int c = 0; c < SUBS; ++c)
            fa_load(sm.v_at(s) + c * FA_SUB_BYTES, mv, &sm.v_full[s], p.v, c * FA_BOX_COLS, j * FA_BN, kvh, b);
    }
}

/* Online softmax state of the two rows a thread holds (rows lane/4 and lane/4 + 8 of its warp's 16). */
struct fa_rows { float m[2], l[2]; };

/* S (scores of one key tile, in registers) becomes P = exp2(S * scale_log2 - m) in place; O and l are rescaled to the
 * new running max. mask: keys past L, or (causal) past the query, are excluded. */
template <int DH>
__device__ __forceinline__ void fa_softmax(rt_wg<FA_BN> &S, rt_wg<DH> &O, fa_rows &st, const fa_params &p, int row0,
                                           int key0, bool mask) {
    const int lane = threadIdx.x % WARP;
    const int row_base = row0 + 16 * ((threadIdx.x / WARP) % (WARPGROUP / WARP)) + lane / 4;
    float mx[2] = {st.m[0], st.m[1]};
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        float x = S.d[i] * p.scale_log2;
        if (mask) {
            const int key = key0 + acc_col(i), row = row_base + 8 * acc_row_half(i);
            if (key >= p.L || (p.causal && key > row)) x = -INFINITY;
        }
        S.d[i] = x;
        mx[acc_row_half(i)] = fmaxf(mx[acc_row_half(i)], x);
    }
    float alpha[2], base[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        mx[r] = quad_reduce<op_max>(mx[r]);
        base[r] = mx[r] == -INFINITY ? 0.0f : mx[r];     /* a row with nothing visible yet stays at zero */
        alpha[r] = exp2f(st.m[r] - base[r]);
        st.m[r] = mx[r];
        st.l[r] *= alpha[r];
    }
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        const float e = exp2f(S.d[i] - base[acc_row_half(i)]);
        S.d[i] = e;
        st.l[acc_row_half(i)] += e;
    }
#pragma unroll
    for (int i = 0; i < WG_M * DH / WARPGROUP; ++i) O.d[i] *= alpha[acc_row_half(i)];
}

template <int DH>
__device__ void fa_consume(const fa_smem<DH> &sm, const fa_params &p, int qb, int h, int b, int slice) {
    const int row0 = qb * FA_BM + slice * WG_M;               /* first query of this warpgroup */
    const uint8_t *q_slice = sm.q + slice * WG_M * SWIZZLE_BYTES;
    rt_wg<FA_BN> S;
    rt_wg<DH> O;
#pragma unroll
    for (int i = 0; i < WG_M * DH / WARPGROUP; ++i) O.d[i] = 0.0f;
    fa_rows st = {{-INFINITY, -INFINITY}, {0.0f, 0.0f}};
    const bool warp_leader = threadIdx.x % WARP == 0;

    mbar_wait(sm.q_full, 0);
    const int tiles = fa_kv_tiles(p, qb);
    for (int j = 0; j < tiles; ++j) {
        const int s = j % FA_STAGES, parity = (j / FA_STAGES) % 2, key0 = j * FA_BN;
        mbar_wait(&sm.k_full[s], parity);
        wgmma_fence();
#pragma unroll
        for (int kd = 0; kd < DH / WG_K; ++kd) {
            const int sub = kd / (FA_BOX_COLS / WG_K), step = kd % (FA_BOX_COLS / WG_K);
            wgmma<WG_B_K_MAJOR>(S, desc_k_major(q_slice + sub * FA_SUB_BYTES + step * FA_D_STEP_BYTES),
                        desc_k_major(sm.k_at(s) + sub * FA_SUB_BYTES + step * FA_D_STEP_BYTES), kd > 0);
        }
        wgmma_commit();
        wgmma_wait<0>();
        const bool mask = key0 + FA_BN > p.L || (p.causal && key0 + FA_BN - 1 > row0);
        fa_softmax<DH>(S, O, st, p, row0, key0, mask);
        rt_wg_a P[FA_K_STEPS];
#pragma unroll
        for (int kk = 0; kk < FA_K_STEPS; ++kk) to_a(P[kk], S, kk);
        mbar_wait(&sm.v_full[s], parity);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < FA_K_STEPS; ++kk)
            wgmma<WG_B_MN_MAJOR>(O, P[kk], desc_mn_major(sm.v_at(s) + kk * FA_KEY_STEP_BYTES, FA_SUB_BYTES), 1);
        wgmma_commit();
        wgmma_wait<0>();
        if (warp_leader) mbar_arrive(&sm.empty[s]);
    }

    /* O[i] sits at row 16*warp + lane/4 + 8*((i/2)%2), column 8*(i/4) + 2*(lane%4) + i%2 */
    float inv[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) inv[r] = 1.0f / quad_reduce<op_sum>(st.l[r]);
    const int lane = threadIdx.x % WARP, warp = (threadIdx.x / WARP) % (WARPGROUP / WARP);
    __nv_bfloat16 *o = p.o + b * p.o_stride_b + h * p.o_stride_h;
#pragma unroll
    for (int i = 0; i < WG_M * DH / WARPGROUP; i += 2) {
        const int row = row0 + 16 * warp + lane / 4 + 8 * acc_row_half(i);
        if (row >= p.L) continue;
        const float f = inv[acc_row_half(i)];
        *reinterpret_cast<__nv_bfloat162 *>(o + row * p.o_stride_l + acc_col(i)) =
            __floats2bfloat162_rn(O.d[i] * f, O.d[i + 1] * f);
    }
}

template <int DH>
__global__ void __launch_bounds__(FA_THREADS, 1)
flash_wgmma(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
            const __grid_constant__ CUtensorMap map_v, const fa_params p) {
    extern __shared__ uint8_t smem_raw[];
    const fa_smem<DH> sm(smem_raw);
    const int qb = fa_qblock(p), h = blockIdx.y, b = blockIdx.z;
    const int warpgroup = threadIdx.x / WARPGROUP;
    if (threadIdx.x == 0) {
        mbar_init(sm.q_full, 1);
        for (int s = 0; s < FA_STAGES; ++s) {
            mbar_init(&sm.k_full[s], 1);
            mbar_init(&sm.v_full[s], 1);
            mbar_init(&sm.empty[s], FA_CONSUMERS * WARPGROUP / WARP);
        }
        mbar_init_fence();
    }
    __syncthreads();
    if (warpgroup == FA_CONSUMERS) {
        warpgroup_regs_dec<FA_PRODUCER_REGS>();
        if (threadIdx.x == FA_CONSUMERS * WARPGROUP) fa_produce<DH>(sm, &map_q, &map_k, &map_v, p, qb, h, b);
        return;
    }
    warpgroup_regs_inc<FA_CONSUMER_REGS>();
    fa_consume<DH>(sm, p, qb, h, b, warpgroup);
}

/* A tensor map over the whole tensor behind a view, boxes of 64 d-columns x FA_BN rows of one head. */
inline bool fa_map(CUtensorMap *dst, const attn_view &v, int B, int L, int D) {
    const bool heads_inner = v.stride_h < v.stride_l;
    const long long dims[FA_MAP_RANK] = {D, heads_inner ? v.heads : L, heads_inner ? L : v.heads, B};
    const long long strides[FA_MAP_RANK - 1] = {heads_inner ? v.stride_h : v.stride_l,
                                                heads_inner ? v.stride_l : v.stride_h, v.stride_b};
    const int box[FA_MAP_RANK] = {FA_BOX_COLS, heads_inner ? 1 : FA_BN, heads_inner ? FA_BN : 1, 1};
    return make_tensor_map_bf16<FA_MAP_RANK>(dst, v.base, dims, strides, box);
}

inline bool fa_fast_path_fits(const attn_args &a) {
    const long long per_vec = TMA_STRIDE_ALIGN / 2;
    if (a.D != 64 && a.D != 128) return false;
    const attn_view *vs[3] = {&a.q, &a.k, &a.v};
    for (const attn_view *v : vs)
        if (!is_aligned(v->base, TMA_STRIDE_ALIGN) || v->stride_l % per_vec || v->stride_h % per_vec ||
            v->stride_b % per_vec)
            return false;
    return is_aligned(a.o, sizeof(__nv_bfloat162)) && a.o_stride_l % 2 == 0 && a.o_stride_h % 2 == 0 &&
           a.o_stride_b % 2 == 0;
}

inline fa_view_dev fa_dev(const attn_view &v) { return fa_view_dev{v.head0, v.stride_h < v.stride_l}; }

template <int DH>
bool fa_launch_wgmma(const attn_args &a, cudaStream_t stream) {
    CUtensorMap mq, mk, mv;
    if (!fa_map(&mq, a.q, a.B, a.L, DH) || !fa_map(&mk, a.k, a.B, a.L, DH) || !fa_map(&mv, a.v, a.B, a.L, DH))
        return false;
    if (cudaFuncSetAttribute(flash_wgmma<DH>, cudaFuncAttributeMaxDynamicSharedMemorySize, fa_smem<DH>::BYTES) !=
        cudaSuccess)
        return false;
    fa_params p;
    p.q = fa_dev(a.q);
    p.k = fa_dev(a.k);
    p.v = fa_dev(a.v);
    p.o = a.o;
    p.o_stride_b = a.o_stride_b;
    p.o_stride_h = a.o_stride_h;
    p.o_stride_l = a.o_stride_l;
    p.H = a.H;
    p.group = a.H / a.HKV;
    p.L = a.L;
    p.n_qblocks = (int)ceil_div(a.L, FA_BM);
    p.causal = a.causal;
    p.scale_log2 = LOG2E / sqrtf((float)DH);
    const dim3 grid((unsigned)p.n_qblocks, (unsigned)a.H, (unsigned)a.B);
    flash_wgmma<DH><<<grid, FA_THREADS, fa_smem<DH>::BYTES, stream>>>(mq, mk, mv, p);
    return true;
}

/* ---- any shape: mma.sync, 64 queries per block (16 per warp), 64-key tiles, D padded to DP ---- */
constexpr int FS_BM = 64, FS_BN = 64, FS_THREADS = 128, FS_PAD = 8;

template <int DP> struct fs_smem {
    static constexpr int LD = DP + FS_PAD;
    static constexpr int BYTES = (FS_BM + 2 * FS_BN) * LD * 2;
};

/* rows x DP tile of operand v (head h, batch b) from row l0, zero outside L and D. */
template <int DP>
__device__ void fs_load(__nv_bfloat16 *dst, const attn_view &v, int b, int h, int l0, int rows, int L, int D) {
    const __nv_bfloat16 *src = v.base + b * v.stride_b + (v.head0 + h) * v.stride_h;
    for (int i = threadIdx.x; i < rows * DP; i += FS_THREADS) {
        const int r = i / DP, c = i % DP;
        dst[r * fs_smem<DP>::LD + c] = l0 + r < L && c < D ? src[(l0 + r) * v.stride_l + c] : __float2bfloat16(0.0f);
    }
}

template <int DP>
__global__ void __launch_bounds__(FS_THREADS) flash_mma(const attn_args a) {
    constexpr int LD = fs_smem<DP>::LD, D_TILES = DP / TILE, KEY_TILES = FS_BN / TILE;
    extern __shared__ __align__(16) uint8_t fs_raw[];
    __nv_bfloat16 *sq = reinterpret_cast<__nv_bfloat16 *>(fs_raw), *sk = sq + FS_BM * LD, *sv = sk + FS_BN * LD;
    const int h = blockIdx.y, b = blockIdx.z, kvh = h / (a.H / a.HKV);
    const int n_qblocks = (int)ceil_div(a.L, FS_BM);
    const int q0 = (a.causal ? n_qblocks - 1 - (int)blockIdx.x : (int)blockIdx.x) * FS_BM;
    const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    const int row_base = q0 + warp * TILE + lane / 4;
    const float scale_log2 = LOG2E / sqrtf((float)a.D);

    fs_load<DP>(sq, a.q, b, h, q0, FS_BM, a.L, a.D);
    rt_acc O[D_TILES];
#pragma unroll
    for (int t = 0; t < D_TILES; ++t) zero(O[t]);
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    const int key_end = a.causal ? min(a.L, q0 + FS_BM) : a.L;
    for (int key0 = 0; key0 < key_end; key0 += FS_BN) {
        __syncthreads();
        fs_load<DP>(sk, a.k, b, kvh, key0, FS_BN, a.L, a.D);
        fs_load<DP>(sv, a.v, b, kvh, key0, FS_BN, a.L, a.D);
        __syncthreads();
        rt_acc S[KEY_TILES];
#pragma unroll
        for (int t = 0; t < KEY_TILES; ++t) zero(S[t]);
#pragma unroll
        for (int kd = 0; kd < D_TILES; ++kd) {
            rt_a qa;
            load(qa, sq + warp * TILE * LD + kd * TILE, LD);
#pragma unroll
            for (int t = 0; t < KEY_TILES; ++t) {
                rt_b kb;
                load_nk(kb, sk + t * TILE * LD + kd * TILE, LD);
                mma_ab(S[t], qa, kb);
            }
        }
        float mx[2] = {m[0], m[1]};
#pragma unroll
        for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int key = key0 + t * TILE + acc_col(i), row = row_base + 8 * acc_row_half(i);
                float x = S[t].d[i] * scale_log2;
                if (key >= a.L || (a.causal && key > row)) x = -INFINITY;
                S[t].d[i] = x;
                mx[acc_row_half(i)] = fmaxf(mx[acc_row_half(i)], x);
            }
        float alpha[2], base[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            mx[r] = quad_reduce<op_max>(mx[r]);
            base[r] = mx[r] == -INFINITY ? 0.0f : mx[r];
            alpha[r] = exp2f(m[r] - base[r]);
            m[r] = mx[r];
            l[r] *= alpha[r];
        }
#pragma unroll
        for (int t = 0; t < KEY_TILES; ++t)
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                S[t].d[i] = exp2f(S[t].d[i] - base[acc_row_half(i)]);
                l[acc_row_half(i)] += S[t].d[i];
            }
#pragma unroll
        for (int t = 0; t < D_TILES; ++t)
#pragma unroll
            for (int i = 0; i < 8; ++i) O[t].d[i] *= alpha[acc_row_half(i)];
#pragma unroll
        for (int kt = 0; kt < KEY_TILES; ++kt) {
            rt_a pa;
            to_a(pa, S[kt]);
#pragma unroll
            for (int t = 0; t < D_TILES; ++t) {
                rt_b vb;
                load(vb, sv + kt * TILE * LD + t * TILE, LD);
                mma_ab(O[t], pa, vb);
            }
        }
    }
    float inv[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) inv[r] = 1.0f / quad_reduce<op_sum>(l[r]);
    __nv_bfloat16 *o = a.o + b * a.o_stride_b + h * a.o_stride_h;
#pragma unroll
    for (int t = 0; t < D_TILES; ++t)
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int row = row_base + 8 * acc_row_half(i), col = t * TILE + acc_col(i);
            if (row < a.L && col < a.D) o[row * a.o_stride_l + col] = __float2bfloat16_rn(O[t].d[i] * inv[acc_row_half(i)]);
        }
}

template <int DP>
int fs_launch(const attn_args &a, cudaStream_t stream) {
    const int bytes = fs_smem<DP>::BYTES;
    const cudaError_t e = cudaFuncSetAttribute(flash_mma<DP>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e != cudaSuccess) return (int)e;
    const dim3 grid((unsigned)ceil_div(a.L, FS_BM), (unsigned)a.H, (unsigned)a.B);
    flash_mma<DP><<<grid, FS_THREADS, bytes, stream>>>(a);
    return launch_status();
}

/* Enqueues the attention described by a on stream; returns 0 or a CUDA error (invalid value for a bad shape). */
int flash_attention(const attn_args &a, cudaStream_t stream) {
    if (a.B < 0 || a.H < 0 || a.HKV < 1 || a.L < 0 || a.D < 1 || a.D > FA_MAX_D || a.H % a.HKV != 0)
        return (int)cudaErrorInvalidValue;
    if (a.B == 0 || a.H == 0 || a.L == 0) return 0;
    if (fa_fast_path_fits(a)) {
        const bool launched = a.D == 64 ? fa_launch_wgmma<64>(a, stream) : fa_launch_wgmma<128>(a, stream);
        if (launched) return launch_status();
    }
    if (a.D <= 64) return fs_launch<64>(a, stream);
    if (a.D <= 128) return fs_launch<128>(a, stream);
    return fs_launch<256>(a, stream);
}

/* flash_attention over dense Q and O [B][H][L][D], K and V [B][HKV][L][D]: the flash_attention tasks' layout. */
int flash_attention_dense(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, const __nv_bfloat16 *V, __nv_bfloat16 *O,
                          int B, int H, int HKV, int L, int D, bool causal, cudaStream_t stream) {
    const long long head = (long long)L * D;
    const attn_args a = {attn_view{Q, H * head, head, D, H, 0}, attn_view{K, HKV * head, head, D, HKV, 0},
                         attn_view{V, HKV * head, head, D, HKV, 0}, O, H * head, head, D, B, H, HKV, L, D, causal};
    return flash_attention(a, stream);
}

} /* namespace */
} /* namespace kf */
