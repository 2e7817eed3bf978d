/* Reference kernel for matmul_bf16_small_k: C[M,N] = A[M,K] @ B[K,N], row-major bf16, fp32 accumulation, at
 * shapes where K is small and writing C dominates. The mma.sync path of tile/gemm.cuh: 128x128 tiles, two blocks per
 * multiprocessor so one block's loads overlap another's stores, C staged in shared memory and written as 16-byte row
 * segments. Right for any shape (element loads when the pitch or alignment rules out 16-byte ones). */
#include "tile/gemm.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
                         cudaStream_t stream) {
    kf::gemm_args g = kf::gemm_problem(A, B, C, M, N, K);
    return kf::gemm_mma<kf::B_KN>(g, 1, stream);
}
