/* Reference kernel for layernorm_bf16: y = (x - mean) / sqrt(var + 1e-5) * gamma + beta per row, bf16 in and out,
 * fp32 statistics (two-pass: mean, then mean squared deviation; biased variance), so rows like 300 + N(0, 1) keep
 * their precision. One block per row; rows of up to CACHED_MAX_COLS stay in registers (one DRAM read, one write),
 * 16-byte accesses when cols % 8 == 0 and pointers are aligned. Longer rows read x three times. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/reduce.cuh"
#include "tile/vec.cuh"

namespace {

typedef __nv_bfloat16 bf16;

constexpr float EPS = 1e-5f;
constexpr int VEC = kf::BF16_PER_VEC;
constexpr int SMALL_THREADS = 256, LARGE_THREADS = 1024;
constexpr int LARGE_VPT = 4;
constexpr int CACHED_MAX_COLS = LARGE_THREADS * LARGE_VPT * VEC;

template <int THREADS, bool VEC_IO>
__device__ __forceinline__ int col_of(int u, int e) {
    return VEC_IO ? (u * THREADS + (int)threadIdx.x) * VEC + e : (u * VEC + e) * THREADS + (int)threadIdx.x;
}

template <int THREADS, int VPT, bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
layernorm_cached(const bf16 *__restrict__ x, const bf16 *__restrict__ gamma, const bf16 *__restrict__ beta,
                 bf16 *__restrict__ y, int cols) {
    __shared__ float scratch[kf::WARP];
    const bf16 *xr = x + (long long)blockIdx.x * cols;
    bf16 *yr = y + (long long)blockIdx.x * cols;
    float v[VPT][VEC];
    bool valid[VPT][VEC];
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        const bool slot_valid = col_of<THREADS, true>(u, 0) < cols;
        if (VEC_IO && slot_valid) kf::load(v[u], xr + col_of<THREADS, true>(u, 0));
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            const int c = col_of<THREADS, VEC_IO>(u, e);
            valid[u][e] = VEC_IO ? slot_valid : c < cols;
            if (!VEC_IO) v[u][e] = valid[u][e] ? __bfloat162float(xr[c]) : 0.0f;
            else if (!slot_valid) v[u][e] = 0.0f;
        }
    }
    float mean = 0.0f;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) mean += v[u][e];
    kf::block_reduce<kf::op_sum>(mean, mean, scratch);
    mean /= cols;

    float var = 0.0f;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            const float d = valid[u][e] ? v[u][e] - mean : 0.0f;
            var += d * d;
        }
    kf::block_reduce<kf::op_sum>(var, var, scratch);
    const float rstd = rsqrtf(var / cols + EPS);

#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        if (VEC_IO) {
            const int c0 = col_of<THREADS, true>(u, 0);
            if (c0 >= cols) continue;
            float g[VEC], b[VEC];
            kf::load(g, gamma + c0);
            kf::load(b, beta + c0);
#pragma unroll
            for (int e = 0; e < VEC; ++e) v[u][e] = (v[u][e] - mean) * rstd * g[e] + b[e];
            kf::store(yr + c0, v[u]);
        } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const int c = col_of<THREADS, false>(u, e);
                if (c < cols)
                    yr[c] = __float2bfloat16_rn((v[u][e] - mean) * rstd * __bfloat162float(gamma[c]) +
                                                __bfloat162float(beta[c]));
            }
        }
    }
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

template <int THREADS, int VPT>
void launch_cached(const bf16 *x, const bf16 *gamma, const bf16 *beta, bf16 *y, int rows, int cols, bool vec_io,
                   cudaStream_t stream) {
    if (vec_io) layernorm_cached<THREADS, VPT, true><<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
    else layernorm_cached<THREADS, VPT, false><<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
                         __nv_bfloat16 *y, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return 0;
    const bool vec_io = cols % VEC == 0 && kf::is_aligned(x, kf::VEC_BYTES) && kf::is_aligned(gamma, kf::VEC_BYTES) &&
                        kf::is_aligned(beta, kf::VEC_BYTES) && kf::is_aligned(y, kf::VEC_BYTES);
    const int per_slot = SMALL_THREADS * VEC;
    if (cols <= 1 * per_slot) launch_cached<SMALL_THREADS, 1>(x, gamma, beta, y, rows, cols, vec_io, stream);
    else if (cols <= 2 * per_slot) launch_cached<SMALL_THREADS, 2>(x, gamma, beta, y, rows, cols, vec_io, stream);
    else if (cols <= 4 * per_slot) launch_cached<SMALL_THREADS, 4>(x, gamma, beta, y, rows, cols, vec_io, stream);
    else if (cols <= CACHED_MAX_COLS)
        launch_cached<LARGE_THREADS, LARGE_VPT>(x, gamma, beta, y, rows, cols, vec_io, stream);
    else layernorm_streamed<<<rows, LARGE_THREADS, 0, stream>>>(x, gamma, beta, y, cols);
    return kf::launch_status();
}
