/* Reference kernel for selu_f16: generic (reference_kernels/cuda/generic), the elementwise map with the library's
 * SELU functor, fp32 inside, one thread per element. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __half *x, __half *y, int N, cudaStream_t stream) {
    return kfg::map(y, x, N, kfg::act::selu{}, stream);
}
