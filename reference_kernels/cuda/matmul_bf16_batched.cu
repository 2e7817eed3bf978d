/* Reference kernel for matmul_bf16_batched: C[b] = A[b] @ B[b] for b < batch; A [batch, M, K], B [batch, K, N],
 * C [batch, M, N], row-major bf16, fp32 accumulation. Fast path (K, N multiples of 8, A and B 16-byte aligned):
 * tile/gemm_tma.cuh, TMA + wgmma with 3-D tensor maps, so no tile reads across matrices. Any other shape:
 * tile/gemm_mma.cuh on mma.sync. Both handle ragged M, N, K and large batches. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/gemm_mma.cuh"
#include "tile/gemm_tma.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int batch, int M, int N,
                         int K, cudaStream_t stream) {
    if (kf::bad_shape(batch, M, N) || kf::bad_shape(K)) return (int)cudaErrorInvalidValue;
    if (batch == 0 || M == 0 || N == 0) return 0;
    const kf::gemm_args g = {A, B, C, M, N, K};
    if (!kf::launch_gemm_tma<kf::B_KN>(g, batch, stream)) kf::launch_gemm_mma<kf::B_KN>(g, batch, stream);
    return kf::launch_status();
}
