/* Reference kernel for hardtanh_bf16: generic (reference_kernels/cuda/generic), the elementwise map with the
 * library's hardtanh (its default range [-1, 1]) functor, fp32 inside, one thread per element. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *y, int N, cudaStream_t stream) {
    return kfg::map(y, x, N, kfg::act::hardtanh{}, stream);
}
