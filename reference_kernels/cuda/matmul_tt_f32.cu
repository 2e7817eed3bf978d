/* Reference kernel for matmul_tt_f32: generic (reference_kernels/cuda/generic), the library's GEMM with both
 * operands transposed (ta, tb), fp32. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.ta = true;
    d.tb = true;
    return kfg::gemm(C, A, B, d, kfg::no_epi2{}, stream);
}
