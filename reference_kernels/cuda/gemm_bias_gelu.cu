/* Reference kernel for gemm_bias_gelu: C = gelu(A @ B + bias), erf GELU, bf16 in and out, fp32 accumulation.
 * The fused GEMM of tile/gemm.cuh with a bias-then-GELU epilogue: the pre-activation never leaves registers. */
#include "tile/gemm.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, const __nv_bfloat16 *bias, __nv_bfloat16 *C,
                         int M, int N, int K, cudaStream_t stream) {
    kf::gemm_args g = kf::gemm_problem(A, B, C, M, N, K);
    g.ldb = N;
    g.bias = bias;
    return kf::gemm<kf::B_KN, kf::GEMM_BIAS | kf::GEMM_GELU>(g, 1, stream);
}
