/* Generic op library (see ops.cuh): elementwise maps (one thread per element, grid-stride), per-channel maps, casts,
 * fills, and the activation and binary functors. */
#pragma once
#include "cuda/generic/elem.cuh"

namespace kfg {

namespace act {
struct identity { __device__ float operator()(float x) const { return x; } };
struct relu { __device__ float operator()(float x) const { return x > 0.0f ? x : 0.0f; } };
struct relu6 { __device__ float operator()(float x) const { return fminf(fmaxf(x, 0.0f), 6.0f); } };
struct leaky_relu {
    float slope = 0.01f;
    __device__ float operator()(float x) const { return x > 0.0f ? x : slope * x; }
};
struct elu {
    float alpha = 1.0f;
    __device__ float operator()(float x) const { return x > 0.0f ? x : alpha * expm1f(x); }
};
struct selu {
    __device__ float operator()(float x) const {
        const float alpha = 1.6732632423543772f, lambda = 1.0507009873554805f;
        return lambda * (x > 0.0f ? x : alpha * expm1f(x));
    }
};
struct gelu { __device__ float operator()(float x) const { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); } };
struct gelu_tanh {
    __device__ float operator()(float x) const {
        return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    }
};
struct sigmoid { __device__ float operator()(float x) const { return 1.0f / (1.0f + expf(-x)); } };
struct silu { __device__ float operator()(float x) const { return x / (1.0f + expf(-x)); } };
struct tanh_ { __device__ float operator()(float x) const { return tanhf(x); } };
struct softplus {
    float beta = 1.0f, threshold = 20.0f;
    __device__ float operator()(float x) const { return beta * x > threshold ? x : log1pf(expf(beta * x)) / beta; }
};
struct softsign { __device__ float operator()(float x) const { return x / (1.0f + fabsf(x)); } };
struct hardsigmoid { __device__ float operator()(float x) const { return fminf(fmaxf(x / 6.0f + 0.5f, 0.0f), 1.0f); } };
struct hardswish { __device__ float operator()(float x) const { return x * fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f; } };
struct hardtanh {
    float lo = -1.0f, hi = 1.0f;
    __device__ float operator()(float x) const { return fminf(fmaxf(x, lo), hi); }
};
struct mish { __device__ float operator()(float x) const { return x * tanhf(x > 20.0f ? x : log1pf(expf(x))); } };
struct exp_ { __device__ float operator()(float x) const { return expf(x); } };
struct log_ { __device__ float operator()(float x) const { return logf(x); } };
struct abs_ { __device__ float operator()(float x) const { return fabsf(x); } };
struct neg { __device__ float operator()(float x) const { return -x; } };
struct square { __device__ float operator()(float x) const { return x * x; } };
struct sqrt_ { __device__ float operator()(float x) const { return sqrtf(x); } };
struct rsqrt_ { __device__ float operator()(float x) const { return rsqrtf(x); } };
struct scale {
    float a = 1.0f;
    __device__ float operator()(float x) const { return a * x; }
};
struct affine {
    float a = 1.0f, b = 0.0f;
    __device__ float operator()(float x) const { return fmaf(a, x, b); }
};
struct clamp {
    float lo, hi;
    __device__ float operator()(float x) const { return fminf(fmaxf(x, lo), hi); }
};
} /* namespace act */

namespace bin {
struct add { __device__ float operator()(float a, float b) const { return a + b; } };
struct sub { __device__ float operator()(float a, float b) const { return a - b; } };
struct mul { __device__ float operator()(float a, float b) const { return a * b; } };
struct div { __device__ float operator()(float a, float b) const { return a / b; } };
struct max_ { __device__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct min_ { __device__ float operator()(float a, float b) const { return fminf(a, b); } };
struct pow_ { __device__ float operator()(float a, float b) const { return powf(a, b); } };
} /* namespace bin */

template <class TY, class TX, class Op>
__global__ void __launch_bounds__(THREADS) map_kernel(TY *y, const TX *x, long long n, Op op) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
        st(y, i, op(ld(x, i)));
}

template <class TY, class TA, class TB, class Op>
__global__ void __launch_bounds__(THREADS) map2_kernel(TY *y, const TA *a, const TB *b, long long n, Op op) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
        st(y, i, op(ld(a, i), ld(b, i)));
}

template <class TY, class TA, class TB, class TC, class Op>
__global__ void __launch_bounds__(THREADS)
map3_kernel(TY *y, const TA *a, const TB *b, const TC *c, long long n, Op op) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
        st(y, i, op(ld(a, i), ld(b, i), ld(c, i)));
}

template <class TY, class TX, class TV, class Op>
__global__ void __launch_bounds__(THREADS)
map_channel_kernel(TY *y, const TX *x, const TV *v, long long total, long long n, long long inner, Op op) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < total; i += (long long)gridDim.x * THREADS)
        st(y, i, op(ld(x, i), ld(v, i / inner % n)));
}

template <class TY, class Gen>
__global__ void __launch_bounds__(THREADS) generate_kernel(TY *y, long long n, Gen gen) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
        st(y, i, gen(i));
}

template <class TY>
__global__ void __launch_bounds__(THREADS) fill_kernel(TY *y, float value, long long n) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
        st(y, i, value);
}

template <class TY, class TX, class Op>
inline int map(TY *y, const TX *x, long long n, Op op, cudaStream_t s) {
    if (bad(n)) return BAD;
    if (n == 0) return 0;
    map_kernel<<<grid_for(n), THREADS, 0, s>>>(y, x, n, op);
    return status();
}

template <class TY, class TA, class TB, class Op>
inline int map2(TY *y, const TA *a, const TB *b, long long n, Op op, cudaStream_t s) {
    if (bad(n)) return BAD;
    if (n == 0) return 0;
    map2_kernel<<<grid_for(n), THREADS, 0, s>>>(y, a, b, n, op);
    return status();
}

template <class TY, class TA, class TB, class TC, class Op>
inline int map3(TY *y, const TA *a, const TB *b, const TC *c, long long n, Op op, cudaStream_t s) {
    if (bad(n)) return BAD;
    if (n == 0) return 0;
    map3_kernel<<<grid_for(n), THREADS, 0, s>>>(y, a, b, c, n, op);
    return status();
}

template <class TY, class TX, class TV, class Op>
inline int map_channel(TY *y, const TX *x, const TV *v, long long outer, long long n, long long inner, Op op,
                       cudaStream_t s) {
    if (bad(outer, n, inner)) return BAD;
    const long long total = outer * n * inner;
    if (total == 0) return 0;
    map_channel_kernel<<<grid_for(total), THREADS, 0, s>>>(y, x, v, total, n, inner, op);
    return status();
}

/* y[i] = gen(i) for every flat index i: gathers and combines whose sources follow from the index. */
template <class TY, class Gen> inline int generate(TY *y, long long n, Gen gen, cudaStream_t s) {
    if (bad(n)) return BAD;
    if (n == 0) return 0;
    generate_kernel<<<grid_for(n), THREADS, 0, s>>>(y, n, gen);
    return status();
}

template <class TY, class TX> inline int cast(TY *y, const TX *x, long long n, cudaStream_t s) {
    return map(y, x, n, act::identity{}, s);
}

template <class TY> inline int fill(TY *y, float value, long long n, cudaStream_t s) {
    if (bad(n)) return BAD;
    if (n == 0) return 0;
    fill_kernel<<<grid_for(n), THREADS, 0, s>>>(y, value, n);
    return status();
}

} /* namespace kfg */
