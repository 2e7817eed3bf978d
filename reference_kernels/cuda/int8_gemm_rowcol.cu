/* Reference kernel for int8_gemm_rowcol: generic (reference_kernels/cuda/generic), the library GEMM on int8 operands
 * with both scales in its epilogue. fp32 accumulation of the integer products (exact to 2^24, then within rounding). */
#include "cuda/generic/ops.cuh"

namespace {

struct rowcol_scale {
    const float *sa, *sb;
    __device__ float operator()(float acc, long long m, long long n) const { return acc * sa[m] * sb[n]; }
};

} /* namespace */

extern "C" int kf_launch(const signed char *A, const signed char *B, const float *sa, const float *sb, __nv_bfloat16 *C,
                         int M, int N, int K, cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    return kfg::gemm(C, A, B, d, rowcol_scale{sa, sb}, stream);
}
