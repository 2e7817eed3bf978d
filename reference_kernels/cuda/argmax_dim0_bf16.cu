/* Reference kernel for argmax_dim0_bf16: generic (reference_kernels/cuda/generic), the arg-reduction over axis 0 of
 * [N, M] (outer 1, inner M; first index wins ties), fp32 arithmetic. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *x, int *idx, int N, int M, cudaStream_t stream) {
    return kfg::argreduce(idx, x, 1, N, M, kfg::ARGMAX, stream);
}
