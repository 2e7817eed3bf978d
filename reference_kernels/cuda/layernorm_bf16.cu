/* Reference kernel for layernorm_bf16: y = (x - mean) / sqrt(var + 1e-5) * gamma + beta per row, bf16 in and out,
 * fp32 statistics (two-pass: mean, then mean squared deviation; biased variance), so rows like 300 + N(0, 1) keep
 * their precision (tile/norm.cuh). One block per row; rows of up to 32768 columns stay in registers (tile/rows.cuh
 * row_frag; one DRAM read, one write), 16-byte accesses when cols % 8 == 0 and the pointers are aligned. Longer rows
 * read x three times. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/norm.cuh"
#include "tile/rows.cuh"

namespace {

typedef __nv_bfloat16 bf16;

constexpr float EPS = 1e-5f;
constexpr int VEC = kf::BF16_PER_VEC;
constexpr int SMALL_VPT_MAX = 4, LARGE_VPT = 4;
constexpr int LARGE_THREADS = kf::ROW_LARGE_THREADS;

template <int THREADS, int VPT, bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
layernorm_cached(const bf16 *__restrict__ x, const bf16 *__restrict__ gamma, const bf16 *__restrict__ beta,
                 bf16 *__restrict__ y, int cols) {
    __shared__ float scratch[kf::WARP];
    kf::row_frag<bf16, THREADS, VPT> r;
    kf::load_row<VEC_IO>(r, x + (long long)blockIdx.x * cols, cols, 0.0f);
    float mean, rstd;
    kf::frag_mean_rstd<VEC_IO>(mean, rstd, r, cols, EPS, scratch);
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        float g[VEC], b[VEC];
        kf::load_slot<VEC_IO, THREADS>(g, gamma, u, cols);
        kf::load_slot<VEC_IO, THREADS>(b, beta, u, cols);
#pragma unroll
        for (int e = 0; e < VEC; ++e) r.v[u][e] = (r.v[u][e] - mean) * rstd * g[e] + b[e];
    }
    kf::store_row<VEC_IO>(y + (long long)blockIdx.x * cols, r, cols);
}

/* Rows too long for registers: the same two-pass statistics, each pass re-reading the row. */
__global__ void __launch_bounds__(LARGE_THREADS)
layernorm_streamed(const bf16 *__restrict__ x, const bf16 *__restrict__ gamma, const bf16 *__restrict__ beta,
                   bf16 *__restrict__ y, int cols) {
    __shared__ float scratch[kf::WARP];
    const bf16 *xr = x + (long long)blockIdx.x * cols;
    bf16 *yr = y + (long long)blockIdx.x * cols;
    float mean = 0.0f, var = 0.0f;
    for (int c = threadIdx.x; c < cols; c += LARGE_THREADS) mean += __bfloat162float(xr[c]);
    kf::block_reduce<kf::op_sum>(mean, mean, scratch);
    mean /= cols;
    for (int c = threadIdx.x; c < cols; c += LARGE_THREADS) {
        const float d = __bfloat162float(xr[c]) - mean;
        var += d * d;
    }
    kf::block_reduce<kf::op_sum>(var, var, scratch);
    const float rstd = rsqrtf(var / cols + EPS);
    for (int c = threadIdx.x; c < cols; c += LARGE_THREADS)
        yr[c] = __float2bfloat16_rn((__bfloat162float(xr[c]) - mean) * rstd * __bfloat162float(gamma[c]) +
                                    __bfloat162float(beta[c]));
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
                         __nv_bfloat16 *y, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return 0;
    const bool vec_io = kf::row_vec_ok<bf16>(x, cols) && kf::is_aligned(gamma, kf::VEC_BYTES) &&
                        kf::is_aligned(beta, kf::VEC_BYTES) && kf::is_aligned(y, kf::VEC_BYTES);
    const auto launch = [&](auto t, auto v, auto io) {
        layernorm_cached<decltype(t)::value, decltype(v)::value, decltype(io)::value>
            <<<rows, decltype(t)::value, 0, stream>>>(x, gamma, beta, y, cols);
    };
    if (kf::launch_row_cached<bf16, SMALL_VPT_MAX, LARGE_VPT>(cols, vec_io, launch)) return kf::launch_status();
    layernorm_streamed<<<rows, LARGE_THREADS, 0, stream>>>(x, gamma, beta, y, cols);
    return kf::launch_status();
}
