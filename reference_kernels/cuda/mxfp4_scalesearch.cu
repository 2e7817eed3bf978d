/* Reference kernel for mxfp4_scalesearch: generic (one warp per 32-element block, one element a lane; each candidate
 * exponent's squared error summed over the warp in double, where the element errors are exact). */
#include "cuda/generic/ops.cuh"

namespace {

constexpr int BLOCK = 32, WARPS = 8, E2M1_EMAX = 2, E8M0_BIAS = 127;

__device__ __forceinline__ unsigned e2m1_code(float v) {
    const float a = fabsf(v);
    const unsigned c = a <= 0.25f ? 0u : a < 0.75f ? 1u : a <= 1.25f ? 2u : a < 1.75f ? 3u
                     : a <= 2.5f ? 4u : a < 3.5f ? 5u : a <= 5.0f ? 6u : 7u;
    return c | (signbit(v) ? 8u : 0u);
}

__global__ void __launch_bounds__(WARPS * 32) search(unsigned char *q, unsigned char *scale, float *err, const float *x,
                                                     long long blocks) {
    const long long b = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (b >= blocks) return;
    const float v = x[b * BLOCK + lane];
    float amax = fabsf(v);
    for (int off = 16; off > 0; off /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
    int best = -E8M0_BIAS;
    double best_err = 0.0;
    if (amax > 0.0f) {
        const int e0 = ilogbf(amax) - E2M1_EMAX;
        best_err = INFINITY;
        for (int e = e0 - 1; e <= e0 + 1; ++e) {
            if (e < -E8M0_BIAS || e > E8M0_BIAS) continue;
            const double dq = ldexp((double)kfg::fp4_decode(e2m1_code(ldexpf(v, -e))), e), diff = (double)v - dq;
            double sum = diff * diff;
            for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
            if (sum <= best_err) { /* ascending e: a tie goes to the larger */
                best_err = sum;
                best = e;
            }
        }
    }
    const unsigned code = amax > 0.0f ? e2m1_code(ldexpf(v, -best)) : 0u;
    const unsigned hi = __shfl_down_sync(0xffffffffu, code, 1);
    if (lane % 2 == 0) q[(b * BLOCK + lane) / 2] = (unsigned char)(code | hi << 4);
    if (lane == 0) {
        scale[b] = (unsigned char)(best + E8M0_BIAS);
        err[b] = (float)best_err;
    }
}

} /* namespace */

extern "C" int kf_launch(const float *x, unsigned char *q, unsigned char *scale, float *err, int M, int K,
                         cudaStream_t stream) {
    const long long blocks = (long long)M * (K / BLOCK);
    if (blocks == 0) return 0;
    search<<<(unsigned)((blocks + WARPS - 1) / WARPS), WARPS * 32, 0, stream>>>(q, scale, err, x, blocks);
    return kfg::status();
}
