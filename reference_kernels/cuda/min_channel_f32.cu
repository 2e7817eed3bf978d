/* Reference kernel for min_channel_f32: generic (reference_kernels/cuda/generic), the min over the channel axis
 * (outer N, inner H*W; exact), fp32 arithmetic. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int N, int C, int H, int W, cudaStream_t stream) {
    return kfg::reduce(y, x, N, C, (long long)H * W, kfg::MIN, stream);
}
