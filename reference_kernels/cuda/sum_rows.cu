/* Reference kernel for sum_rows: out[r] = sum_c x[r, c], fp32. One block per row streams it once (tile/rows.cuh:
 * 16-byte loads, several in flight, when cols % 4 == 0 and x is aligned), then a block sum. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/reduce.cuh"
#include "tile/rows.cuh"

namespace {

constexpr int THREADS = 256;

template <bool VEC_IO>
__global__ void __launch_bounds__(THREADS) sum_rows(const float *__restrict__ x, float *__restrict__ out, int cols) {
    __shared__ float scratch[kf::WARP];
    float acc = 0.0f;
    kf::row_for_each<THREADS, VEC_IO>(x + (long long)blockIdx.x * cols, cols, [&](float v, int) { acc += v; });
    kf::block_reduce<kf::op_sum>(acc, acc, scratch);
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

} /* namespace */

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0) return 0;
    if (kf::row_vec_ok<float>(x, cols)) sum_rows<true><<<rows, THREADS, 0, stream>>>(x, out, cols);
    else sum_rows<false><<<rows, THREADS, 0, stream>>>(x, out, cols);
    return kf::launch_status();
}
