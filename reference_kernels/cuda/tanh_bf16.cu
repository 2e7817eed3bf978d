/* Reference kernel for tanh_bf16: generic (reference_kernels/cuda/generic), the elementwise map with the library's
 * tanh functor, fp32 inside, one thread per element. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *y, int N, cudaStream_t stream) {
    return kfg::map(y, x, N, kfg::act::tanh_{}, stream);
}
