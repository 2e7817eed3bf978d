/* Tile layer basics shared by every reference kernel in reference_kernels/cuda/: the 16x16 tile unit, warp and
 * warpgroup sizes, ceil-division, pointer alignment tests, the status a kf_launch returns, and 2^x on the
 * special-function unit.
 * Headers of this layer hold only inline code, so several references can be linked into one program. */
#pragma once
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stddef.h>
#include <stdint.h>

namespace kf {

constexpr int TILE = 16;                       /* rows and columns of the unit register tile */
constexpr int WARP = 32;
constexpr int WARPGROUP = 4 * WARP;            /* the threads that issue one wgmma together */
constexpr int VEC_BYTES = 16;                  /* widest per-thread global access */

__host__ __device__ constexpr long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

inline bool is_aligned(const void *p, size_t bytes) { return (uintptr_t)p % bytes == 0; }

/* What kf_launch returns: 0, or the CUDA error the launches left behind. */
inline int launch_status() { return (int)cudaGetLastError(); }

/* Shapes that kf_launch rejects before launching anything. */
inline bool bad_shape(long long a, long long b = 0, long long c = 0) { return a < 0 || b < 0 || c < 0; }

constexpr float LOG2E = 1.4426950408889634f;

/* 2^x as one MUFU.EX2 (about 2 ulp; results below 2^-126 flush to zero): exp2f without -use_fast_math adds range
 * handling around it. */
__device__ __forceinline__ float exp2_fast(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

} /* namespace kf */
