/* Reference kernel for fp8_quant_block: generic (one warp per 128-element group, 4 elements a lane, the amax by warp
 * shuffles; kfg's conversions). */
#include "cuda/generic/ops.cuh"

namespace {

constexpr int GROUP = 128, PER_LANE = GROUP / 32, WARPS = 8;

__global__ void __launch_bounds__(WARPS * 32) quant_groups(__nv_fp8_e4m3 *q, float *s, const __nv_bfloat16 *x,
                                                           long long groups) {
    const long long g = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (g >= groups) return;
    float v[PER_LANE], amax = 0.0f;
#pragma unroll
    for (int i = 0; i < PER_LANE; ++i) {
        v[i] = __bfloat162float(x[g * GROUP + i * 32 + lane]);
        amax = fmaxf(amax, fabsf(v[i]));
    }
    for (int off = 16; off > 0; off /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
    const float scale = amax > 0.0f ? amax / 448.0f : 1.0f;
    if (lane == 0) s[g] = scale;
#pragma unroll
    for (int i = 0; i < PER_LANE; ++i) q[g * GROUP + i * 32 + lane] = kfg::from_f<__nv_fp8_e4m3>(v[i] / scale);
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_fp8_e4m3 *q, float *s, int M, int K, cudaStream_t stream) {
    const long long groups = (long long)M * (K / GROUP);
    if (groups == 0) return 0;
    quant_groups<<<(unsigned)((groups + WARPS - 1) / WARPS), WARPS * 32, 0, stream>>>(q, s, x, groups);
    return kfg::status();
}
