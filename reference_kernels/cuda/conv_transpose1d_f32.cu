/* Reference kernel for conv_transpose1d_f32: generic (reference_kernels/cuda/generic), direct transposed
 * convolution (the gather form), one thread per output, fp32 accumulation. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int L, int O, int K, int S, int P,
                         int OP, int DIL, cudaStream_t stream) {
    const long long in[1] = {L};
    kfg::window win = kfg::make_window(1, in, K, S, P, DIL);
    win.out_pad[0] = OP;
    return kfg::conv_transpose(y, x, w, (const float *)nullptr, N, C, O, 1, win, kfg::no_epi{}, stream);
}
