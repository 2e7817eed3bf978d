/* Reference kernel for decoder_layer: qkv = rms(x) Wqkv; attn = causal GQA attention; h = x + attn Wo;
 * act = silu(rms(h) W1[:, :F]) * (rms(h) W1[:, F:]); y = h + act W2. Four fused GEMMs (tile/gemm.cuh) and the
 * flash attention (tile/flash.cuh) reading the packed qkv rows in place; intermediates round to bf16 where an unfused
 * layer stores them. attn lives in act's buffer and h in y's (F >= H*D), so the layer needs no memory of its own. */
#include "tile/flash.cuh"
#include "tile/gemm.cuh"

namespace {
constexpr float RMS_EPS = 1e-6f;
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *Wqkv, const __nv_bfloat16 *Wo,
                         const __nv_bfloat16 *W1, const __nv_bfloat16 *W2, __nv_bfloat16 *qkv, __nv_bfloat16 *act,
                         __nv_bfloat16 *y, int B, int L, int H, int HKV, int D, int F, cudaStream_t stream) {
    const int M = B * L, Dm = H * D, Nqkv = (H + 2 * HKV) * D;
    if (kf::bad_shape(M, Dm, F) || HKV < 1 || H % HKV != 0 || F < Dm) return (int)cudaErrorInvalidValue;
    __nv_bfloat16 *attn = act, *h = y;
    int rc;

    kf::gemm_args proj = kf::gemm_problem(x, Wqkv, qkv, M, Nqkv, Dm);
    proj.ldb = Nqkv;
    proj.eps = RMS_EPS;
    if ((rc = kf::gemm<kf::B_KN, kf::GEMM_ROW_RMS>(proj, 1, stream)) != 0) return rc;

    const long long row = Nqkv, seq = (long long)L * Nqkv;
    const int heads = H + 2 * HKV;
    const kf::attn_args a = {kf::attn_view{qkv, seq, D, row, heads, 0}, kf::attn_view{qkv, seq, D, row, heads, H},
                             kf::attn_view{qkv, seq, D, row, heads, H + HKV}, attn, (long long)L * Dm, D, Dm,
                             B, H, HKV, L, D, true};
    if ((rc = kf::flash_attention(a, stream)) != 0) return rc;

    kf::gemm_args out = kf::gemm_problem(attn, Wo, h, M, Dm, Dm);
    out.ldb = Dm;
    out.residual = x;
    if ((rc = kf::gemm<kf::B_KN, kf::GEMM_RESIDUAL>(out, 1, stream)) != 0) return rc;

    kf::gemm_args up = kf::gemm_problem(h, W1, act, M, F, Dm);
    up.B2 = W1 + F;
    up.ldb = 2 * F;
    up.eps = RMS_EPS;
    if ((rc = kf::gemm<kf::B_KN, kf::GEMM_ROW_RMS | kf::GEMM_DUAL>(up, 1, stream)) != 0) return rc;

    kf::gemm_args down = kf::gemm_problem(act, W2, y, M, Dm, F);
    down.ldb = Dm;
    down.residual = h;   /* y in place: each element is read by the thread that then writes it */
    return kf::gemm<kf::B_KN, kf::GEMM_RESIDUAL>(down, 1, stream);
}
