/* Reference kernel for allreduce_sum_bf16: one-shot all-reduce. Every rank reads every rank's x over NVLink
 * (the inputs are in place when the job starts, so no synchronisation is needed) and writes the whole sum into
 * its own out, 16-byte peer loads, fp32 sums in rank order (every rank's result is bitwise the same). On 2 GPUs
 * each GPU receives n elements, what a ring would; from 3 GPUs on it moves (world-1)/world more than the
 * two-shot minimum the spec's nvlink_bytes counts. */
#include "multi/peer.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *out, int world, int n, const struct kf_comm *comm,
                         cudaStream_t stream) {
    (void)x;
    const __nv_bfloat16 *src[8];
    for (int p = 0; p < world; p++)
        src[p] = static_cast<const __nv_bfloat16 *>(comm->peer[p].buf[0]);
    return peer_sum(src, world, out, n, stream) == cudaSuccess ? 0 : 1;
}
