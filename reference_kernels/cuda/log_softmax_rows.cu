/* Reference kernel for log_softmax_rows: out[r, c] = (x[r, c] - m_r) - log(sum_j exp(x[r, j] - m_r)), m_r the row max,
 * fp32. Never forms softmax and then its log, so tiny probabilities keep their logs. One block per row: rows of up
 * to 32768 columns stay in registers (tile/rows.cuh row_frag) between the max, sum and write steps, one read and
 * one write of DRAM; longer rows take an online max-and-sum pass, then a write pass. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/rows.cuh"
#include "tile/softmax.cuh"

namespace {

constexpr int SMALL_VPT_MAX = 8, LARGE_VPT = 8;
constexpr int LARGE_THREADS = kf::ROW_LARGE_THREADS;
constexpr int VEC = kf::F32_PER_VEC;

template <int THREADS, int VPT, bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
log_softmax_cached(const float *__restrict__ x, float *__restrict__ out, int cols) {
    __shared__ float scratch[kf::WARP];
    kf::row_frag<float, THREADS, VPT> r;
    kf::load_row<VEC_IO>(r, x + (long long)blockIdx.x * cols, cols, -INFINITY);
    float m, s;
    kf::frag_softmax_stats(m, s, r, scratch);
    const float log_s = logf(s);
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) r.v[u][e] = (r.v[u][e] - m) - log_s;
    kf::store_row<VEC_IO>(out + (long long)blockIdx.x * cols, r, cols);
}

template <bool VEC_IO>
__global__ void __launch_bounds__(LARGE_THREADS)
log_softmax_streamed(const float *__restrict__ x, float *__restrict__ out, int cols) {
    __shared__ float scratch[kf::WARP];
    const float *row = x + (long long)blockIdx.x * cols;
    float *orow = out + (long long)blockIdx.x * cols;
    float m, s;
    kf::row_softmax_stats<LARGE_THREADS, VEC_IO>(m, s, row, cols, scratch);
    const float log_s = logf(s);
    kf::row_for_each<LARGE_THREADS, VEC_IO>(row, cols, [&](float v, int c) { orow[c] = (v - m) - log_s; });
}

} /* namespace */

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return 0;
    const bool vec_io = kf::row_vec_ok<float>(x, cols) && kf::is_aligned(out, kf::VEC_BYTES);
    const auto launch = [&](auto t, auto v, auto io) {
        log_softmax_cached<decltype(t)::value, decltype(v)::value, decltype(io)::value>
            <<<rows, decltype(t)::value, 0, stream>>>(x, out, cols);
    };
    if (kf::launch_row_cached<float, SMALL_VPT_MAX, LARGE_VPT>(cols, vec_io, launch)) return kf::launch_status();
    if (vec_io) log_softmax_streamed<true><<<rows, LARGE_THREADS, 0, stream>>>(x, out, cols);
    else log_softmax_streamed<false><<<rows, LARGE_THREADS, 0, stream>>>(x, out, cols);
    return kf::launch_status();
}
