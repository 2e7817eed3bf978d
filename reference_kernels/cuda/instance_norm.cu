/* Reference kernel for instance_norm: generic (cuda/generic group_norm with one channel per group: a block per
 * (n, c) plane, mean then mean squared deviation, no affine). */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int N, int C, int H, int W, float eps, cudaStream_t stream) {
    return kfg::group_norm(y, x, (const float *)nullptr, (const float *)nullptr, N, C, (long long)H * W, C, eps,
                           stream);
}
