/* Reference kernel for matmul_bf16_batched: C[b] = A[b] @ B[b] for b < batch; A [batch, M, K], B [batch, K, N],
 * C [batch, M, N], row-major bf16, fp32 accumulation. tile/gemm.cuh: TMA + wgmma with 3-D tensor maps (no tile reads
 * across matrices) when K and N are multiples of 8 and A and B 16-byte aligned, mma.sync otherwise; both handle ragged
 * M, N, K and batches past one launch's grid. */
#include "tile/gemm.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int batch, int M, int N,
                         int K, cudaStream_t stream) {
    kf::gemm_args g = kf::gemm_problem(A, B, C, M, N, K);
    return kf::gemm<kf::B_KN>(g, batch, stream);
}
