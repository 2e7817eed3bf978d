/* Reference kernel for sum_dim1_f32: generic (reference_kernels/cuda/generic), the sum over axis 1 of [B, N, M],
 * fp32 arithmetic. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int B, int N, int M, cudaStream_t stream) {
    return kfg::reduce(y, x, B, N, M, kfg::SUM, stream);
}
