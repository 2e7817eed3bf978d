/* Reference kernel for conv2d_tanh_scale_maxpool: generic (reference_kernels/cuda/generic): the convolution with
 * tanh, scale and bias in its epilogue into scratch (reference_kernels/cuda/scratch.cuh), then max pooling into y. */
#include "cuda/generic/ops.cuh"
#include "cuda/scratch.cuh"

namespace {

struct tanh_scale_bias {
    const float *b;
    float scale;
    __device__ float operator()(float z, long long o) const { return tanhf(z) * scale + b[o]; }
};

} /* namespace */

extern "C" int kf_launch(const float *x, const float *w, const float *cb, const float *b, float *y, int N, int C, int H,
                         int W, int O, float scale, cudaStream_t stream) {
    const long long in[2] = {H, W}, conv_out[2] = {H - 2, W - 2};
    void *buf;
    int rc = kfs::scratch(sizeof(float) * (size_t)N * O * (H - 2) * (W - 2), &buf);
    float *z = static_cast<float *>(buf);
    if (!rc) rc = kfg::conv(z, x, w, cb, N, C, O, 1, kfg::make_window(2, in, 3, 1, 0), tanh_scale_bias{b, scale}, stream);
    if (!rc) rc = kfg::pool(y, z, (long long)N * O, kfg::make_window(2, conv_out, 2, 2, 0), kfg::POOL_MAX, stream);
    return rc;
}
