/* Reference kernel for conv2d_hardswish_relu: generic (reference_kernels/cuda/generic), one direct convolution with
 * hardswish and ReLU in its epilogue. */
#include "cuda/generic/ops.cuh"

namespace {

struct hardswish_relu {
    __device__ float operator()(float z, long long) const { return kfg::act::relu{}(kfg::act::hardswish{}(z)); }
};

} /* namespace */

extern "C" int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int H, int W, int O,
                         cudaStream_t stream) {
    const long long in[2] = {H, W};
    return kfg::conv(y, x, w, cb, N, C, O, 1, kfg::make_window(2, in, 3, 1, 0), hardswish_relu{}, stream);
}
