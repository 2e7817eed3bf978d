/* Reference kernel for int4_awq_gemm: generic (reference_kernels/cuda/generic), the library GEMM with the packed
 * weights read through their own element type (a 4-bit code by element index) and a pre-op that applies the group's
 * zero point and scale as each weight is loaded. */
#include "cuda/generic/ops.cuh"

namespace awq {

/* qw viewed by element: code k of a row is nibble k % 2 of byte k / 2 (found by argument-dependent lookup). */
struct u4x2 {
    unsigned char byte;
};
__device__ __forceinline__ float ld(const u4x2 *p, long long i) {
    const unsigned b = p[i / 2].byte;
    return (float)(i % 2 ? b >> 4 : b & 15u);
}

constexpr int GROUP = 128;

struct dequant { /* W(k, n) = (code - zero) * scale of group (n, k / 128) */
    const __nv_bfloat16 *scales;
    const unsigned char *zeros;
    long long groups;
    __device__ float operator()(float code, long long k, long long n) const {
        const long long g = n * groups + k / GROUP;
        return (code - (float)zeros[g]) * __bfloat162float(scales[g]);
    }
};

} /* namespace awq */

extern "C" int kf_launch(const __nv_bfloat16 *x, const unsigned char *qw, const __nv_bfloat16 *scales,
                         const unsigned char *zeros, __nv_bfloat16 *y, int M, int N, int K, cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    return kfg::gemm_pre(y, x, reinterpret_cast<const awq::u4x2 *>(qw), d, kfg::no_pre{},
                         awq::dequant{scales, zeros, K / awq::GROUP}, kfg::no_epi2{}, stream);
}
