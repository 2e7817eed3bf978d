/* Reference kernel for conv2d_dilated_f16: generic (reference_kernels/cuda/generic), direct convolution with per-
 * axis kernel, padding and dilation, one thread per output, fp32 accumulation, fp16 out. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __half *x, const __half *w, __half *y, int N, int C, int H, int W, int O, int KH, int KW,
                         int S, int PH, int PW, int DH, int DW, cudaStream_t stream) {
    const long long in[2] = {H, W};
    kfg::window win = kfg::make_window(2, in, KH, S, PH, DH);
    win.k[1] = KW;
    win.pad[1] = PW;
    win.dilation[1] = DW;
    return kfg::conv(y, x, w, (const __half *)nullptr, N, C, O, 1, win, kfg::no_epi{}, stream);
}
