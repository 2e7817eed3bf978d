/* Reference kernel for allgather_matmul_bf16: the all-gather overlapped with the GEMM. The rank forks a side
 * stream (joined back before it returns, so its work is inside the timed window) that pulls every peer's A
 * shard over NVLink into its scratch ([world][m][k], rank order), while its own stream multiplies its own shard
 * (C rows of its block) with tile/gemm.cuh; after the join, the rows before and after its block are two more
 * GEMMs over the gathered shards. */
#include "multi/peer.cuh"
#include "tile/gemm.cuh"

namespace {
struct side_state {
    cudaStream_t stream;
    cudaEvent_t fork, join;
};
side_state g_side[64]; /* per device: made by the first call */

cudaError_t side_for(side_state **out) {
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess || device < 0 || device >= 64)
        return e != cudaSuccess ? e : cudaErrorInvalidDevice;
    side_state *s = &g_side[device];
    if (!s->stream && ((e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) != cudaSuccess ||
                       (e = cudaEventCreateWithFlags(&s->fork, cudaEventDisableTiming)) != cudaSuccess ||
                       (e = cudaEventCreateWithFlags(&s->join, cudaEventDisableTiming)) != cudaSuccess))
        return e;
    *out = s;
    return cudaSuccess;
}
} // namespace

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int world, int m, int n,
                         int k, const struct kf_comm *comm, cudaStream_t stream) {
    const int r = comm->rank;
    __nv_bfloat16 *gathered = static_cast<__nv_bfloat16 *>(comm->peer[r].scratch);
    const size_t shard = (size_t)m * k, block = (size_t)m * n;
    side_state *side = nullptr;
    if (side_for(&side) != cudaSuccess || cudaEventRecord(side->fork, stream) != cudaSuccess ||
        cudaStreamWaitEvent(side->stream, side->fork, 0) != cudaSuccess)
        return 1;
    for (int p = 0; p < world; p++) {
        if (p == r)
            continue;
        const __nv_bfloat16 *src = static_cast<const __nv_bfloat16 *>(comm->peer[p].buf[0]);
        if (peer_sum(&src, 1, gathered + p * shard, (long long)shard, side->stream) != cudaSuccess)
            return 1;
    }
    if (cudaEventRecord(side->join, side->stream) != cudaSuccess)
        return 1;
    kf::gemm_args own = kf::gemm_problem(A, B, C + r * block, m, n, k);
    if (kf::gemm<kf::B_KN>(own, 1, stream) != 0 || cudaStreamWaitEvent(stream, side->join, 0) != cudaSuccess)
        return 1;
    if (r > 0) {
        kf::gemm_args before = kf::gemm_problem(gathered, B, C, r * m, n, k);
        if (kf::gemm<kf::B_KN>(before, 1, stream) != 0)
            return 1;
    }
    if (r < world - 1) {
        kf::gemm_args after = kf::gemm_problem(gathered + (r + 1) * shard, B, C + (r + 1) * block, (world - r - 1) * m, n, k);
        if (kf::gemm<kf::B_KN>(after, 1, stream) != 0)
            return 1;
    }
    return 0;
}
