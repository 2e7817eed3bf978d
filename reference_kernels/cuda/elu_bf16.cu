/* Reference kernel for elu_bf16: generic (reference_kernels/cuda/generic), the elementwise map with the library's
 * ELU functor, fp32 inside, one thread per element. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *y, int N, float alpha, cudaStream_t stream) {
    return kfg::map(y, x, N, kfg::act::elu{alpha}, stream);
}
