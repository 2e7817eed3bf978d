/* Reference kernel for mxfp8_quant: generic (one warp per 32-element block, one element a lane, the amax by warp
 * shuffles, the exponent read from its float bits; kfg's conversions). */
#include "cuda/generic/ops.cuh"

namespace {

constexpr int BLOCK = 32, WARPS = 8, E4M3_EMAX = 8, E8M0_BIAS = 127;

__global__ void __launch_bounds__(WARPS * 32) mx_quant(__nv_fp8_e4m3 *q, unsigned char *scale, const float *x,
                                                       long long blocks) {
    const long long b = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (b >= blocks) return;
    const float v = x[b * BLOCK + lane];
    float amax = fabsf(v);
    for (int off = 16; off > 0; off /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
    int e = -E8M0_BIAS;
    if (amax > 0.0f) e = max(ilogbf(amax) - E4M3_EMAX, -E8M0_BIAS);
    if (lane == 0) scale[b] = (unsigned char)(e + E8M0_BIAS);
    q[b * BLOCK + lane] = kfg::from_f<__nv_fp8_e4m3>(amax > 0.0f ? ldexpf(v, -e) : 0.0f);
}

} /* namespace */

extern "C" int kf_launch(const float *x, __nv_fp8_e4m3 *q, unsigned char *scale, int M, int K, cudaStream_t stream) {
    const long long blocks = (long long)M * (K / BLOCK);
    if (blocks == 0) return 0;
    mx_quant<<<(unsigned)((blocks + WARPS - 1) / WARPS), WARPS * 32, 0, stream>>>(q, scale, x, blocks);
    return kfg::status();
}
