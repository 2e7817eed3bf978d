/* Reference kernel for quantized_linear_u8: generic (cuda/generic gemm: u8 activations less the zero point and
 * i8 weights [N, K], read transposed, widened to fp32 as staged; products and sums are exact in fp32 up to 2^24,
 * then round like any fp32 sum; scale applied once per output). */
#include "cuda/generic/ops.cuh"

namespace {
struct minus_zero_point {
    float zp;
    __device__ float operator()(float v, long long, long long) const { return v - zp; }
};
} /* namespace */

extern "C" int kf_launch(const unsigned char *x, const signed char *w, float *y, int M, int N, int K, int zp,
                         float scale, cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M, d.N = N, d.K = K;
    d.tb = true;
    d.alpha = scale;
    return kfg::gemm_pre(y, x, w, d, minus_zero_point{ (float)zp }, kfg::no_pre{}, kfg::no_epi2{}, stream);
}
