/* Layer-norm statistics of a row held in a row_frag, over one block: the mean, then the mean squared deviation from
 * it (two passes over registers, so a row like 300 + N(0, 1) keeps its precision; padding masked out of the
 * deviations; missing columns loaded as 0), as the mean and 1 / sqrt(var + eps). Every thread receives both. */
#pragma once
#include "common.cuh"
#include "reduce.cuh"
#include "rows.cuh"

namespace kf {

template <bool VEC_IO, class T, int THREADS, int VPT>
__device__ __forceinline__ void frag_mean_rstd(float &mean, float &rstd, const row_frag<T, THREADS, VPT> &r, int cols,
                                               float eps, float *scratch) {
    constexpr int VEC = row_frag<T, THREADS, VPT>::VEC;
    float sum = 0.0f, sq = 0.0f;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) sum += r.v[u][e];
    block_reduce<op_sum>(sum, sum, scratch);
    mean = sum / (float)cols;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            const float d = row_frag_col<THREADS, VEC, VEC_IO>(u, e) < cols ? r.v[u][e] - mean : 0.0f;
            sq += d * d;
        }
    block_reduce<op_sum>(sq, sq, scratch);
    rstd = rsqrtf(sq / (float)cols + eps);
}

} /* namespace kf */
