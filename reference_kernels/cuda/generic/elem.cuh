/* Generic op library (see ops.cuh): element conversions between every storage type of format v2 and fp32, the launch
 * shape of the one-thread-per-element kernels, and the status a launcher returns. */
#pragma once
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_fp4.h>
#include <math.h>
#include <stdint.h>

namespace kfg {

constexpr int THREADS = 256;             /* block size of the one-thread-per-element kernels */
constexpr long long MAX_GRID = 1 << 20;  /* grid-stride loops past this many blocks */

inline unsigned grid_for(long long n) {
    const long long blocks = (n + THREADS - 1) / THREADS;
    return (unsigned)(blocks < 1 ? 1 : blocks > MAX_GRID ? MAX_GRID : blocks);
}

inline int status() { return (int)cudaGetLastError(); }

inline bool bad(long long a, long long b = 0, long long c = 0, long long d = 0) {
    return a < 0 || b < 0 || c < 0 || d < 0;
}

constexpr int BAD = (int)cudaErrorInvalidValue;

/* ---- widening ---- */
__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_f(__nv_fp8_e4m3 v) { return (float)v; }
__device__ __forceinline__ float to_f(__nv_fp8_e5m2 v) { return (float)v; }
__device__ __forceinline__ float to_f(signed char v) { return (float)v; }
__device__ __forceinline__ float to_f(unsigned char v) { return (float)v; }
__device__ __forceinline__ float to_f(bool v) { return v ? 1.0f : 0.0f; }
__device__ __forceinline__ float to_f(int v) { return (float)v; }
__device__ __forceinline__ float to_f(long long v) { return (float)v; }
__device__ __forceinline__ float to_f(__nv_fp8_e8m0 v) { return v.__x == 0xff ? NAN : ldexpf(1.0f, (int)v.__x - 127); }

/* ---- rounding ---- */
template <class T> struct cvt;
template <> struct cvt<float> { static __device__ __forceinline__ float from(float v) { return v; } };
template <> struct cvt<__half> { static __device__ __forceinline__ __half from(float v) { return __float2half_rn(v); } };
template <> struct cvt<__nv_bfloat16> {
    static __device__ __forceinline__ __nv_bfloat16 from(float v) { return __float2bfloat16_rn(v); }
};
template <> struct cvt<__nv_fp8_e4m3> {
    static __device__ __forceinline__ __nv_fp8_e4m3 from(float v) { return __nv_fp8_e4m3(v); }
};
template <> struct cvt<__nv_fp8_e5m2> {
    static __device__ __forceinline__ __nv_fp8_e5m2 from(float v) { return __nv_fp8_e5m2(v); }
};
/* Integers: round half to even (rintf), clamp to the range; NaN becomes 0. */
template <class I> __device__ __forceinline__ I round_int(float v, float lo, float hi) {
    if (v != v) return (I)0;
    return (I)fminf(fmaxf(rintf(v), lo), hi);
}
template <> struct cvt<signed char> {
    static __device__ __forceinline__ signed char from(float v) { return round_int<signed char>(v, -128.0f, 127.0f); }
};
template <> struct cvt<unsigned char> {
    static __device__ __forceinline__ unsigned char from(float v) { return round_int<unsigned char>(v, 0.0f, 255.0f); }
};
template <> struct cvt<bool> { static __device__ __forceinline__ bool from(float v) { return v != 0.0f; } };
template <> struct cvt<int> {
    static __device__ __forceinline__ int from(float v) {
        if (v != v) return 0;
        return v >= 2147483647.0f ? 2147483647 : v <= -2147483648.0f ? (-2147483647 - 1) : (int)rintf(v);
    }
};
template <> struct cvt<long long> {
    static __device__ __forceinline__ long long from(float v) { return v != v ? 0 : llrintf(v); }
};

template <class T> __device__ __forceinline__ T from_f(float v) { return cvt<T>::from(v); }

__device__ __forceinline__ signed char round_i8(float v) { return cvt<signed char>::from(v); }

/* ---- packed fp4 and e8m0 block scales ---- */
__device__ __forceinline__ float fp4_decode(unsigned nibble) {
    /* E2M1: 0, 0.5, 1, 1.5, 2, 3, 4, 6 for codes 0..7; bit 3 the sign */
    const float mag[8] = { 0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f };
    const float m = mag[nibble & 7u];
    return (nibble & 8u) ? -m : m;
}

__device__ __forceinline__ float fp4_get(const __nv_fp4x2_e2m1 *p, long long i) {
    const unsigned byte = reinterpret_cast<const unsigned char *>(p)[i / 2];
    return fp4_decode(i % 2 ? byte >> 4 : byte & 15u);
}

__device__ __forceinline__ float e8m0_get(const __nv_fp8_e8m0 *p, long long i) { return to_f(p[i]); }

/* Element i of any array as fp32 (packed fp4 by element index). */
template <class T> __device__ __forceinline__ float ld(const T *p, long long i) { return to_f(p[i]); }
__device__ __forceinline__ float ld(const __nv_fp4x2_e2m1 *p, long long i) { return fp4_get(p, i); }

template <class T> __device__ __forceinline__ void st(T *p, long long i, float v) { p[i] = from_f<T>(v); }

} /* namespace kfg */
