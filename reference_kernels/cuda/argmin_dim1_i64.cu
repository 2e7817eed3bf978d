/* Reference kernel for argmin_dim1_i64: generic (reference_kernels/cuda/generic), the arg-reduction over axis 1
 * (first index wins ties), fp32 arithmetic. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, long long *idx, int B, int N, int M, cudaStream_t stream) {
    return kfg::argreduce(idx, x, B, N, M, kfg::ARGMIN, stream);
}
