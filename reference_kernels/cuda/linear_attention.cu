/* Reference kernel for linear_attention: o_t = sum_{s<=t} (phi(q_t).phi(k_s)) v_s / sum_{s<=t} phi(q_t).phi(k_s),
 * phi = elu + 1; q, k, v, o bf16 [BH, L, D]. Chunked: per 64-token chunk, masked intra-chunk attention plus the
 * running state S = sum phi(k)^T v (fp32 registers, bf16 in shared memory) and z = sum phi(k); one block per
 * (bh, 64 value columns), four mma.sync warps, chunks serial with the next chunk's loads in flight. */
#include "tile/mma_frag.cuh"
#include "tile/vec.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int C = 64;                        /* tokens per chunk */
constexpr int DV = 64;                       /* value columns per block */
constexpr int THREADS = 128, WARPS = THREADS / kf::WARP;
constexpr int PAD = 8;
constexpr int MAX_D = 128;
constexpr int TOKEN_TILES = C / kf::TILE, DV_TILES = DV / kf::TILE;

template <int DKP> struct smem {
    static constexpr int LD = DKP + PAD, V_LD = DV + PAD;
    static constexpr int BYTES = (2 * C * LD + C * V_LD + DKP * V_LD) * 2 + DKP * 4;
};

__device__ __forceinline__ float phi(float x) { return x > 0.0f ? x + 1.0f : __expf(x); }

/* One chunk of q, k (C x DKP) and v (C x DV) in flight from global memory to registers, as 16-byte vectors. */
template <int DKP> struct chunk_regs {
    static constexpr int QK_VECS = C * DKP / kf::BF16_PER_VEC / THREADS, V_VECS = C * DV / kf::BF16_PER_VEC / THREADS;
    uint4 q[QK_VECS], k[QK_VECS], v[V_VECS];
};

/* Vector i of a rows x cols tile: row and first column. */
template <int COLS> __device__ __forceinline__ int vec_row(int i) { return i / (COLS / kf::BF16_PER_VEC); }
template <int COLS> __device__ __forceinline__ int vec_col(int i) { return i % (COLS / kf::BF16_PER_VEC) * kf::BF16_PER_VEC; }

/* Needs D % 8 == 0 and 16-byte aligned bases, so a vector is either wholly inside D or wholly past it. */
template <int DKP>
__device__ __forceinline__ void fetch(chunk_regs<DKP> &r, const bf16 *Q, const bf16 *K, const bf16 *V, long long head,
                                      int c0, int L, int D, int dv0) {
    const uint4 zero = make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int j = 0; j < chunk_regs<DKP>::QK_VECS; ++j) {
        const int i = threadIdx.x + j * THREADS, row = c0 + vec_row<DKP>(i), col = vec_col<DKP>(i);
        const long long at = head + (long long)row * D + col;
        const bool in = row < L && col < D;
        r.q[j] = in ? __ldg(reinterpret_cast<const uint4 *>(Q + at)) : zero;
        r.k[j] = in ? __ldg(reinterpret_cast<const uint4 *>(K + at)) : zero;
    }
#pragma unroll
    for (int j = 0; j < chunk_regs<DKP>::V_VECS; ++j) {
        const int i = threadIdx.x + j * THREADS, row = c0 + vec_row<DV>(i), col = dv0 + vec_col<DV>(i);
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

template <int DKP>
__device__ __forceinline__ void stage(bf16 *sq, bf16 *sk, bf16 *sv, const chunk_regs<DKP> &r, int c0, int L, int D) {
    constexpr int LD = smem<DKP>::LD, V_LD = smem<DKP>::V_LD;
#pragma unroll
    for (int j = 0; j < chunk_regs<DKP>::QK_VECS; ++j) {
        const int i = threadIdx.x + j * THREADS, row = vec_row<DKP>(i), col = vec_col<DKP>(i);
        const bool in = c0 + row < L && col < D;
        *reinterpret_cast<uint4 *>(sq + row * LD + col) = phi_vec(r.q[j], in);
        *reinterpret_cast<uint4 *>(sk + row * LD + col) = phi_vec(r.k[j], in);
    }
#pragma unroll
    for (int j = 0; j < chunk_regs<DKP>::V_VECS; ++j) {
        const int i = threadIdx.x + j * THREADS;
        *reinterpret_cast<uint4 *>(sv + vec_row<DV>(i) * V_LD + vec_col<DV>(i)) = r.v[j];
    }
}

/* Any D or alignment: element by element. */
template <int DKP>
__device__ void load_scalar(bf16 *sq, bf16 *sk, bf16 *sv, const bf16 *Q, const bf16 *K, const bf16 *V, long long head,
                            int c0, int L, int D, int dv0) {
    constexpr int LD = smem<DKP>::LD, V_LD = smem<DKP>::V_LD;
    for (int i = threadIdx.x; i < C * DKP; i += THREADS) {
        const int r = i / DKP, d = i % DKP;
        const bool in = c0 + r < L && d < D;      /* padding must be 0 after phi, since phi(0) = 1 */
        const long long at = head + (long long)(c0 + r) * D + d;
        sq[r * LD + d] = __float2bfloat16_rn(in ? phi(__bfloat162float(Q[at])) : 0.0f);
        sk[r * LD + d] = __float2bfloat16_rn(in ? phi(__bfloat162float(K[at])) : 0.0f);
    }
    for (int i = threadIdx.x; i < C * DV; i += THREADS) {
        const int r = i / DV, j = i % DV;
        sv[r * V_LD + j] = c0 + r < L && dv0 + j < D ? V[head + (long long)(c0 + r) * D + dv0 + j]
                                                     : __float2bfloat16(0.0f);
    }
}

template <int DKP, bool VEC>
__global__ void __launch_bounds__(THREADS)
linear_attn(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O, int L, int D) {
    constexpr int LD = smem<DKP>::LD, V_LD = smem<DKP>::V_LD, D_TILES = DKP / kf::TILE;
    constexpr int S_ROW_TILES = DKP / kf::TILE / WARPS;   /* 16-row tiles of S this warp keeps */
    extern __shared__ __align__(16) uint8_t raw[];
    bf16 *sq = reinterpret_cast<bf16 *>(raw), *sk = sq + C * LD, *sv = sk + C * LD, *sS = sv + C * V_LD;
    float *z = reinterpret_cast<float *>(sS + DKP * V_LD);
    const int warp = threadIdx.x / kf::WARP, lane = threadIdx.x % kf::WARP, dv0 = blockIdx.x * DV;
    const long long head = (long long)blockIdx.y * L * D;

    kf::rt_acc S[S_ROW_TILES][DV_TILES];
#pragma unroll
    for (int i = 0; i < S_ROW_TILES; ++i)
#pragma unroll
        for (int j = 0; j < DV_TILES; ++j) kf::zero(S[i][j]);
    for (int i = threadIdx.x; i < DKP * V_LD; i += THREADS) sS[i] = __float2bfloat16(0.0f);
    for (int i = threadIdx.x; i < DKP; i += THREADS) z[i] = 0.0f;
    chunk_regs<DKP> next;
    if (VEC) fetch<DKP>(next, Q, K, V, head, 0, L, D, dv0);

    for (int c0 = 0; c0 < L; c0 += C) {
        __syncthreads();
        if (VEC) {
            stage<DKP>(sq, sk, sv, next, c0, L, D);
        } else {
            load_scalar<DKP>(sq, sk, sv, Q, K, V, head, c0, L, D, dv0);
        }
        __syncthreads();
        if (VEC && c0 + C < L) fetch<DKP>(next, Q, K, V, head, c0 + C, L, D, dv0);

        /* this warp's 16 queries: A = phi(Q) phi(K)^T, causal within the chunk */
        kf::rt_acc A[TOKEN_TILES], N[DV_TILES];
#pragma unroll
        for (int t = 0; t < TOKEN_TILES; ++t) kf::zero(A[t]);
#pragma unroll
        for (int t = 0; t < DV_TILES; ++t) kf::zero(N[t]);
#pragma unroll
        for (int kd = 0; kd < D_TILES; ++kd) {
            kf::rt_a qa;
            kf::load(qa, sq + warp * kf::TILE * LD + kd * kf::TILE, LD);
#pragma unroll
            for (int t = 0; t < TOKEN_TILES; ++t) {
                kf::rt_b kb;
                kf::load_nk(kb, sk + t * kf::TILE * LD + kd * kf::TILE, LD);
                kf::mma_ab(A[t], qa, kb);
            }
#pragma unroll
            for (int t = 0; t < DV_TILES; ++t) {       /* earlier chunks: phi(Q) S */
                kf::rt_b sb;
                kf::load(sb, sS + kd * kf::TILE * V_LD + t * kf::TILE, V_LD);
                kf::mma_ab(N[t], qa, sb);
            }
        }
        float den[2] = {0.0f, 0.0f};
        const int row_in_chunk = warp * kf::TILE + lane / 4;
#pragma unroll
        for (int t = 0; t < TOKEN_TILES; ++t)
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int r = kf::acc_row_half(i);
                if (t * kf::TILE + kf::acc_col(i) > row_in_chunk + 8 * r) A[t].d[i] = 0.0f;
                den[r] += A[t].d[i];
            }
#pragma unroll
        for (int d = lane % kf::QUAD; d < DKP; d += kf::QUAD)
#pragma unroll
            for (int r = 0; r < 2; ++r) den[r] += __bfloat162float(sq[(row_in_chunk + 8 * r) * LD + d]) * z[d];
#pragma unroll
        for (int t = 0; t < TOKEN_TILES; ++t) {
            kf::rt_a pa;
            kf::to_a(pa, A[t]);
#pragma unroll
            for (int j = 0; j < DV_TILES; ++j) {
                kf::rt_b vb;
                kf::load(vb, sv + t * kf::TILE * V_LD + j * kf::TILE, V_LD);
                kf::mma_ab(N[j], pa, vb);
            }
        }
        float inv[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const float total = kf::quad_reduce<kf::op_sum>(den[r]);
            inv[r] = total > 0.0f ? 1.0f / total : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < DV_TILES; ++j)
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int row = c0 + row_in_chunk + 8 * kf::acc_row_half(i), col = dv0 + j * kf::TILE + kf::acc_col(i);
                if (row < L && col < D)
                    O[head + (long long)row * D + col] = __float2bfloat16_rn(N[j].d[i] * inv[kf::acc_row_half(i)]);
            }
        __syncthreads();   /* everyone has read S and z for this chunk */

        /* S += phi(K)^T V over this chunk (this warp's rows of S), z += column sums of phi(K) */
#pragma unroll
        for (int m = 0; m < S_ROW_TILES; ++m) {
            const int d0 = (warp * S_ROW_TILES + m) * kf::TILE;
#pragma unroll
            for (int t = 0; t < TOKEN_TILES; ++t) {
                kf::rt_a ka;
                kf::load_trans(ka, sk + t * kf::TILE * LD + d0, LD);
#pragma unroll
                for (int j = 0; j < DV_TILES; ++j) {
                    kf::rt_b vb;
                    kf::load(vb, sv + t * kf::TILE * V_LD + j * kf::TILE, V_LD);
                    kf::mma_ab(S[m][j], ka, vb);
                }
            }
#pragma unroll
            for (int j = 0; j < DV_TILES; ++j)
#pragma unroll
                for (int i = 0; i < 8; i += 2)
                    *reinterpret_cast<__nv_bfloat162 *>(sS + (d0 + lane / 4 + 8 * kf::acc_row_half(i)) * V_LD +
                                                        j * kf::TILE + kf::acc_col(i)) =
                        __floats2bfloat162_rn(S[m][j].d[i], S[m][j].d[i + 1]);
        }
        for (int d = threadIdx.x; d < DKP; d += THREADS) {
            float s = 0.0f;
            for (int r = 0; r < C; ++r) s += __bfloat162float(sk[r * LD + d]);
            z[d] += s;
        }
    }
}

template <int DKP, bool VEC>
int launch(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O, int BH, int L, int D, cudaStream_t stream) {
    const cudaError_t e = cudaFuncSetAttribute(linear_attn<DKP, VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               smem<DKP>::BYTES);
    if (e != cudaSuccess) return (int)e;
    const dim3 grid((unsigned)kf::ceil_div(D, DV), (unsigned)BH);
    linear_attn<DKP, VEC><<<grid, THREADS, smem<DKP>::BYTES, stream>>>(Q, K, V, O, L, D);
    return kf::launch_status();
}

template <int DKP>
int launch(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O, int BH, int L, int D, cudaStream_t stream) {
    const bool vec = D % kf::BF16_PER_VEC == 0 && kf::is_aligned(Q, kf::VEC_BYTES) && kf::is_aligned(K, kf::VEC_BYTES) &&
                     kf::is_aligned(V, kf::VEC_BYTES);
    return vec ? launch<DKP, true>(Q, K, V, O, BH, L, D, stream) : launch<DKP, false>(Q, K, V, O, BH, L, D, stream);
}

} /* namespace */

extern "C" int kf_launch(const bf16 *q, const bf16 *k, const bf16 *v, bf16 *o, int BH, int L, int D,
                         cudaStream_t stream) {
    if (kf::bad_shape(BH, L, D) || D > MAX_D) return (int)cudaErrorInvalidValue;
    if (BH == 0 || L == 0 || D == 0) return 0;
    return D <= 64 ? launch<64>(q, k, v, o, BH, L, D, stream) : launch<MAX_D>(q, k, v, o, BH, L, D, stream);
}
