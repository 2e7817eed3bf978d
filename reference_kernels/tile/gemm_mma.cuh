/* Block GEMM on mma.sync (bf16 in, fp32 accumulate, bf16 out) that is right for any shape, batched:
 * C[b] = A[b] @ B[b] with B [K][N] (B_KN) or C[b] = A[b] @ B[b]^T with B [N][K] (B_NK); all row-major, contiguous.
 * 128x128x32 block tiles, eight warps of 64x32, operands through padded shared memory with the next slice
 * prefetched into registers; 16-byte loads when VEC_LOADS (the caller checked pitch and alignment), bounds-checked
 * element loads otherwise. The fp32 tile is rounded to bf16 in shared memory and leaves as 16-byte row stores.
 * Host side: launch_gemm_mma<L>(args, batch, stream). */
#pragma once
#include "common.cuh"
#include "mma.cuh"
#include "mma_nk.cuh"

namespace kf {

enum b_layout { B_KN, B_NK };   /* B stored [K][N] (row-major B), or [N][K] (C = A @ B^T) */

/* Pointers to matrix 0 of each batch; matrix b starts b*M*K (A), b*K*N (B), b*M*N (C) elements further. */
struct gemm_args {
    const __nv_bfloat16 *A, *B;
    __nv_bfloat16 *C;
    int M, N, K;
};

namespace mma_gemm {

typedef __nv_bfloat16 bf16;

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int THREADS = 256, MIN_BLOCKS_PER_SM = 2;
constexpr int WARPS_N = 4, WARP_M = 64, WARP_N = 32;        /* warps 2 x 4 over the block tile */
constexpr int TM = WARP_M / TILE, TN = WARP_N / TILE;       /* 16x16 register tiles per warp */
constexpr int PAD = 8;                                       /* keeps rows 16-byte aligned and ldmatrix conflict-free */
constexpr int VEC = VEC_BYTES / (int)sizeof(bf16);
constexpr int MAX_GRID_Y = 65535;

/* Shared tile shapes: A is BM x BK; B is BK x BN (B_KN) or BN x BK (B_NK). */
template <b_layout L> struct b_tile {
    static constexpr int ROWS = L == B_KN ? BK : BN, COLS = L == B_KN ? BN : BK;
};
constexpr int A_PITCH = BK + PAD, C_PITCH = BN + PAD;

template <b_layout L> union smem_tiles {
    struct {
        bf16 a[BM][A_PITCH];
        bf16 b[b_tile<L>::ROWS][b_tile<L>::COLS + PAD];
    } op;
    bf16 c[BM][C_PITCH];   /* the finished tile, after the last operand read */
};

template <int ROWS, int COLS> struct tile_vectors { static constexpr int PER_THREAD = ROWS * COLS / VEC / THREADS; };

/* The thread's share of a ROWS x COLS tile at (r0, c0) of a rows x cols matrix, zeros outside it. */
template <bool VEC_LOADS, int ROWS, int COLS>
__device__ __forceinline__ void fetch(uint4 (&dst)[tile_vectors<ROWS, COLS>::PER_THREAD], const bf16 *src,
                                      long long rows, long long cols, long long r0, long long c0) {
#pragma unroll
    for (int i = 0; i < tile_vectors<ROWS, COLS>::PER_THREAD; ++i) {
        const int v = threadIdx.x + i * THREADS;
        const long long r = r0 + v / (COLS / VEC), c = c0 + (v % (COLS / VEC)) * VEC;
        if (VEC_LOADS) {
            dst[i] = r < rows && c < cols ? __ldg(reinterpret_cast<const uint4 *>(src + r * cols + c))
                                          : make_uint4(0, 0, 0, 0);
        } else {
            bf16 *e = reinterpret_cast<bf16 *>(&dst[i]);
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                e[k] = r < rows && c + k < cols ? src[r * cols + c + k] : __float2bfloat16(0.0f);
        }
    }
}

template <int ROWS, int COLS, int PITCH>
__device__ __forceinline__ void put(bf16 (*dst)[PITCH], const uint4 (&src)[tile_vectors<ROWS, COLS>::PER_THREAD]) {
#pragma unroll
    for (int i = 0; i < tile_vectors<ROWS, COLS>::PER_THREAD; ++i) {
        const int v = threadIdx.x + i * THREADS;
        *reinterpret_cast<uint4 *>(&dst[v / (COLS / VEC)][(v % (COLS / VEC)) * VEC]) = src[i];
    }
}

template <b_layout L>
__device__ __forceinline__ void mma_slice(rt_acc (&acc)[TM][TN], const smem_tiles<L> &s, int wm, int wn) {
#pragma unroll
    for (int kk = 0; kk < BK; kk += TILE) {
        rt_a a[TM];
        rt_b b[TN];
#pragma unroll
        for (int i = 0; i < TM; ++i) load(a[i], &s.op.a[wm + i * TILE][kk], A_PITCH);
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            if (L == B_KN) load(b[j], &s.op.b[kk][wn + j * TILE], b_tile<L>::COLS + PAD);
            else load_nk(b[j], &s.op.b[wn + j * TILE][kk], b_tile<L>::COLS + PAD);
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) mma_ab(acc[i][j], a[i], b[j]);
    }
}

/* Rounds the accumulators into s.c; rt_acc register i holds row lane/4 + 8*((i/2)%2),
 * column 8*(i/4) + 2*(lane%4) + i%2. */
template <b_layout L>
__device__ __forceinline__ void stage_tile(smem_tiles<L> &s, const rt_acc (&acc)[TM][TN], int wm, int wn) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
#pragma unroll
            for (int k = 0; k < 8; k += 2) {
                const int r = wm + i * TILE + lane / 4 + 8 * ((k / 2) % 2);
                const int c = wn + j * TILE + 8 * (k / 4) + 2 * (lane % 4);
                *reinterpret_cast<__nv_bfloat162 *>(&s.c[r][c]) =
                    __floats2bfloat162_rn(acc[i][j].d[k], acc[i][j].d[k + 1]);
            }
}

template <b_layout L>
__device__ __forceinline__ void write_tile(bf16 *C, const smem_tiles<L> &s, long long m0, long long n0, int M, int N,
                                           bool vec_store) {
#pragma unroll
    for (int i = 0; i < BM * BN / VEC / THREADS; ++i) {
        const int v = threadIdx.x + i * THREADS, r = v / (BN / VEC), c = (v % (BN / VEC)) * VEC;
        if (m0 + r >= M) continue;
        bf16 *dst = C + (m0 + r) * N + n0 + c;
        if (vec_store && n0 + c < N) {
            *reinterpret_cast<uint4 *>(dst) = *reinterpret_cast<const uint4 *>(&s.c[r][c]);
        } else if (!vec_store) {
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                if (n0 + c + k < N) dst[k] = s.c[r][c + k];
        }
    }
}

/* blockIdx.x: output tile (row-major over tiles_n columns of tiles); batch0 + blockIdx.y: matrix of the batch. */
template <b_layout L, bool VEC_LOADS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM)
gemm_mma_kernel(gemm_args g, int tiles_n, int batch0, bool vec_store) {
    __shared__ __align__(16) smem_tiles<L> s;
    const long long batch = batch0 + (long long)blockIdx.y;
    const bf16 *A = g.A + batch * g.M * g.K, *B = g.B + batch * g.K * g.N;
    const long long m0 = (long long)(blockIdx.x / tiles_n) * BM, n0 = (long long)(blockIdx.x % tiles_n) * BN;
    const int warp = threadIdx.x / WARP, wm = (warp / WARPS_N) * WARP_M, wn = (warp % WARPS_N) * WARP_N;
    constexpr int BR = b_tile<L>::ROWS, BC = b_tile<L>::COLS;

    rt_acc acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) zero(acc[i][j]);

    uint4 a_next[tile_vectors<BM, BK>::PER_THREAD], b_next[tile_vectors<BR, BC>::PER_THREAD];
    auto fetch_slice = [&](long long k0) {
        fetch<VEC_LOADS, BM, BK>(a_next, A, g.M, g.K, m0, k0);
        if (L == B_KN) fetch<VEC_LOADS, BR, BC>(b_next, B, g.K, g.N, k0, n0);
        else fetch<VEC_LOADS, BR, BC>(b_next, B, g.N, g.K, n0, k0);
    };
    if (g.K > 0) fetch_slice(0);
    for (long long k0 = 0; k0 < g.K; k0 += BK) {
        __syncthreads();                   /* everyone is done reading the previous slice */
        put<BM, BK, A_PITCH>(s.op.a, a_next);
        put<BR, BC, BC + PAD>(s.op.b, b_next);
        __syncthreads();
        if (k0 + BK < g.K) fetch_slice(k0 + BK);   /* in flight while the tensor cores work */
        mma_slice<L>(acc, s, wm, wn);
    }
    __syncthreads();
    stage_tile<L>(s, acc, wm, wn);
    __syncthreads();
    write_tile<L>(g.C + batch * g.M * g.N, s, m0, n0, g.M, g.N, vec_store);
}

} /* namespace mma_gemm */

/* Enqueues the whole batched product; matrices past MAX_GRID_Y go in further launches. */
template <b_layout L>
inline void launch_gemm_mma(gemm_args g, long long batch, cudaStream_t stream) {
    using namespace mma_gemm;
    const bool vec_loads = g.K % VEC == 0 && (L == B_NK || g.N % VEC == 0) && is_aligned(g.A, VEC_BYTES) &&
                           is_aligned(g.B, VEC_BYTES);
    const bool vec_store = g.N % VEC == 0 && is_aligned(g.C, VEC_BYTES);
    const int tiles_n = (int)ceil_div(g.N, BN);
    const unsigned tiles = (unsigned)(ceil_div(g.M, BM) * tiles_n);
    for (long long b0 = 0; b0 < batch; b0 += MAX_GRID_Y) {
        const dim3 grid(tiles, (unsigned)(batch - b0 < MAX_GRID_Y ? batch - b0 : MAX_GRID_Y));
        if (vec_loads) gemm_mma_kernel<L, true><<<grid, THREADS, 0, stream>>>(g, tiles_n, (int)b0, vec_store);
        else gemm_mma_kernel<L, false><<<grid, THREADS, 0, stream>>>(g, tiles_n, (int)b0, vec_store);
    }
}

} /* namespace kf */
