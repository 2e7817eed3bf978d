/* Reference kernel for cnn_block: generic (reference_kernels/cuda/generic): each convolution with its BatchNorm and ReLU
 * in the epilogue into scratch (reference_kernels/cuda/scratch.cuh), then max pooling into y. */
#include "cuda/generic/ops.cuh"
#include "cuda/scratch.cuh"

namespace {

struct bn_relu {
    const float *m, *v, *g, *b;
    float eps;
    __device__ float operator()(float z, long long c) const {
        return fmaxf((z - m[c]) * rsqrtf(v[c] + eps) * g[c] + b[c], 0.0f);
    }
};

} /* namespace */

extern "C" int kf_launch(const float *x, const float *w1, const float *m1, const float *v1, const float *g1,
                         const float *b1, const float *w2, const float *m2, const float *v2, const float *g2,
                         const float *b2, float *y, int N, int C, int H, int W, int C1, int C2, float eps,
                         cudaStream_t stream) {
    const long long in[2] = {H, W}, plane = (long long)H * W;
    const size_t z1_bytes = kfs::region(sizeof(float) * (size_t)(N * C1 * plane));
    void *buf;
    int rc = kfs::scratch(z1_bytes + sizeof(float) * (size_t)(N * C2 * plane), &buf);
    float *z1 = static_cast<float *>(buf), *z2 = reinterpret_cast<float *>(static_cast<char *>(buf) + z1_bytes);
    const kfg::window conv = kfg::make_window(2, in, 3, 1, 1);
    if (!rc) rc = kfg::conv(z1, x, w1, (const float *)nullptr, N, C, C1, 1, conv, bn_relu{m1, v1, g1, b1, eps}, stream);
    if (!rc) rc = kfg::conv(z2, z1, w2, (const float *)nullptr, N, C1, C2, 1, conv, bn_relu{m2, v2, g2, b2, eps}, stream);
    if (!rc) rc = kfg::pool(y, z2, (long long)N * C2, kfg::make_window(2, in, 2, 2, 0), kfg::POOL_MAX, stream);
    return rc;
}
