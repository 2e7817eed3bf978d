/* Reference kernel for conv_transpose2d: generic (cuda/generic: direct transposed convolution, kernel 4, stride 2,
 * padding 1, w in PyTorch's [C, O, 4, 4] layout; each output element gathers the inputs whose strided taps reach
 * it). */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int H, int W, int O,
                         cudaStream_t stream) {
    const long long in[2] = { H, W };
    return kfg::conv_transpose(y, x, w, (const float *)nullptr, N, C, O, 1, kfg::make_window(2, in, 4, 2, 1),
                               kfg::no_epi{}, stream);
}
