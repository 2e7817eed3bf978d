/* Warp-specialised batched bf16 GEMM on TMA + wgmma (sm_90a), the design of cuda/matmul_bf16.cu generalised to a
 * batch and to either B layout (gemm_mma.cuh's b_layout): 128x256x64 block tiles, a 4-stage ring of 128-byte-
 * swizzled shared tiles filled by one producer warpgroup through 3-D tensor maps (zero fill past every matrix
 * edge), two consumer warpgroups each running m64n256k16 wgmma on a 64-row slice, one stage in flight.
 * Needs K % 8 == 0, N % 8 == 0 for B_KN, and 16-byte aligned A and B: launch_gemm_tma returns false otherwise
 * (or when the driver refuses a map), and the caller falls back to launch_gemm_mma. */
#pragma once
#include "common.cuh"
#include "gemm_mma.cuh"
#include "tma3d.cuh"
#include "wgmma.cuh"
#include "wgmma_bt.cuh"

namespace kf {
namespace tma_gemm {

typedef __nv_bfloat16 bf16;

constexpr int BM = 128, BN = 256, BK = 64;                 /* block tile; BK * 2 bytes = one swizzled row */
constexpr int STAGES = 4;
constexpr int CONSUMERS = BM / WG_M;                        /* consumer warpgroups, one 64-row slice each */
constexpr int THREADS = (CONSUMERS + 1) * WARPGROUP;        /* + the producer warpgroup */
constexpr int CHUNK_COLS = SWIZZLE_BYTES / (int)sizeof(bf16);   /* widest swizzled box: 64 bf16 */
constexpr int B_CHUNKS = BN / CHUNK_COLS;                   /* B_KN: the B tile as 64-column chunks */
constexpr int A_STAGE_BYTES = BM * BK * (int)sizeof(bf16);
constexpr int B_STAGE_BYTES = BK * BN * (int)sizeof(bf16);
constexpr int B_CHUNK_BYTES = B_STAGE_BYTES / B_CHUNKS;
constexpr int STAGE_BYTES = A_STAGE_BYTES + B_STAGE_BYTES;
constexpr int SMEM_BYTES = SWIZZLE_ATOM_BYTES /* alignment slack */ + STAGES * STAGE_BYTES +
                           2 * STAGES * (int)sizeof(uint64_t);
constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;      /* setmaxnreg budgets: 128*40 + 256*232 <= 64K */
constexpr int K_STEP_BYTES = WG_K * (int)sizeof(bf16);      /* next 16 columns of a K-major row */
constexpr int MN_K_STEP_BYTES = WG_K * SWIZZLE_BYTES;       /* next 16 rows of an MN-major chunk */
constexpr int A_SLICE_BYTES = WG_M * BK * (int)sizeof(bf16);
constexpr int MAX_GRID_Y = 65535;

struct stage_ring {
    uint8_t *tiles;                /* STAGES x (A tile, B tile), 1024-byte aligned */
    uint64_t *full, *empty;        /* full: TMA bytes landed; empty: both consumers done reading */
    __device__ uint8_t *a(int s) const { return tiles + s * STAGE_BYTES; }
    __device__ uint8_t *b(int s) const { return a(s) + A_STAGE_BYTES; }
};

template <b_layout L>
__device__ void produce(const stage_ring &ring, const CUtensorMap *map_a, const CUtensorMap *map_b, int batch, int m0,
                        int n0, int k_tiles) {
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % STAGES;
        if (kt >= STAGES) mbar_wait(&ring.empty[s], (kt / STAGES - 1) % 2);
        mbar_arrive_expect_bytes(&ring.full[s], STAGE_BYTES);
        tma_load_3d(ring.a(s), map_a, &ring.full[s], batch, m0, kt * BK);
        if (L == B_NK) {
            tma_load_3d(ring.b(s), map_b, &ring.full[s], batch, n0, kt * BK);
        } else {
            for (int c = 0; c < B_CHUNKS; ++c)
                tma_load_3d(ring.b(s) + c * B_CHUNK_BYTES, map_b, &ring.full[s], batch, kt * BK, n0 + c * CHUNK_COLS);
        }
    }
}

template <b_layout L>
__device__ void consume(rt_wg_acc &acc, const stage_ring &ring, int slice, int k_tiles) {
    const bool warp_leader = threadIdx.x % WARP == 0;
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % STAGES;
        mbar_wait(&ring.full[s], (kt / STAGES) % 2);
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / WG_K; ++k) {
            const uint64_t a = desc_k_major(ring.a(s) + slice * A_SLICE_BYTES + k * K_STEP_BYTES);
            if (L == B_NK) wgmma_abt(acc, a, desc_k_major(ring.b(s) + k * K_STEP_BYTES));
            else wgmma_ab(acc, a, desc_mn_major(ring.b(s) + k * MN_K_STEP_BYTES, B_CHUNK_BYTES));
        }
        wgmma_commit();
        wgmma_wait<1>();
        if (kt > 0 && warp_leader) mbar_arrive(&ring.empty[(kt - 1) % STAGES]);
    }
    wgmma_wait<0>();
}

/* Register d[i] of the 64x256 accumulator holds row 16*warp + lane/4 + 8*((i/2)%2),
 * column 8*(i/4) + 2*(lane%4) + i%2. */
__device__ void store_slice(bf16 *C, const rt_wg_acc &acc, int row0, int col0, int M, int N, bool pairs_ok) {
    const int lane = threadIdx.x % WARP, warp = (threadIdx.x / WARP) % (WARPGROUP / WARP);
#pragma unroll
    for (int i = 0; i < WG_ACC_REGS; i += 2) {
        const long long r = row0 + 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
        const long long c = col0 + 8 * (i / 4) + 2 * (lane % 4);
        if (r >= M || c >= N) continue;
        bf16 *dst = C + r * N + c;
        if (pairs_ok && c + 1 < N) {
            *reinterpret_cast<__nv_bfloat162 *>(dst) = __floats2bfloat162_rn(acc.d[i], acc.d[i + 1]);
        } else {
            dst[0] = __float2bfloat16_rn(acc.d[i]);
            if (c + 1 < N) dst[1] = __float2bfloat16_rn(acc.d[i + 1]);
        }
    }
}

/* blockIdx.x: output tile (row-major over tiles_n columns of tiles); batch0 + blockIdx.y: matrix of the batch. */
template <b_layout L>
__global__ void __launch_bounds__(THREADS, 1)
gemm_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, bf16 *C, int M,
                int N, int K, int tiles_n, int batch0) {
    extern __shared__ uint8_t smem_raw[];
    const uintptr_t atom = SWIZZLE_ATOM_BYTES;
    stage_ring ring;
    ring.tiles = reinterpret_cast<uint8_t *>(((uintptr_t)smem_raw + atom - 1) & ~(atom - 1));
    ring.full = reinterpret_cast<uint64_t *>(ring.tiles + STAGES * STAGE_BYTES);
    ring.empty = ring.full + STAGES;

    const int warpgroup = threadIdx.x / WARPGROUP, batch = batch0 + blockIdx.y;
    const int m0 = (blockIdx.x / tiles_n) * BM, n0 = (blockIdx.x % tiles_n) * BN;
    const int k_tiles = (int)ceil_div(K, BK);
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&ring.full[s], 1);
            mbar_init(&ring.empty[s], CONSUMERS * WARPGROUP / WARP);
        }
        mbar_init_fence();
    }
    __syncthreads();

    if (warpgroup == CONSUMERS) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
        if (threadIdx.x == CONSUMERS * WARPGROUP) produce<L>(ring, &map_a, &map_b, batch, m0, n0, k_tiles);
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
    rt_wg_acc acc;
    zero(acc);
    consume<L>(acc, ring, warpgroup, k_tiles);
    bf16 *Cb = C + (long long)batch * M * N;
    const bool pairs_ok = N % 2 == 0 && (uintptr_t)C % sizeof(__nv_bfloat162) == 0;
    store_slice(Cb, acc, m0 + warpgroup * WG_M, n0, M, N, pairs_ok);
}

} /* namespace tma_gemm */

/* Enqueues the batched product on the TMA + wgmma path, or returns false having enqueued nothing when the shape or
 * the pointers do not suit it. */
template <b_layout L>
inline bool launch_gemm_tma(gemm_args g, long long batch, cudaStream_t stream) {
    using namespace tma_gemm;
    const int per_pitch = TMA_STRIDE_ALIGN / (int)sizeof(bf16);
    if (g.K <= 0 || g.K % per_pitch != 0 || (L == B_KN && g.N % per_pitch != 0) || !is_aligned(g.A, TMA_STRIDE_ALIGN) ||
        !is_aligned(g.B, TMA_STRIDE_ALIGN))
        return false;
    CUtensorMap map_a, map_b;
    const bool maps = make_tensor_map_bf16_3d(&map_a, g.A, batch, g.M, g.K, BM, BK) &&
                      (L == B_NK ? make_tensor_map_bf16_3d(&map_b, g.B, batch, g.N, g.K, BN, BK)
                                 : make_tensor_map_bf16_3d(&map_b, g.B, batch, g.K, g.N, BK, CHUNK_COLS));
    if (!maps)
        return false;
    if (cudaFuncSetAttribute(gemm_tma_kernel<L>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES) !=
        cudaSuccess)
        return false;
    const int tiles_n = (int)ceil_div(g.N, BN);
    const unsigned tiles = (unsigned)(ceil_div(g.M, BM) * tiles_n);
    for (long long b0 = 0; b0 < batch; b0 += MAX_GRID_Y) {
        const unsigned nb = (unsigned)(batch - b0 < MAX_GRID_Y ? batch - b0 : MAX_GRID_Y);
        gemm_tma_kernel<L><<<dim3(tiles, nb), THREADS, SMEM_BYTES, stream>>>(map_a, map_b, g.C, g.M, g.N, g.K,
                                                                           tiles_n, (int)b0);
    }
    return true;
}

} /* namespace kf */
