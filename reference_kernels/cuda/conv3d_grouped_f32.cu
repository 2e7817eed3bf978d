/* Reference kernel for conv3d_grouped_f32: generic (reference_kernels/cuda/generic), direct grouped, strided 3-D
 * convolution, one thread per output, fp32 accumulation. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int D, int H, int W, int O, int G, int K,
                         int S, int P, cudaStream_t stream) {
    const long long in[3] = {D, H, W};
    return kfg::conv(y, x, w, (const float *)nullptr, N, C, O, G, kfg::make_window(3, in, K, S, P), kfg::no_epi{},
                     stream);
}
