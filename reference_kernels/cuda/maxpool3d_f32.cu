/* Reference kernel for maxpool3d_f32: generic (reference_kernels/cuda/generic), dilated 3-D max pooling (padding
 * never wins), one thread per output, exact. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int N, int C, int D, int H, int W, int K, int S, int P, int DIL,
                         cudaStream_t stream) {
    const long long in[3] = {D, H, W};
    return kfg::pool(y, x, (long long)N * C, kfg::make_window(3, in, K, S, P, DIL), kfg::POOL_MAX, stream);
}
