/* Reference kernel for nvfp4_gemm: generic (reference_kernels/cuda/generic), the library GEMM reading the packed fp4
 * operands by element, with pre-ops that apply each 16-element block's E4M3 scale as the value is loaded. */
#include "cuda/generic/ops.cuh"

namespace {

constexpr int BLOCK = 16;

struct a_scale {
    const __nv_fp8_e4m3 *s;
    long long blocks;
    __device__ float operator()(float v, long long m, long long k) const { return v * kfg::to_f(s[m * blocks + k / BLOCK]); }
};

struct b_scale {
    const __nv_fp8_e4m3 *s;
    long long blocks;
    __device__ float operator()(float v, long long k, long long n) const { return v * kfg::to_f(s[n * blocks + k / BLOCK]); }
};

} /* namespace */

extern "C" int kf_launch(const __nv_fp4x2_e2m1 *Aq, const __nv_fp8_e4m3 *sa, const __nv_fp4x2_e2m1 *Bq,
                         const __nv_fp8_e4m3 *sb, __nv_bfloat16 *C, int M, int N, int K, float alpha,
                         cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    d.alpha = alpha;
    const long long blocks = K / BLOCK;
    return kfg::gemm_pre(C, Aq, Bq, d, a_scale{sa, blocks}, b_scale{sb, blocks}, kfg::no_epi2{}, stream);
}
