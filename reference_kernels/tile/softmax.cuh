/* Softmax statistics of a row over one block: its max m and the sum s of exp(x - m), the two numbers a softmax, a
 * log-softmax and a cross-entropy all start from. Every thread receives both.
 *  - frag_softmax_stats(m, s, frag, scratch): a row held in a row_frag (missing columns loaded as -inf): the block's
 *    max, then one exponential per element;
 *  - row_softmax_stats<THREADS, VEC_IO>(m, s, row, cols, scratch): a row streamed once. Each thread keeps an online
 *    (m, s) pair updated once per 16-byte vector (the vector's max first, one rescale if m grows, then independent
 *    exponentials, so none overflows and the dependency chain stays short); the block merges the pairs. */
#pragma once
#include "common.cuh"
#include "reduce.cuh"
#include "rows.cuh"

namespace kf {

/* exp(d) for d <= 0 through the hardware base-2 exponential (2 ulp). */
__device__ __forceinline__ float exp_le0(float d) { return exp2f(d * LOG2E); }

struct online_lse {
    float m = -INFINITY, s = 0.0f;
    __device__ void add(float v) {
        if (v > m) {
            s = s * exp_le0(m - v) + 1.0f;
            m = v;
        } else {
            s += exp_le0(v - m);
        }
    }
    template <int N> __device__ void add(const float (&v)[N]) {
        float vmax = v[0];
#pragma unroll
        for (int e = 1; e < N; ++e) vmax = fmaxf(vmax, v[e]);
        if (vmax > m) {
            s *= exp_le0(m - vmax);
            m = vmax;
        }
        float part = 0.0f;
#pragma unroll
        for (int e = 0; e < N; ++e) part += exp_le0(v[e] - m);
        s += part;
    }
};

template <class T, int THREADS, int VPT>
__device__ __forceinline__ void frag_softmax_stats(float &m, float &s, const row_frag<T, THREADS, VPT> &r,
                                                   float *scratch) {
    constexpr int VEC = row_frag<T, THREADS, VPT>::VEC;
    float mx = -INFINITY, sum = 0.0f;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) mx = fmaxf(mx, r.v[u][e]);
    block_reduce<op_max>(m, mx, scratch);
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) sum += expf(r.v[u][e] - m);
    block_reduce<op_sum>(s, sum, scratch);
}

template <int THREADS, bool VEC_IO, class T>
__device__ __forceinline__ void row_softmax_stats(float &m, float &s, const T *__restrict__ row, int cols,
                                                  float *scratch) {
    constexpr int VEC = elems_per_vec<T>::value;
    online_lse acc;
    if (VEC_IO) row_for_each_vec<THREADS>(row, cols, (int)threadIdx.x, [&](const float (&v)[VEC], int) { acc.add(v); });
    else row_for_each<THREADS, false>(row, cols, [&](float v, int) { acc.add(v); });
    block_reduce<op_max>(m, acc.m, scratch);
    block_reduce<op_sum>(s, acc.m == -INFINITY ? 0.0f : acc.s * exp_le0(acc.m - m), scratch);
}

} /* namespace kf */
