/* Generic op library (see ops.cuh): block-scaled quantisation and dequantisation (any storage type, packed fp4 read
 * by element, e8m0 or float scales), row gathers and segment reductions over sorted offsets. */
#pragma once
#include "cuda/generic/elem.cuh"
#include "cuda/generic/reduce.cuh"

namespace kfg {

template <class TQ, class TX, class TS>
__global__ void __launch_bounds__(THREADS) quantize_kernel(TQ *q, const TX *x, const TS *scale, long long n,
                                                           long long block) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
        st(q, i, ld(x, i) / (scale ? ld(scale, i / block) : 1.0f));
}

/* q[i] = from_f(x[i] / scale[i / block]); scale may be null (1). Packed fp4 output is not supported here. */
template <class TQ, class TX, class TS>
inline int quantize(TQ *q, const TX *x, const TS *scale, long long n, long long block, cudaStream_t s) {
    if (bad(n) || block < 1) return BAD;
    if (n == 0) return 0;
    quantize_kernel<<<grid_for(n), THREADS, 0, s>>>(q, x, scale, n, block);
    return status();
}

template <class TY, class TQ, class TS>
__global__ void __launch_bounds__(THREADS) dequantize_kernel(TY *y, const TQ *q, const TS *scale, long long n,
                                                             long long block) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
        st(y, i, ld(q, i) * (scale ? ld(scale, i / block) : 1.0f));
}

/* y[i] = to_f(q[i]) * scale[i / block]; q may be packed fp4 (n counts elements); scale may be null (1). */
template <class TY, class TQ, class TS>
inline int dequantize(TY *y, const TQ *q, const TS *scale, long long n, long long block, cudaStream_t s) {
    if (bad(n) || block < 1) return BAD;
    if (n == 0) return 0;
    dequantize_kernel<<<grid_for(n), THREADS, 0, s>>>(y, q, scale, n, block);
    return status();
}

template <class TY, class TX, class TI>
__global__ void __launch_bounds__(THREADS) gather_rows_kernel(TY *y, const TX *x, const TI *idx, long long total,
                                                              long long cols) {
    for (long long t = blockIdx.x * (long long)THREADS + threadIdx.x; t < total; t += (long long)gridDim.x * THREADS)
        st(y, t, ld(x, (long long)idx[t / cols] * cols + t % cols));
}

/* y[r, :] = x[idx[r], :]; idx: int or long long, trusted to be in range. */
template <class TY, class TX, class TI>
inline int gather_rows(TY *y, const TX *x, const TI *idx, long long rows, long long cols, cudaStream_t s) {
    if (bad(rows, cols)) return BAD;
    if (rows == 0 || cols == 0) return 0;
    gather_rows_kernel<<<grid_for(rows * cols), THREADS, 0, s>>>(y, x, idx, rows * cols, cols);
    return status();
}

template <class TY, class TX, class TO>
__global__ void __launch_bounds__(THREADS) segment_kernel(TY *y, const TX *x, const TO *offsets, long long total,
                                                          long long cols, red r) {
    for (long long t = blockIdx.x * (long long)THREADS + threadIdx.x; t < total; t += (long long)gridDim.x * THREADS) {
        const long long seg = t / cols, c = t % cols, lo = offsets[seg], hi = offsets[seg + 1];
        const comb cb = r == MAX ? C_MAX : r == MIN ? C_MIN : C_SUM;
        float acc = comb_identity(cb);
        for (long long row = lo; row < hi; ++row) acc = comb_apply(cb, acc, ld(x, row * cols + c));
        if (hi <= lo) acc = 0.0f;
        else if (r == MEAN) acc /= (float)(hi - lo);
        st(y, t, acc);
    }
}

/* y[s, :] = r (SUM, MEAN, MAX, MIN) of x[t, :] over offsets[s] <= t < offsets[s + 1]; 0 for an empty segment. */
template <class TY, class TX, class TO>
inline int segment_reduce(TY *y, const TX *x, const TO *offsets, long long S, long long cols, red r, cudaStream_t s) {
    if (bad(S, cols) || (r != SUM && r != MEAN && r != MAX && r != MIN)) return BAD;
    if (S == 0 || cols == 0) return 0;
    segment_kernel<<<grid_for(S * cols), THREADS, 0, s>>>(y, x, offsets, S * cols, cols, r);
    return status();
}

} /* namespace kfg */
