/* Reference kernel for matmul_f32: C[M,N] = A[M,K] @ B[K,N], row-major fp32, every product and sum in fp32 on the
 * CUDA cores (no tf32: its 10-bit mantissa misses the task's tolerance). 128x128x8 block tiles in double-buffered
 * shared memory (A stored transposed), the next slice prefetched into registers, 8x8 outputs per thread as four
 * 4x4 quadrants so shared reads are 16-byte and conflict-free. 16-byte global accesses when K % 4 == 0,
 * N % 4 == 0 and the pointers are aligned; bounds-checked scalar accesses otherwise. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/vec.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 8;
constexpr int THREADS = 256, MIN_BLOCKS_PER_SM = 2;   /* 128 registers a thread: two blocks share an SM */
constexpr int VEC = kf::F32_PER_VEC;
constexpr int QUAD = 4;                        /* a thread's 8x8 outputs: 2x2 quadrants of 4x4, 64 apart */
constexpr int HALF_M = BM / 2, HALF_N = BN / 2;
constexpr int THREADS_N = HALF_N / QUAD;       /* 16 threads across N, 16 down M */
constexpr int A_PITCH = BM + 4;                /* the transposed A store hits 32 distinct banks */
constexpr int A_LOADS = BM * BK / VEC / THREADS, B_LOADS = BK * BN / VEC / THREADS;   /* 1 vector each */

struct smem_tiles {
    float a[2][BK][A_PITCH];     /* a[k][m] */
    float b[2][BK][BN];
};

template <bool VEC_IO>
__device__ __forceinline__ void fetch(float (&a)[A_LOADS][VEC], float (&b)[B_LOADS][VEC], const float *A,
                                      const float *B, int M, int N, int K, long long m0, long long n0, long long k0) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
        const int v = threadIdx.x + i * THREADS;
        const long long r = m0 + v / (BK / VEC), c = k0 + (v % (BK / VEC)) * VEC;
        if (VEC_IO && r < M && c < K) kf::load(a[i], A + r * K + c);
        else
#pragma unroll
            for (int e = 0; e < VEC; ++e) a[i][e] = !VEC_IO && r < M && c + e < K ? A[r * K + c + e] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
        const int v = threadIdx.x + i * THREADS;
        const long long r = k0 + v / (BN / VEC), c = n0 + (v % (BN / VEC)) * VEC;
        if (VEC_IO && r < K && c < N) kf::load(b[i], B + r * N + c);
        else
#pragma unroll
            for (int e = 0; e < VEC; ++e) b[i][e] = !VEC_IO && r < K && c + e < N ? B[r * N + c + e] : 0.0f;
    }
}

__device__ __forceinline__ void put(smem_tiles &s, int buf, const float (&a)[A_LOADS][VEC],
                                    const float (&b)[B_LOADS][VEC]) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
        const int v = threadIdx.x + i * THREADS, m = v / (BK / VEC), k = (v % (BK / VEC)) * VEC;
#pragma unroll
        for (int e = 0; e < VEC; ++e) s.a[buf][k + e][m] = a[i][e];
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
        const int v = threadIdx.x + i * THREADS;
        kf::store(&s.b[buf][v / (BN / VEC)][(v % (BN / VEC)) * VEC], b[i]);
    }
}

template <bool VEC_IO>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM)
sgemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K,
      int tiles_n) {
    __shared__ __align__(16) smem_tiles s;
    const long long m0 = (long long)(blockIdx.x / tiles_n) * BM, n0 = (long long)(blockIdx.x % tiles_n) * BN;
    const int tm = (threadIdx.x / THREADS_N) * QUAD, tn = (threadIdx.x % THREADS_N) * QUAD;
    float acc[2 * QUAD][2 * QUAD] = {};
    float a_next[A_LOADS][VEC], b_next[B_LOADS][VEC];

    fetch<VEC_IO>(a_next, b_next, A, B, M, N, K, m0, n0, 0);
    put(s, 0, a_next, b_next);
    __syncthreads();
    int buf = 0;
    for (long long k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) fetch<VEC_IO>(a_next, b_next, A, B, M, N, K, m0, n0, k0 + BK);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[2 * QUAD], b[2 * QUAD];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const float4 av = *reinterpret_cast<const float4 *>(&s.a[buf][k][tm + h * HALF_M]);
                const float4 bv = *reinterpret_cast<const float4 *>(&s.b[buf][k][tn + h * HALF_N]);
                a[h * QUAD + 0] = av.x; a[h * QUAD + 1] = av.y; a[h * QUAD + 2] = av.z; a[h * QUAD + 3] = av.w;
                b[h * QUAD + 0] = bv.x; b[h * QUAD + 1] = bv.y; b[h * QUAD + 2] = bv.z; b[h * QUAD + 3] = bv.w;
            }
#pragma unroll
            for (int i = 0; i < 2 * QUAD; ++i)
#pragma unroll
                for (int j = 0; j < 2 * QUAD; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (more) put(s, buf ^ 1, a_next, b_next);   /* the other buffer: nobody reads it this step */
        __syncthreads();
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < 2 * QUAD; ++i) {
        const long long r = m0 + tm + (i / QUAD) * HALF_M + i % QUAD;
        if (r >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const long long c = n0 + tn + h * HALF_N;
            float *dst = C + r * N + c;
            if (VEC_IO && c < N) {
                const float *q = &acc[i][h * QUAD];
                const float out[VEC] = {q[0], q[1], q[2], q[3]};
                kf::store(dst, out);
            } else if (!VEC_IO) {
#pragma unroll
                for (int e = 0; e < QUAD; ++e)
                    if (c + e < N) dst[e] = acc[i][h * QUAD + e];
            }
        }
    }
}

} /* namespace */

extern "C" int kf_launch(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
    if (kf::bad_shape(M, N, K)) return (int)cudaErrorInvalidValue;
    if (M == 0 || N == 0) return 0;
    const bool vec_io = K % VEC == 0 && N % VEC == 0 && kf::is_aligned(A, kf::VEC_BYTES) &&
                        kf::is_aligned(B, kf::VEC_BYTES) && kf::is_aligned(C, kf::VEC_BYTES);
    const int tiles_n = (int)kf::ceil_div(N, BN);
    const unsigned tiles = (unsigned)(kf::ceil_div(M, BM) * tiles_n);
    if (vec_io) sgemm<true><<<tiles, THREADS, 0, stream>>>(A, B, C, M, N, K, tiles_n);
    else sgemm<false><<<tiles, THREADS, 0, stream>>>(A, B, C, M, N, K, tiles_n);
    return kf::launch_status();
}
