/* 16-byte vector moves between global memory and per-thread fp32 registers: 4 x fp32, or 8 x bf16 widened on
 * load and rounded to nearest on store. Callers check 16-byte alignment first (kf::is_aligned). */
#pragma once
#include "common.cuh"

namespace kf {

constexpr int F32_PER_VEC = VEC_BYTES / (int)sizeof(float);
constexpr int BF16_PER_VEC = VEC_BYTES / (int)sizeof(__nv_bfloat16);

__device__ __forceinline__ void load(float (&dst)[F32_PER_VEC], const float *src) {
    const float4 v = __ldg(reinterpret_cast<const float4 *>(src));
    dst[0] = v.x; dst[1] = v.y; dst[2] = v.z; dst[3] = v.w;
}

__device__ __forceinline__ void store(float *dst, const float (&src)[F32_PER_VEC]) {
    *reinterpret_cast<float4 *>(dst) = make_float4(src[0], src[1], src[2], src[3]);
}

__device__ __forceinline__ void load(float (&dst)[BF16_PER_VEC], const __nv_bfloat16 *src) {
    const uint4 raw = __ldg(reinterpret_cast<const uint4 *>(src));
    const __nv_bfloat162 *pairs = reinterpret_cast<const __nv_bfloat162 *>(&raw);
#pragma unroll
    for (int i = 0; i < BF16_PER_VEC / 2; ++i) {
        const float2 f = __bfloat1622float2(pairs[i]);
        dst[2 * i] = f.x;
        dst[2 * i + 1] = f.y;
    }
}

__device__ __forceinline__ void store(__nv_bfloat16 *dst, const float (&src)[BF16_PER_VEC]) {
    uint4 raw;
    __nv_bfloat162 *pairs = reinterpret_cast<__nv_bfloat162 *>(&raw);
#pragma unroll
    for (int i = 0; i < BF16_PER_VEC / 2; ++i) pairs[i] = __floats2bfloat162_rn(src[2 * i], src[2 * i + 1]);
    *reinterpret_cast<uint4 *>(dst) = raw;
}

} /* namespace kf */
