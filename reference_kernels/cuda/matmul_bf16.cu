/* Reference kernel for matmul_bf16: C[M,N] = A[M,K] @ B[K,N], row-major bf16, fp32 accumulation, bf16 out.
 * Fast path (K and N multiples of 8, A and B 16-byte aligned): TMA loads into a 4-stage ring of 128-byte-swizzled
 * shared tiles, one producer warpgroup, two consumer warpgroups each on a 64x256 slice with wgmma (sm_90a).
 * Any other shape: 64x64 block tiles on mma.sync, loads guarded element by element. Tails are handled in both. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/mma.cuh"
#include "tile/wgmma.cuh"

namespace {

typedef __nv_bfloat16 bf16;

/* ---- fast path: shapes named once ---- */
constexpr int BM = 128, BN = 256, BK = 64;                 /* block tile; BK * 2 bytes = one swizzled row */
constexpr int STAGES = 4;
constexpr int CONSUMERS = BM / kf::WG_M;                   /* consumer warpgroups, one 64-row slice each */
constexpr int THREADS = (CONSUMERS + 1) * kf::WARPGROUP;   /* + the producer warpgroup */
constexpr int B_CHUNK_COLS = kf::SWIZZLE_BYTES / (int)sizeof(bf16);  /* widest swizzled TMA box */
constexpr int B_CHUNKS = BN / B_CHUNK_COLS;
constexpr int A_STAGE_BYTES = BM * BK * (int)sizeof(bf16);
constexpr int B_CHUNK_BYTES = BK * B_CHUNK_COLS * (int)sizeof(bf16);
constexpr int STAGE_BYTES = A_STAGE_BYTES + B_CHUNKS * B_CHUNK_BYTES;
constexpr int SMEM_BYTES = kf::SWIZZLE_ATOM_BYTES /* alignment slack */ + STAGES * STAGE_BYTES +
                           2 * STAGES * (int)sizeof(uint64_t);
constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;     /* setmaxnreg budgets: 128*40 + 256*232 <= 64K */
constexpr int A_K_STEP_BYTES = kf::WG_K * (int)sizeof(bf16);        /* next 16 columns of a K-major row */
constexpr int B_K_STEP_BYTES = kf::WG_K * kf::SWIZZLE_BYTES;        /* next 16 rows of an MN-major chunk */
constexpr int A_SLICE_BYTES = kf::WG_M * BK * (int)sizeof(bf16);    /* one consumer's 64 rows of the A stage */

struct stage_ring {
    uint8_t *tiles;                /* STAGES x (A tile, then B_CHUNKS B chunks), 1024-byte aligned */
    uint64_t *full, *empty;        /* full: TMA bytes landed; empty: both consumers done reading */
    __device__ uint8_t *a(int s) const { return tiles + s * STAGE_BYTES; }
    __device__ uint8_t *b(int s, int chunk) const { return a(s) + A_STAGE_BYTES + chunk * B_CHUNK_BYTES; }
};

__device__ void produce(const stage_ring &ring, const CUtensorMap *map_a, const CUtensorMap *map_b, int m0, int n0,
                        int k_tiles) {
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % STAGES;
        if (kt >= STAGES) kf::mbar_wait(&ring.empty[s], (kt / STAGES - 1) % 2);
        kf::mbar_arrive_expect_bytes(&ring.full[s], STAGE_BYTES);
        kf::tma_load(ring.a(s), map_a, &ring.full[s], m0, kt * BK);
        for (int c = 0; c < B_CHUNKS; ++c)
            kf::tma_load(ring.b(s, c), map_b, &ring.full[s], kt * BK, n0 + c * B_CHUNK_COLS);
    }
}

/* One consumer warpgroup: keeps one stage's wgmmas in flight while the next stage's are issued. */
__device__ void consume(kf::rt_wg_acc &acc, const stage_ring &ring, int slice, int k_tiles) {
    const bool warp_leader = threadIdx.x % kf::WARP == 0;
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % STAGES;
        kf::mbar_wait(&ring.full[s], (kt / STAGES) % 2);
        kf::wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / kf::WG_K; ++k)
            kf::wgmma_ab(acc, kf::desc_k_major(ring.a(s) + slice * A_SLICE_BYTES + k * A_K_STEP_BYTES),
                         kf::desc_mn_major(ring.b(s, 0) + k * B_K_STEP_BYTES, B_CHUNK_BYTES));
        kf::wgmma_commit();
        kf::wgmma_wait<1>();
        if (kt > 0 && warp_leader) kf::mbar_arrive(&ring.empty[(kt - 1) % STAGES]);
    }
    kf::wgmma_wait<0>();
}

/* Register d[i] of the 64x256 accumulator holds row 16*warp + lane/4 + 8*((i/2)%2),
 * column 8*(i/4) + 2*(lane%4) + i%2. */
__device__ void store_slice(bf16 *C, const kf::rt_wg_acc &acc, int row0, int col0, int M, int N, bool pairs_ok) {
    const int lane = threadIdx.x % kf::WARP, warp = (threadIdx.x / kf::WARP) % (kf::WARPGROUP / kf::WARP);
#pragma unroll
    for (int i = 0; i < kf::WG_ACC_REGS; i += 2) {
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

__global__ void __launch_bounds__(THREADS, 1)
matmul_wgmma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, bf16 *C, int M,
             int N, int K) {
    extern __shared__ uint8_t smem_raw[];
    const uintptr_t atom = kf::SWIZZLE_ATOM_BYTES;
    const uintptr_t base = ((uintptr_t)smem_raw + atom - 1) & ~(atom - 1);
    stage_ring ring;
    ring.tiles = reinterpret_cast<uint8_t *>(base);
    ring.full = reinterpret_cast<uint64_t *>(ring.tiles + STAGES * STAGE_BYTES);
    ring.empty = ring.full + STAGES;

    const int warpgroup = threadIdx.x / kf::WARPGROUP;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int k_tiles = (int)kf::ceil_div(K, BK);
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            kf::mbar_init(&ring.full[s], 1);
            kf::mbar_init(&ring.empty[s], CONSUMERS * kf::WARPGROUP / kf::WARP);
        }
        kf::mbar_init_fence();
    }
    __syncthreads();

    if (warpgroup == CONSUMERS) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
        if (threadIdx.x == CONSUMERS * kf::WARPGROUP) produce(ring, &map_a, &map_b, m0, n0, k_tiles);
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
    kf::rt_wg_acc acc;
    kf::zero(acc);
    consume(acc, ring, warpgroup, k_tiles);
    const bool pairs_ok = N % 2 == 0 && (uintptr_t)C % sizeof(__nv_bfloat162) == 0;
    store_slice(C, acc, m0 + warpgroup * kf::WG_M, n0, M, N, pairs_ok);
}

/* ---- any shape: mma.sync on 64x64 block tiles, four warps of 32x32 ---- */
constexpr int SM = 64, SN = 64, SK = 32;
constexpr int SMALL_THREADS = 128;
constexpr int SMALL_WARP_TILES = 2;       /* 16x16 register tiles per warp along M and along N */
constexpr int PAD = 8;                    /* keeps ldmatrix rows 16-byte aligned and off each other's banks */

__global__ void __launch_bounds__(SMALL_THREADS)
matmul_mma(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, int M, int N, int K) {
    __shared__ __align__(16) bf16 sa[SM][SK + PAD];
    __shared__ __align__(16) bf16 sb[SK][SN + PAD];
    const int warp = threadIdx.x / kf::WARP;
    const int wm = (warp / 2) * SMALL_WARP_TILES * kf::TILE, wn = (warp % 2) * SMALL_WARP_TILES * kf::TILE;
    const long long m0 = (long long)blockIdx.y * SM, n0 = (long long)blockIdx.x * SN;
    const bf16 zero = __float2bfloat16(0.0f);

    kf::rt_acc acc[SMALL_WARP_TILES][SMALL_WARP_TILES];
#pragma unroll
    for (int i = 0; i < SMALL_WARP_TILES; ++i)
#pragma unroll
        for (int j = 0; j < SMALL_WARP_TILES; ++j) kf::zero(acc[i][j]);

    for (long long k0 = 0; k0 < K; k0 += SK) {
        for (int i = threadIdx.x; i < SM * SK; i += SMALL_THREADS) {
            const long long r = m0 + i / SK, c = k0 + i % SK;
            sa[i / SK][i % SK] = r < M && c < K ? A[r * K + c] : zero;
        }
        for (int i = threadIdx.x; i < SK * SN; i += SMALL_THREADS) {
            const long long r = k0 + i / SN, c = n0 + i % SN;
            sb[i / SN][i % SN] = r < K && c < N ? B[r * N + c] : zero;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < SK; kk += kf::TILE) {
            kf::rt_a a[SMALL_WARP_TILES];
            kf::rt_b b[SMALL_WARP_TILES];
#pragma unroll
            for (int t = 0; t < SMALL_WARP_TILES; ++t) {
                kf::load(a[t], &sa[wm + t * kf::TILE][kk], SK + PAD);
                kf::load(b[t], &sb[kk][wn + t * kf::TILE], SN + PAD);
            }
#pragma unroll
            for (int i = 0; i < SMALL_WARP_TILES; ++i)
#pragma unroll
                for (int j = 0; j < SMALL_WARP_TILES; ++j) kf::mma_ab(acc[i][j], a[i], b[j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < SMALL_WARP_TILES; ++i)
#pragma unroll
        for (int j = 0; j < SMALL_WARP_TILES; ++j)
            kf::store(C, acc[i][j], m0 + wm + i * kf::TILE, n0 + wn + j * kf::TILE, M, N);
}

bool fast_path_fits(const bf16 *A, const bf16 *B, int N, int K) {
    const int per_pitch = kf::TMA_STRIDE_ALIGN / (int)sizeof(bf16);
    return K > 0 && K % per_pitch == 0 && N % per_pitch == 0 && kf::is_aligned(A, kf::TMA_STRIDE_ALIGN) &&
           kf::is_aligned(B, kf::TMA_STRIDE_ALIGN);
}

bool launch_wgmma(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K, cudaStream_t stream) {
    CUtensorMap map_a, map_b;
    if (!kf::make_tensor_map_bf16(&map_a, A, M, K, BM, BK) ||
        !kf::make_tensor_map_bf16(&map_b, B, K, N, BK, B_CHUNK_COLS))
        return false;
    if (cudaFuncSetAttribute(matmul_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES) != cudaSuccess)
        return false;
    const dim3 grid((unsigned)kf::ceil_div(N, BN), (unsigned)kf::ceil_div(M, BM));
    matmul_wgmma<<<grid, THREADS, SMEM_BYTES, stream>>>(map_a, map_b, C, M, N, K);
    return true;
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
                         cudaStream_t stream) {
    if (kf::bad_shape(M, N, K)) return (int)cudaErrorInvalidValue;
    if (M == 0 || N == 0) return 0;
    if (fast_path_fits(A, B, N, K) && launch_wgmma(A, B, C, M, N, K, stream)) return kf::launch_status();
    const dim3 grid((unsigned)kf::ceil_div(N, SN), (unsigned)kf::ceil_div(M, SM));
    matmul_mma<<<grid, SMALL_THREADS, 0, stream>>>(A, B, C, M, N, K);
    return kf::launch_status();
}
