/* Reference kernel for matmul_bf16_small_k: C[M,N] = A[M,K] @ B[K,N], row-major bf16, fp32 accumulation, at
 * shapes where K is small and writing C dominates. tile/gemm_mma.cuh: 128x128 tiles on mma.sync, two blocks per
 * multiprocessor so one block's loads overlap another's stores, C staged in shared memory and written as 16-byte
 * row segments. Right for any shape (element loads when the pitch or alignment rules out 16-byte ones). */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/gemm_mma.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
                         cudaStream_t stream) {
    if (kf::bad_shape(M, N, K)) return (int)cudaErrorInvalidValue;
    if (M == 0 || N == 0) return 0;
    kf::launch_gemm_mma<kf::B_KN>(kf::gemm_args{A, B, C, M, N, K}, 1, stream);
    return kf::launch_status();
}
