/* Reference kernel for conv3d_relu_avgpool: generic (reference_kernels/cuda/generic): the convolution with ReLU in its
 * epilogue into scratch (reference_kernels/cuda/scratch.cuh), then average pooling into y. */
#include "cuda/generic/ops.cuh"
#include "cuda/scratch.cuh"

namespace {

struct relu_epi {
    __device__ float operator()(float z, long long) const { return fmaxf(z, 0.0f); }
};

} /* namespace */

extern "C" int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int D, int H, int W,
                         int O, cudaStream_t stream) {
    const long long in[3] = {D, H, W};
    void *buf;
    int rc = kfs::scratch(sizeof(float) * (size_t)N * O * D * H * W, &buf);
    float *z = static_cast<float *>(buf);
    if (!rc) rc = kfg::conv(z, x, w, cb, N, C, O, 1, kfg::make_window(3, in, 3, 1, 1), relu_epi{}, stream);
    if (!rc) rc = kfg::pool(y, z, (long long)N * O, kfg::make_window(3, in, 2, 2, 0), kfg::POOL_AVG, stream);
    return rc;
}
