/* Generic op library (see ops.cuh): GEMM over any element types with fp32 accumulation. 64x64 output tiles, k in
 * steps of 16 staged in shared memory as fp32 (each operand value widened, and pre-processed, once on its way in),
 * 256 threads of 4x4 outputs each, rows ty + 16 i and columns tx + 16 j so shared reads are conflict-free. A bf16
 * GEMM that must be fast belongs on kf::gemm (tile/gemm.cuh); this one takes anything (fp8, int8, packed fp4 with
 * block scales through a pre-op) and any transposes. */
#pragma once
#include "cuda/generic/elem.cuh"

namespace kfg {

struct gemm_desc {
    int M = 0, N = 0, K = 0;
    bool ta = false, tb = false;   /* A stored [K, M], B stored [N, K] */
    long long batch = 1;
    long long stride_a = -1, stride_b = -1, stride_c = -1;   /* elements between matrices; -1 packed, 0 broadcast */
    float alpha = 1.0f;
};

struct no_pre { __device__ float operator()(float v, long long, long long) const { return v; } };
struct no_epi2 { __device__ float operator()(float v, long long, long long) const { return v; } };
template <class T> struct epi_bias {
    const T *bias;
    __device__ float operator()(float v, long long, long long n) const { return v + ld(bias, n); }
};

constexpr int GBM = 64, GBN = 64, GBK = 16, GTHREADS = 256, GSUB = 4;

template <class TC, class TA, class TB, class PA, class PB, class Epi>
__global__ void __launch_bounds__(GTHREADS)
gemm_kernel(TC *C, const TA *A, const TB *B, gemm_desc d, PA pa, PB pb, Epi epi) {
    __shared__ float As[GBK][GBM];
    __shared__ float Bs[GBK][GBN];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const long long m0 = (long long)blockIdx.y * GBM, n0 = (long long)blockIdx.x * GBN;
    for (long long b = blockIdx.z; b < d.batch; b += gridDim.z) {
        const long long ao = b * d.stride_a, bo = b * d.stride_b, co = b * d.stride_c;
        float acc[GSUB][GSUB] = {};
        for (long long k0 = 0; k0 < d.K; k0 += GBK) {
#pragma unroll
            for (int j = 0; j < GBM * GBK / GTHREADS; ++j) {
                const int e = tid + j * GTHREADS;
                /* the operand's contiguous index fastest, so the loads coalesce */
                const int ml = d.ta ? e % GBM : e / GBK, kl = d.ta ? e / GBM : e % GBK;
                const long long m = m0 + ml, k = k0 + kl;
                float v = 0.0f;
                if (m < d.M && k < d.K) v = pa(ld(A, ao + (d.ta ? k * d.M + m : m * d.K + k)), m, k);
                As[kl][ml] = v;
            }
#pragma unroll
            for (int j = 0; j < GBN * GBK / GTHREADS; ++j) {
                const int e = tid + j * GTHREADS;
                const int nl = d.tb ? e / GBK : e % GBN, kl = d.tb ? e % GBK : e / GBN;
                const long long n = n0 + nl, k = k0 + kl;
                float v = 0.0f;
                if (n < d.N && k < d.K) v = pb(ld(B, bo + (d.tb ? n * d.K + k : k * d.N + n)), k, n);
                Bs[kl][nl] = v;
            }
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < GBK; ++kk) {
                float a[GSUB], bv[GSUB];
#pragma unroll
                for (int i = 0; i < GSUB; ++i) a[i] = As[kk][ty + 16 * i];
#pragma unroll
                for (int j = 0; j < GSUB; ++j) bv[j] = Bs[kk][tx + 16 * j];
#pragma unroll
                for (int i = 0; i < GSUB; ++i)
#pragma unroll
                    for (int j = 0; j < GSUB; ++j) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
            }
            __syncthreads();
        }
#pragma unroll
        for (int i = 0; i < GSUB; ++i)
#pragma unroll
            for (int j = 0; j < GSUB; ++j) {
                const long long m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
                if (m < d.M && n < d.N) st(C, co + m * d.N + n, epi(d.alpha * acc[i][j], m, n));
            }
    }
}

constexpr long long MAX_GRID_Z = 65535;

/* pre_a(v, m, k) and pre_b(v, k, n) see each operand value as loaded; epi(acc, m, n) each result. */
template <class TC, class TA, class TB, class PA, class PB, class Epi>
inline int gemm_pre(TC *C, const TA *A, const TB *B, gemm_desc d, PA pa, PB pb, Epi epi, cudaStream_t s) {
    if (d.M < 0 || d.N < 0 || d.K < 0 || d.batch < 0) return BAD;
    if (d.stride_a < 0) d.stride_a = (long long)d.M * d.K;
    if (d.stride_b < 0) d.stride_b = (long long)d.K * d.N;
    if (d.stride_c < 0) d.stride_c = (long long)d.M * d.N;
    if (d.M == 0 || d.N == 0 || d.batch == 0) return 0;
    const dim3 grid((unsigned)((d.N + GBN - 1) / GBN), (unsigned)((d.M + GBM - 1) / GBM),
                    (unsigned)(d.batch < MAX_GRID_Z ? d.batch : MAX_GRID_Z));
    if (grid.y > 65535) return BAD;
    gemm_kernel<<<grid, GTHREADS, 0, s>>>(C, A, B, d, pa, pb, epi);
    return status();
}

template <class TC, class TA, class TB, class Epi>
inline int gemm(TC *C, const TA *A, const TB *B, const gemm_desc &d, Epi epi, cudaStream_t s) {
    return gemm_pre(C, A, B, d, no_pre{}, no_pre{}, epi, s);
}

} /* namespace kfg */
