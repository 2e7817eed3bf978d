/* Reference kernel for log_softmax_rows: out[r, c] = (x[r, c] - m_r) - log(sum_j exp(x[r, j] - m_r)), m_r the row max,
 * fp32. Never forms softmax and then its log, so tiny probabilities keep their logs. One block per row: rows of up
 * to 32768 columns stay in registers (tile/rows.cuh row_frag) between the max, sum and write steps, one read and
 * one write of DRAM; longer rows take an online max-and-sum pass, then a write pass. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/reduce.cuh"
#include "tile/rows.cuh"

namespace {

constexpr int SMALL_THREADS = 256, LARGE_THREADS = 1024;
constexpr int LARGE_VPT = 8;
constexpr int VEC = kf::F32_PER_VEC;
constexpr int CACHED_MAX_COLS = LARGE_THREADS * LARGE_VPT * VEC;

template <int THREADS, int VPT, bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
log_softmax_cached(const float *__restrict__ x, float *__restrict__ out, int cols) {
    __shared__ float scratch[kf::WARP];
    kf::row_frag<float, THREADS, VPT> r;
    kf::load_row<VEC_IO>(r, x + (long long)blockIdx.x * cols, cols, -INFINITY);
    float m = -INFINITY, s = 0.0f;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) m = fmaxf(m, r.v[u][e]);
    kf::block_reduce<kf::op_max>(m, m, scratch);
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) s += expf(r.v[u][e] - m);
    kf::block_reduce<kf::op_sum>(s, s, scratch);
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
    float m = -INFINITY, s = 0.0f;
    kf::row_for_each<LARGE_THREADS, VEC_IO>(row, cols, [&](float v, int) {
        if (v > m) {
            s = s * expf(m - v) + 1.0f;
            m = v;
        } else {
            s += expf(v - m);
        }
    });
    float row_max, row_sum;
    kf::block_reduce<kf::op_max>(row_max, m, scratch);
    kf::block_reduce<kf::op_sum>(row_sum, m == -INFINITY ? 0.0f : s * expf(m - row_max), scratch);
    const float log_s = logf(row_sum);
    kf::row_for_each<LARGE_THREADS, VEC_IO>(row, cols, [&](float v, int c) { orow[c] = (v - row_max) - log_s; });
}

template <int THREADS, int VPT>
void launch_cached(const float *x, float *out, int rows, int cols, bool vec_io, cudaStream_t stream) {
    if (vec_io) log_softmax_cached<THREADS, VPT, true><<<rows, THREADS, 0, stream>>>(x, out, cols);
    else log_softmax_cached<THREADS, VPT, false><<<rows, THREADS, 0, stream>>>(x, out, cols);
}

} /* namespace */

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return 0;
    const bool vec_io = kf::row_vec_ok<float>(x, cols) && kf::is_aligned(out, kf::VEC_BYTES);
    const int per_slot = SMALL_THREADS * VEC;
    if (cols <= 1 * per_slot) launch_cached<SMALL_THREADS, 1>(x, out, rows, cols, vec_io, stream);
    else if (cols <= 2 * per_slot) launch_cached<SMALL_THREADS, 2>(x, out, rows, cols, vec_io, stream);
    else if (cols <= 4 * per_slot) launch_cached<SMALL_THREADS, 4>(x, out, rows, cols, vec_io, stream);
    else if (cols <= 8 * per_slot) launch_cached<SMALL_THREADS, 8>(x, out, rows, cols, vec_io, stream);
    else if (cols <= CACHED_MAX_COLS) launch_cached<LARGE_THREADS, LARGE_VPT>(x, out, rows, cols, vec_io, stream);
    else if (vec_io) log_softmax_streamed<true><<<rows, LARGE_THREADS, 0, stream>>>(x, out, cols);
    else log_softmax_streamed<false><<<rows, LARGE_THREADS, 0, stream>>>(x, out, cols);
    return kf::launch_status();
}
