/* Reference kernel for rmsnorm_matmul: Y = (x / rms(x) * gamma) @ W per row of X, bf16 in and out, fp32 accumulation.
 * The GEMM of tile/gemm.cuh with its prologue: each consumer warpgroup takes its X operands through registers, sums
 * their squares and multiplies them by gamma (copied into the ring with each stage) there before the wgmma; 1/rms
 * scales the accumulator rows on the way out. */
#include "tile/gemm.cuh"

namespace {
constexpr float RMS_EPS = 1e-6f;
}

extern "C" int kf_launch(const __nv_bfloat16 *X, const __nv_bfloat16 *gamma, const __nv_bfloat16 *W, __nv_bfloat16 *Y,
                         int M, int N, int K, cudaStream_t stream) {
    kf::gemm_args g = kf::gemm_problem(X, W, Y, M, N, K);
    g.ldb = N;
    g.gain = gamma;
    g.eps = RMS_EPS;
    return kf::gemm<kf::B_KN, kf::GEMM_ROW_RMS | kf::GEMM_K_GAIN>(g, 1, stream);
}
