/* Reference kernel for argmax_dim_i64: generic (cuda/generic: argreduce over the middle axis of x [B, N, M], one
 * thread per (b, m) column walking n, coalesced across m; the first maximal n wins). */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, long long *idx, int B, int N, int M, cudaStream_t stream) {
    return kfg::argreduce(idx, x, B, N, M, kfg::ARGMAX, stream);
}
