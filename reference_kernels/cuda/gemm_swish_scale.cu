/* Reference kernel for gemm_swish_scale: generic (reference_kernels/cuda/generic), the library GEMM with bias, swish
 * and scale in its epilogue. */
#include "cuda/generic/ops.cuh"

namespace {

struct swish_scale {
    const float *b;
    float scale;
    __device__ float operator()(float acc, long long, long long n) const {
        return kfg::act::silu{}(acc + b[n]) * scale;
    }
};

} /* namespace */

extern "C" int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K, float scale,
                         cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    return kfg::gemm(y, x, W, d, swish_scale{b, scale}, stream);
}
