/* Reference kernel for matmul_bf16_nt: C[M,N] = A[M,K] @ B^T with B stored [N, K] (a linear layer's weight),
 * row-major bf16, fp32 accumulation. Fast path (K a multiple of 8, A and B 16-byte aligned): tile/gemm_tma.cuh
 * with both operands K-major (wgmma trans-b = 0). Any other shape: tile/gemm_mma.cuh on mma.sync, B fragments
 * loaded from the [N][K] tile without a transpose. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/gemm_mma.cuh"
#include "tile/gemm_tma.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
                         cudaStream_t stream) {
    if (kf::bad_shape(M, N, K)) return (int)cudaErrorInvalidValue;
    if (M == 0 || N == 0) return 0;
    const kf::gemm_args g = {A, B, C, M, N, K};
    if (!kf::launch_gemm_tma<kf::B_NK>(g, 1, stream)) kf::launch_gemm_mma<kf::B_NK>(g, 1, stream);
    return kf::launch_status();
}
