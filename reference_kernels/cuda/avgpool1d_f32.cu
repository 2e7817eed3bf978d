/* Reference kernel for avgpool1d_f32: generic (reference_kernels/cuda/generic), 1-D average pooling with the
 * padding counted in the divisor, one thread per output. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int N, int C, int L, int K, int S, int P, cudaStream_t stream) {
    const long long in[1] = {L};
    return kfg::pool(y, x, (long long)N * C, kfg::make_window(1, in, K, S, P), kfg::POOL_AVG_COUNT_PAD, stream);
}
