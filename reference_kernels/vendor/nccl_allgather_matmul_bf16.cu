/* Vendor baseline for allgather_matmul_bf16: ncclAllGather of the A shards into each rank's scratch, then one
 * cublasGemmEx per rank (no overlap: what a framework does without a fused kernel). NCCL enqueues the gathers
 * when the last rank closes the group, so the GEMMs of every rank are enqueued after that, by the last rank,
 * on each rank's own stream and GPU. */
#include <cublas_v2.h>

#include "multi/nccl.cuh"

namespace {
struct pending {
    const __nv_bfloat16 *gathered, *B;
    __nv_bfloat16 *C;
    int rows, n, k, device;
    cudaStream_t stream;
};
pending g_pending[8];
cublasHandle_t g_handle[64]; /* per device, created by the first (untimed) call */

int gemm(const pending &p) {
    if (cudaSetDevice(p.device) != cudaSuccess)
        return 1;
    if (!g_handle[p.device] && cublasCreate(&g_handle[p.device]) != CUBLAS_STATUS_SUCCESS)
        return 1;
    if (cublasSetStream(g_handle[p.device], p.stream) != CUBLAS_STATUS_SUCCESS)
        return 1;
    const float one = 1.0f, zero = 0.0f;
    /* Row-major C = A @ B is column-major C^T = B^T @ A^T (as cublas_gemm_bf16.cu). */
    return (int)cublasGemmEx(g_handle[p.device], CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.rows, p.k, &one, p.B, CUDA_R_16BF, p.n,
                             p.gathered, CUDA_R_16BF, p.k, &zero, p.C, CUDA_R_16BF, p.n, CUBLAS_COMPUTE_32F,
                             CUBLAS_GEMM_DEFAULT);
}
} // namespace

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int world, int m, int n,
                         int k, const struct kf_comm *comm, cudaStream_t stream) {
    nccl_comm_t nc = nccl_begin(comm);
    if (!nc)
        return 1;
    __nv_bfloat16 *gathered = static_cast<__nv_bfloat16 *>(comm->peer[comm->rank].scratch);
    int device = 0;
    cudaGetDevice(&device);
    g_pending[comm->rank] = pending{ gathered, B, C, world * m, n, k, device, stream };
    int rc = g_nccl.all_gather(A, gathered, (size_t)m * k, NCCL_BF16, nc, stream);
    int end = nccl_end(comm);
    if (rc || end)
        return rc ? rc : end;
    for (int p = 0; comm->rank == world - 1 && p < world; p++)
        if ((rc = gemm(g_pending[p])) != 0)
            return rc;
    cudaSetDevice(device);
    return 0;
}
