/* Reference kernel for mean_dim0_bf16: generic (reference_kernels/cuda/generic), the mean over axis 0 of [N, D]
 * (outer 1, inner D), fp32 accumulation, fp32 arithmetic. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *y, int N, int D, cudaStream_t stream) {
    return kfg::reduce(y, x, 1, N, D, kfg::MEAN, stream);
}
