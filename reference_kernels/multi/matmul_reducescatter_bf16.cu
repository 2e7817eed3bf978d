/* Reference kernel for matmul_reducescatter_bf16: each rank multiplies its whole K-shard, P = A[r] @ B[r]
 * ([world*m][n], tile/gemm.cuh, bf16 partial sums) into its scratch; a barrier over the ranks' signals; then
 * rank r pulls row block r of every rank's P over NVLink and sums it in fp32 (rank order) into out. Each GPU
 * receives (world-1) blocks of m*n bf16: the spec's nvlink_bytes. */
#include "multi/peer.cuh"
#include "tile/gemm.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *out, int world, int m, int n,
                         int k, const struct kf_comm *comm, cudaStream_t stream) {
    const int r = comm->rank;
    __nv_bfloat16 *partial = static_cast<__nv_bfloat16 *>(comm->peer[r].scratch);
    kf::gemm_args g = kf::gemm_problem(A, B, partial, world * m, n, k);
    if (kf::gemm<kf::B_KN>(g, 1, stream) != 0 || peer_barrier(comm, 0, stream) != cudaSuccess)
        return 1;
    const __nv_bfloat16 *src[8];
    for (int p = 0; p < world; p++)
        src[p] = static_cast<const __nv_bfloat16 *>(comm->peer[p].scratch) + (size_t)r * m * n;
    return peer_sum(src, world, out, (long long)m * n, stream) == cudaSuccess ? 0 : 1;
}
