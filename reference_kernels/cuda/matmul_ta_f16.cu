/* Reference kernel for matmul_ta_f16: generic (reference_kernels/cuda/generic), the library's GEMM with A
 * transposed (ta), fp32 accumulation, fp16 out. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.ta = true;
    return kfg::gemm(C, A, B, d, kfg::no_epi2{}, stream);
}
