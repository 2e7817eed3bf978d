/* Reference kernel for avgpool3d_f32: generic (reference_kernels/cuda/generic), 3-D average pooling with the
 * padding counted in the divisor, one thread per output. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int N, int C, int D, int H, int W, int K, int S, int P,
                         cudaStream_t stream) {
    const long long in[3] = {D, H, W};
    return kfg::pool(y, x, (long long)N * C, kfg::make_window(3, in, K, S, P), kfg::POOL_AVG_COUNT_PAD, stream);
}
