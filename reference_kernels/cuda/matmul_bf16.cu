/* Reference kernel for matmul_bf16: C[M,N] = A[M,K] @ B[K,N], row-major bf16, fp32 accumulation, bf16 out.
 * tile/gemm.cuh: when K and N are multiples of 8 and A and B 16-byte aligned, TMA loads into a 4-stage ring of
 * 128-byte-swizzled shared tiles, one producer and two consumer warpgroups each on a 64x256 slice with wgmma (sm_90a);
 * any other shape on mma.sync with guarded loads. Tails are handled in both. */
#include "tile/gemm.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
                         cudaStream_t stream) {
    kf::gemm_args g = kf::gemm_problem(A, B, C, M, N, K);
    return kf::gemm<kf::B_KN>(g, 1, stream);
}
