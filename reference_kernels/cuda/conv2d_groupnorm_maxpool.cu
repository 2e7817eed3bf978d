/* Reference kernel for conv2d_groupnorm_maxpool: generic (reference_kernels/cuda/generic): the convolution into
 * scratch (reference_kernels/cuda/scratch.cuh), group norm in place there, then max pooling into y. */
#include "cuda/generic/ops.cuh"
#include "cuda/scratch.cuh"

extern "C" int kf_launch(const float *x, const float *w, const float *cb, const float *gamma, const float *beta,
                         float *y, int N, int C, int H, int W, int O, int G, float eps, cudaStream_t stream) {
    const long long in[2] = {H, W}, plane = (long long)H * W;
    void *buf;
    int rc = kfs::scratch(sizeof(float) * (size_t)N * O * plane, &buf);
    float *z = static_cast<float *>(buf);
    if (!rc) rc = kfg::conv(z, x, w, cb, N, C, O, 1, kfg::make_window(2, in, 3, 1, 1), kfg::no_epi{}, stream);
    if (!rc) rc = kfg::group_norm(z, z, gamma, beta, N, O, plane, G, eps, stream);
    if (!rc) rc = kfg::pool(y, z, (long long)N * O, kfg::make_window(2, in, 2, 2, 0), kfg::POOL_MAX, stream);
    return rc;
}
