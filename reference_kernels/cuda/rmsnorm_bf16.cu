/* Reference kernel for rmsnorm_bf16: y = x / sqrt(mean(x^2) + 1e-6) * gamma per row, bf16 in and out, fp32 inside.
 * One block per row; rows of up to 32768 columns stay in registers (tile/rows.cuh row_frag) between the sum of
 * squares and the write, one read and one write of DRAM, 16-byte accesses when cols % 8 == 0 and the pointers are
 * aligned. Longer rows read x twice. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/reduce.cuh"
#include "tile/rows.cuh"

namespace {

typedef __nv_bfloat16 bf16;

constexpr float EPS = 1e-6f;
constexpr int VEC = kf::BF16_PER_VEC;
constexpr int SMALL_VPT_MAX = 4, LARGE_VPT = 4;
constexpr int LARGE_THREADS = kf::ROW_LARGE_THREADS;

template <int THREADS, int VPT, bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
rmsnorm_cached(const bf16 *__restrict__ x, const bf16 *__restrict__ gamma, bf16 *__restrict__ y, int cols) {
    __shared__ float scratch[kf::WARP];
    kf::row_frag<bf16, THREADS, VPT> r;
    kf::load_row<VEC_IO>(r, x + (long long)blockIdx.x * cols, cols, 0.0f);
    float ss = 0.0f;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) ss = fmaf(r.v[u][e], r.v[u][e], ss);
    kf::block_reduce<kf::op_sum>(ss, ss, scratch);
    const float rstd = rsqrtf(ss / cols + EPS);
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        float g[VEC];
        kf::load_slot<VEC_IO, THREADS>(g, gamma, u, cols);
#pragma unroll
        for (int e = 0; e < VEC; ++e) r.v[u][e] *= rstd * g[e];
    }
    kf::store_row<VEC_IO>(y + (long long)blockIdx.x * cols, r, cols);
}

template <bool VEC_IO>
__global__ void __launch_bounds__(LARGE_THREADS)
rmsnorm_streamed(const bf16 *__restrict__ x, const bf16 *__restrict__ gamma, bf16 *__restrict__ y, int cols) {
    __shared__ float scratch[kf::WARP];
    const bf16 *row = x + (long long)blockIdx.x * cols;
    bf16 *yrow = y + (long long)blockIdx.x * cols;
    float ss = 0.0f;
    kf::row_for_each<LARGE_THREADS, VEC_IO>(row, cols, [&](float v, int) { ss = fmaf(v, v, ss); });
    kf::block_reduce<kf::op_sum>(ss, ss, scratch);
    const float rstd = rsqrtf(ss / cols + EPS);
    kf::row_for_each<LARGE_THREADS, VEC_IO>(row, cols, [&](float v, int c) {
        yrow[c] = __float2bfloat16_rn(v * (rstd * __bfloat162float(gamma[c])));
    });
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, __nv_bfloat16 *y, int rows, int cols,
                         cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return 0;
    const bool vec_io = kf::row_vec_ok<bf16>(x, cols) && kf::is_aligned(gamma, kf::VEC_BYTES) &&
                        kf::is_aligned(y, kf::VEC_BYTES);
    const auto launch = [&](auto t, auto v, auto io) {
        rmsnorm_cached<decltype(t)::value, decltype(v)::value, decltype(io)::value>
            <<<rows, decltype(t)::value, 0, stream>>>(x, gamma, y, cols);
    };
    if (kf::launch_row_cached<bf16, SMALL_VPT_MAX, LARGE_VPT>(cols, vec_io, launch)) return kf::launch_status();
    if (vec_io) rmsnorm_streamed<true><<<rows, LARGE_THREADS, 0, stream>>>(x, gamma, y, cols);
    else rmsnorm_streamed<false><<<rows, LARGE_THREADS, 0, stream>>>(x, gamma, y, cols);
    return kf::launch_status();
}
