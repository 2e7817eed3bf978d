/* Reference kernel for mlp_block: act = silu(xn @ Wg) * (xn @ Wu) with xn = x / rms(x) * gamma, then
 * y = x + act @ Wd; bf16 in and out, fp32 accumulation, act stored in bf16 and read back for the second product.
 * Two launches of the fused GEMM of tile/gemm.cuh: RMSNorm prologue with a SwiGLU epilogue, then a residual
 * epilogue. */
#include "tile/gemm.cuh"

namespace {
constexpr float RMS_EPS = 1e-6f;
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *Wg,
                         const __nv_bfloat16 *Wu, const __nv_bfloat16 *Wd, __nv_bfloat16 *act, __nv_bfloat16 *y,
                         int M, int Dm, int F, cudaStream_t stream) {
    kf::gemm_args up = kf::gemm_problem(x, Wg, act, M, F, Dm);
    up.B2 = Wu;
    up.ldb = F;
    up.gain = gamma;
    up.eps = RMS_EPS;
    const int rc = kf::gemm<kf::B_KN, kf::GEMM_ROW_RMS | kf::GEMM_K_GAIN | kf::GEMM_DUAL>(up, 1, stream);
    if (rc != 0) return rc;
    kf::gemm_args down = kf::gemm_problem(act, Wd, y, M, Dm, F);
    down.ldb = Dm;
    down.residual = x;
    return kf::gemm<kf::B_KN, kf::GEMM_RESIDUAL>(down, 1, stream);
}
