/* Reference kernel for batch_norm_f32: generic (reference_kernels/cuda/generic), the library's batch norm with the
 * batch's own statistics (two passes per channel) and the affine. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, const float *gamma, const float *beta, float *y, int N, int C, int H, int W,
                         float eps, cudaStream_t stream) {
    return kfg::batch_norm(y, x, gamma, beta, (const float *)nullptr, (const float *)nullptr, N, C, (long long)H * W,
                           eps, stream);
}
