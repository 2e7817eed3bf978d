/* Reference kernel for leaky_relu_f16: generic (reference_kernels/cuda/generic), the elementwise map with the
 * library's leaky ReLU functor, fp32 inside, one thread per element. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __half *x, __half *y, int N, float slope, cudaStream_t stream) {
    return kfg::map(y, x, N, kfg::act::leaky_relu{slope}, stream);
}
