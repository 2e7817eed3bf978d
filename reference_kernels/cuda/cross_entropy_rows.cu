/* Reference kernel for cross_entropy_rows: loss[r] = logsumexp_c(logits[r, c]) - logits[r, targets[r]], bf16 logits,
 * int32 targets, fp32 losses. One block per row reads the logits once (tile/rows.cuh, the next vectors in flight
 * while the current ones are reduced) into the row's max and sum of exp(x - max) (tile/softmax.cuh, an online pair
 * per thread updated once per 16-byte vector), and loss = (max - x_target) + log(sum). A target outside
 * [0, classes) gives NaN. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/softmax.cuh"

namespace {

typedef __nv_bfloat16 bf16;

constexpr int THREADS = 256;

template <bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
cross_entropy(const bf16 *__restrict__ logits, const int *__restrict__ targets, float *__restrict__ loss, int classes) {
    __shared__ float scratch[kf::WARP];
    const bf16 *row = logits + (long long)blockIdx.x * classes;
    float row_max, row_sum;
    kf::row_softmax_stats<THREADS, VEC_IO>(row_max, row_sum, row, classes, scratch);
    if (threadIdx.x != 0) return;
    const int t = targets[blockIdx.x];
    loss[blockIdx.x] = t >= 0 && t < classes ? (row_max - __bfloat162float(row[t])) + logf(row_sum) : NAN;
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *logits, const int *targets, float *loss, int rows, int classes,
                         cudaStream_t stream) {
    if (kf::bad_shape(rows, classes)) return (int)cudaErrorInvalidValue;
    if (rows == 0) return 0;
    if (kf::row_vec_ok<bf16>(logits, classes))
        cross_entropy<true><<<rows, THREADS, 0, stream>>>(logits, targets, loss, classes);
    else
        cross_entropy<false><<<rows, THREADS, 0, stream>>>(logits, targets, loss, classes);
    return kf::launch_status();
}
