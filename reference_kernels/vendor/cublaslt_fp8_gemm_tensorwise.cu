/* Vendor baseline for fp8_gemm_tensorwise: one cublasLtMatmul on E4M3 operands with the per-tensor scales passed as
 * device pointers (the A/B scale attributes), fp32 accumulation, bf16 output. cuBLASLt's fp8 GEMM wants the "TN"
 * layout, which is what row-major A [M, K] and B [N, K] are: column-major C^T [N, M] = B^T-op(B as K x N) @ (A as
 * K x M). The handle and a 32 MiB workspace are set up by the first (untimed) call. */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

/* Returns the status of a cuBLAS or CUDA call unless it is success (0 for both). */
#define TRY(call)                                   \
    do {                                            \
        const int status_ = (int)(call);            \
        if (status_ != 0) return status_;           \
    } while (0)

namespace {

constexpr size_t WORKSPACE = 32u << 20;

struct lt_state {
    cublasLtHandle_t handle = nullptr;
    void *workspace = nullptr;
};

int setup(lt_state *st) {
    if (!st->handle) TRY(cublasLtCreate(&st->handle));
    if (!st->workspace) TRY(cudaMalloc(&st->workspace, WORKSPACE));
    return 0;
}

int matmul(const lt_state &st, const __nv_fp8_e4m3 *A, const __nv_fp8_e4m3 *B, const float *scale_a,
           const float *scale_b, __nv_bfloat16 *C, int M, int N, int K, cudaStream_t stream) {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t lb = nullptr, la = nullptr, lc = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    cublasLtMatmulHeuristicResult_t heur = {};
    int found = 0, rc = 0;
    const cublasOperation_t T = CUBLAS_OP_T, Nop = CUBLAS_OP_N;
    const float one = 1.0f, zero = 0.0f;
    const size_t ws = WORKSPACE;
    /* first operand (cuBLASLt's A) is B as K x N column-major, transposed; second is A as K x M */
    rc = (int)cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (!rc) rc = (int)cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &T, sizeof T);
    if (!rc) rc = (int)cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &Nop, sizeof Nop);
    if (!rc) rc = (int)cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_b, sizeof scale_b);
    if (!rc) rc = (int)cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_a, sizeof scale_a);
    if (!rc) rc = (int)cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, K, N, K);
    if (!rc) rc = (int)cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, K, M, K);
    if (!rc) rc = (int)cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N);
    if (!rc) rc = (int)cublasLtMatmulPreferenceCreate(&pref);
    if (!rc)
        rc = (int)cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (!rc) rc = (int)cublasLtMatmulAlgoGetHeuristic(st.handle, op, lb, la, lc, lc, pref, 1, &heur, &found);
    if (!rc && found == 0) rc = (int)CUBLAS_STATUS_NOT_SUPPORTED;
    if (!rc)
        rc = (int)cublasLtMatmul(st.handle, op, &one, B, lb, A, la, &zero, C, lc, C, lc, &heur.algo, st.workspace,
                                 WORKSPACE, stream);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatmulDescDestroy(op);
    return rc;
}

} /* namespace */

extern "C" int kf_launch(const __nv_fp8_e4m3 *A, const __nv_fp8_e4m3 *B, const float *scale_a, const float *scale_b,
                         __nv_bfloat16 *C, int M, int N, int K, cudaStream_t stream) {
    static lt_state st;
    TRY(setup(&st));
    return matmul(st, A, B, scale_a, scale_b, C, M, N, K, stream);
}
