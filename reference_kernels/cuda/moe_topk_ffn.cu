/* Reference kernel for moe_topk_ffn: generic. The router logits by the library GEMM (reference_kernels/cuda/generic);
 * top-K by warp (reference_kernels/cuda/topk_route.cuh) with the softmax weights; the (token, choice) slots bucketed by
 * expert (atomic counts, an exclusive scan, a scatter); two grouped GEMMs, one grid z-slice per expert over its own
 * rows (64x64 fp32 tiles; the first gathers token rows and applies SiLU, the second scatters back to slot order); and a
 * combine that sums each token's K results in slot order. Intermediates live in scratch (cuda/scratch.cuh). */
#include "cuda/generic/ops.cuh"
#include "cuda/scratch.cuh"
#include "cuda/topk_route.cuh"

namespace {

constexpr int BM = 64, BN = 64, BK = 16, GEMM_THREADS = 256, SUB = 4;

__global__ void count_slots(const int *idx, int *pos, int *count, long long slots) {
    const long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (s < slots) pos[s] = atomicAdd(&count[idx[s]], 1);
}

/* offs[e] = the first sorted position of expert e (an exclusive scan of E counts: one thread, E is small). */
__global__ void scan_counts(const int *count, int *offs, int E) {
    int run = 0;
    for (int e = 0; e < E; ++e) {
        offs[e] = run;
        run += count[e];
    }
    offs[E] = run;
}

__global__ void place_slots(const int *idx, const int *pos, const int *offs, int *perm, long long slots) {
    const long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (s < slots) perm[offs[idx[s]] + pos[s]] = (int)s;
}

/* For expert z = blockIdx.z: rows r < offs[z+1] - offs[z] of C = act(A_rows @ W[z]^T), W[z] [N, Kd]. GATHER: row r of
 * A is token perm[offs[z] + r] / topk of A, else row offs[z] + r. SCATTER: the result goes to row perm[offs[z] + r] of
 * C, else to row offs[z] + r. */
template <bool GATHER, bool SCATTER, bool SILU>
__global__ void __launch_bounds__(GEMM_THREADS) grouped_gemm(float *C, const float *A, const float *W, const int *offs,
                                                             const int *perm, int N, int Kd, int topk) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    const int e = blockIdx.z, lo = offs[e], rows = offs[e + 1] - lo;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    if (m0 >= rows) return;
    const float *Wz = W + (size_t)e * N * Kd;
    float acc[SUB][SUB] = {};
    for (int k0 = 0; k0 < Kd; k0 += BK) {
#pragma unroll
        for (int j = 0; j < BM * BK / GEMM_THREADS; ++j) {
            const int i = tid + j * GEMM_THREADS, ml = i / BK, kl = i % BK, m = m0 + ml, k = k0 + kl;
            float v = 0.0f;
            if (m < rows && k < Kd) {
                const long long r = GATHER ? perm[lo + m] / topk : lo + m;
                v = A[r * Kd + k];
            }
            As[kl][ml] = v;
        }
#pragma unroll
        for (int j = 0; j < BN * BK / GEMM_THREADS; ++j) {
            const int i = tid + j * GEMM_THREADS, nl = i / BK, kl = i % BK, n = n0 + nl, k = k0 + kl;
            Bs[kl][nl] = n < N && k < Kd ? Wz[(size_t)n * Kd + k] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[SUB], b[SUB];
#pragma unroll
            for (int i = 0; i < SUB; ++i) a[i] = As[kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < SUB; ++j) b[j] = Bs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < SUB; ++i)
#pragma unroll
                for (int j = 0; j < SUB; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < SUB; ++i)
#pragma unroll
        for (int j = 0; j < SUB; ++j) {
            const int m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
            if (m >= rows || n >= N) continue;
            float v = acc[i][j];
            if (SILU) v = v / (1.0f + expf(-v));
            const long long r = SCATTER ? perm[lo + m] : lo + m;
            C[r * N + n] = v;
        }
}

__global__ void combine(const float *p, const float *out, float *y, long long T, int D, int K) {
    for (long long t = blockIdx.x * (long long)kfg::THREADS + threadIdx.x; t < T * D;
         t += (long long)gridDim.x * kfg::THREADS) {
        const long long tok = t / D, d = t % D;
        float acc = 0.0f;
        for (int j = 0; j < K; ++j) acc += p[tok * K + j] * out[(tok * K + j) * D + d];
        y[t] = acc;
    }
}

/* The scratch regions, in order. */
struct moe_scratch {
    float *logits, *p, *h, *out;
    int *pos, *count, *offs, *perm;
};

int carve(long long T, int D, int F, int E, int K, moe_scratch *s) {
    const size_t slots = (size_t)T * K, sizes[8] = {sizeof(float) * (size_t)T * E, sizeof(float) * slots,
                                                   sizeof(float) * slots * F, sizeof(float) * slots * D,
                                                   sizeof(int) * slots, sizeof(int) * (size_t)E,
                                                   sizeof(int) * ((size_t)E + 1), sizeof(int) * slots};
    size_t total = 0;
    for (size_t b : sizes) total += kfs::region(b);
    void *buf;
    const int rc = kfs::scratch(total, &buf);
    if (rc) return rc;
    char *at = static_cast<char *>(buf);
    void *parts[8];
    for (int i = 0; i < 8; ++i) {
        parts[i] = at;
        at += kfs::region(sizes[i]);
    }
    *s = moe_scratch{static_cast<float *>(parts[0]), static_cast<float *>(parts[1]), static_cast<float *>(parts[2]),
                     static_cast<float *>(parts[3]), static_cast<int *>(parts[4]), static_cast<int *>(parts[5]),
                     static_cast<int *>(parts[6]), static_cast<int *>(parts[7])};
    return 0;
}

} /* namespace */

extern "C" int kf_launch(const float *x, const float *Wr, const float *W1, const float *W2, int *idx, float *y, int T,
                         int D, int F, int E, int K, cudaStream_t stream) {
    if (K > kfr::MAX_K || K > E || T > 65535 * BM) return kfg::BAD;
    if (T == 0) return 0;
    moe_scratch s;
    int rc = carve(T, D, F, E, K, &s);
    kfg::gemm_desc d;
    d.M = T;
    d.N = E;
    d.K = D;
    d.tb = true;
    if (!rc) rc = kfg::gemm(s.logits, x, Wr, d, kfg::no_epi2{}, stream);
    const long long slots = (long long)T * K;
    const unsigned slot_blocks = (unsigned)((slots + kfg::THREADS - 1) / kfg::THREADS);
    if (!rc) {
        kfr::topk_softmax<<<(unsigned)((T + kfr::WARPS - 1) / kfr::WARPS), kfr::WARPS * kfr::WARP, 0, stream>>>(s.logits, s.p, idx, T,
                                                                                                     E, K);
        rc = (int)cudaMemsetAsync(s.count, 0, sizeof(int) * (size_t)E, stream);
    }
    if (!rc) {
        count_slots<<<slot_blocks, kfg::THREADS, 0, stream>>>(idx, s.pos, s.count, slots);
        scan_counts<<<1, 1, 0, stream>>>(s.count, s.offs, E);
        place_slots<<<slot_blocks, kfg::THREADS, 0, stream>>>(idx, s.pos, s.offs, s.perm, slots);
        const dim3 up((F + BN - 1) / BN, (T + BM - 1) / BM, E), down((D + BN - 1) / BN, (T + BM - 1) / BM, E);
        grouped_gemm<true, false, true><<<up, GEMM_THREADS, 0, stream>>>(s.h, x, W1, s.offs, s.perm, F, D, K);
        grouped_gemm<false, true, false><<<down, GEMM_THREADS, 0, stream>>>(s.out, s.h, W2, s.offs, s.perm, D, F, K);
        combine<<<kfg::grid_for((long long)T * D), kfg::THREADS, 0, stream>>>(s.p, s.out, y, T, D, K);
        rc = kfg::status();
    }
    return rc;
}
