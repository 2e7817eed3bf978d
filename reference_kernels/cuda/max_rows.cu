/* Reference kernel for max_rows: out[r] = max_c x[r, c], fp32 (exact, so bitwise reproducible). One block per
 * row streams it once (tile/rows.cuh: 16-byte loads, several in flight, when cols % 4 == 0 and x is aligned),
 * then a block max. The running max starts at -inf, so all-negative rows come out right. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/reduce.cuh"
#include "tile/rows.cuh"

namespace {

constexpr int THREADS = 256;

template <bool VEC_IO>
__global__ void __launch_bounds__(THREADS) max_rows(const float *__restrict__ x, float *__restrict__ out, int cols) {
    __shared__ float scratch[kf::WARP];
    float m = -INFINITY;
    kf::row_for_each<THREADS, VEC_IO>(x + (long long)blockIdx.x * cols, cols, [&](float v, int) { m = fmaxf(m, v); });
    kf::block_reduce<kf::op_max>(m, m, scratch);
    if (threadIdx.x == 0) out[blockIdx.x] = m;
}

} /* namespace */

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0) return 0;
    if (kf::row_vec_ok<float>(x, cols)) max_rows<true><<<rows, THREADS, 0, stream>>>(x, out, cols);
    else max_rows<false><<<rows, THREADS, 0, stream>>>(x, out, cols);
    return kf::launch_status();
}
