/* Reference kernel for swiglu_up: H = silu(X @ Wg) * (X @ Wu), bf16 in and out, fp32 accumulation.
 * The fused GEMM of tile/gemm.cuh in its dual form: each block's 256 accumulator columns are 128 gate and the
 * same 128 up columns, so both products share every A tile and meet in the epilogue. */
#include "tile/gemm.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *X, const __nv_bfloat16 *Wg, const __nv_bfloat16 *Wu, __nv_bfloat16 *H,
                         int M, int N, int K, cudaStream_t stream) {
    kf::gemm_args g = kf::gemm_problem(X, Wg, H, M, N, K);
    g.B2 = Wu;
    g.ldb = N;
    return kf::gemm<kf::B_KN, kf::GEMM_DUAL>(g, 1, stream);
}
