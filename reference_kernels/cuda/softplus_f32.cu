/* Reference kernel for softplus_f32: generic (reference_kernels/cuda/generic), the elementwise map with the
 * library's softplus (its threshold-20 linear branch agrees with log(1 + exp(x)) to 2e-9 there) functor, fp32
 * inside, one thread per element. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int N, cudaStream_t stream) {
    return kfg::map(y, x, N, kfg::act::softplus{}, stream);
}
