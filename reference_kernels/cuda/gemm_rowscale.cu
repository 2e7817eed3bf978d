/* Reference kernel for gemm_rowscale: C = (A @ B) * a_scale[m] * b_scale[n], the dequantising epilogue of a
 * per-row / per-column scaled low-precision GEMM, here with bf16 operands and fp32 accumulation.
 * The fused GEMM of tile/gemm.cuh with a row-scale and column-scale epilogue. */
#include "tile/gemm.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, const float *a_scale, const float *b_scale,
                         __nv_bfloat16 *C, int M, int N, int K, cudaStream_t stream) {
    kf::gemm_args g = kf::gemm_problem(A, B, C, M, N, K);
    g.ldb = N;
    g.row_scale = a_scale;
    g.col_scale = b_scale;
    return kf::gemm<kf::B_KN, kf::GEMM_ROW_SCALE | kf::GEMM_COL_SCALE>(g, 1, stream);
}
