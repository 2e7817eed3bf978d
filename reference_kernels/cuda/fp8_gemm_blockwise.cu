/* Reference kernel for fp8_gemm_blockwise: generic (reference_kernels/cuda/generic), the library GEMM with pre-ops that
 * scale each operand value by its block's scale as it is loaded (the same sum as scaling per-group partial sums). */
#include "cuda/generic/ops.cuh"

namespace {

constexpr int GROUP = 128;

struct act_scale { /* A(m, k) * sa[m, k / 128] */
    const float *sa;
    long long groups;
    __device__ float operator()(float v, long long m, long long k) const { return v * sa[m * groups + k / GROUP]; }
};

struct weight_scale { /* B(k, n) * sb[n / 128, k / 128] */
    const float *sb;
    long long groups;
    __device__ float operator()(float v, long long k, long long n) const {
        return v * sb[(n / GROUP) * groups + k / GROUP];
    }
};

} /* namespace */

extern "C" int kf_launch(const __nv_fp8_e4m3 *A, const __nv_fp8_e4m3 *B, const float *sa, const float *sb,
                         __nv_bfloat16 *C, int M, int N, int K, cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    const long long groups = K / GROUP;
    return kfg::gemm_pre(C, A, B, d, act_scale{sa, groups}, weight_scale{sb, groups}, kfg::no_epi2{}, stream);
}
