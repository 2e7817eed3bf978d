/* Reference kernel for softmax_dim1_f32: generic (reference_kernels/cuda/generic), the library's softmax over axis
 * 1 of [B, N, M] (max, sum of exp(x - max), then the quotients), fp32. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int B, int N, int M, cudaStream_t stream) {
    return kfg::softmax(y, x, B, N, M, stream);
}
