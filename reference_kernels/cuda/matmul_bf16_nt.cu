/* Reference kernel for matmul_bf16_nt: C[M,N] = A[M,K] @ B^T with B stored [N, K] (a linear layer's weight),
 * row-major bf16, fp32 accumulation. tile/gemm.cuh with B K-major: TMA + wgmma (trans-b = 0) when K is a multiple of
 * 8 and A and B are 16-byte aligned; otherwise mma.sync with B fragments loaded from the [N][K] tile as they lie. */
#include "tile/gemm.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
                         cudaStream_t stream) {
    kf::gemm_args g = kf::gemm_problem(A, B, C, M, N, K);
    return kf::gemm<kf::B_NK>(g, 1, stream);
}
