/* Vendor baseline for gemm_bias_gelu: C = gelu(A @ B + bias), exact (erf) GELU. One cublasLtMatmul adds the bias in
 * its fp32 epilogue and writes bf16; cuBLASLt's GELU epilogue is the tanh form, so a second kernel applies the erf
 * GELU in place. Scratch: the cuBLASLt workspace, LT_WORKSPACE_BYTES (32 MiB). */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <stdint.h>

/* Returns the status of a cuBLAS or CUDA call unless it is success (0 for both). */
#define TRY(call)                                   \
    do {                                            \
        const int status_ = (int)(call);            \
        if (status_ != 0) return status_;           \
    } while (0)

namespace {

typedef __nv_bfloat16 bf16;

constexpr size_t LT_WORKSPACE_BYTES = 32u << 20;  /* NVIDIA's recommended cuBLASLt workspace on Hopper */
constexpr unsigned MAX_ALIGN_BYTES = 256;         /* the alignment cuBLASLt assumes unless told otherwise */
constexpr int THREADS = 256;
constexpr float INV_SQRT2 = 0.70710678118654752f;

__global__ void gelu_erf_inplace(bf16 *c, long long n) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float z = __bfloat162float(c[i]);
    c[i] = __float2bfloat16(0.5f * z * (1.0f + erff(z * INV_SQRT2)));
}

/* The largest power of two up to MAX_ALIGN_BYTES that divides p, so that the heuristic only offers kernels that can
 * read it. */
uint32_t alignment(const void *p) {
    uint32_t a = MAX_ALIGN_BYTES;
    while ((uintptr_t)p % a != 0) a /= 2;
    return a;
}

template <class T>
cublasStatus_t set_pref(cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, T value) {
    return cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof value);
}

/* cuBLASLt objects of one call, destroyed on every way out. */
struct lt_call {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    ~lt_call() {
        if (pref) cublasLtMatmulPreferenceDestroy(pref);
        if (d) cublasLtMatrixLayoutDestroy(d);
        if (b) cublasLtMatrixLayoutDestroy(b);
        if (a) cublasLtMatrixLayoutDestroy(a);
        if (op) cublasLtMatmulDescDestroy(op);
    }
};

/* C = bf16(A @ B + bias) in row-major terms. cuBLASLt is column-major, where row-major C reads as C^T = B^T @ A^T
 * (operands swap, M and N swap), and bias[N] runs along the rows of C^T as its BIAS epilogue expects. */
int matmul_bias(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M, int N, int K,
                cudaStream_t stream) {
    static cublasLtHandle_t lt = nullptr; /* both set up by the first, untimed call */
    static void *workspace = nullptr;
    if (!lt) TRY(cublasLtCreate(&lt));
    if (!workspace) TRY(cudaMalloc(&workspace, LT_WORKSPACE_BYTES));
    lt_call c;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const cudaDataType_t bias_type = CUDA_R_16BF;
    TRY(cublasLtMatmulDescCreate(&c.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    TRY(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    TRY(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    TRY(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
    TRY(cublasLtMatrixLayoutCreate(&c.a, CUDA_R_16BF, N, K, N));
    TRY(cublasLtMatrixLayoutCreate(&c.b, CUDA_R_16BF, K, M, K));
    TRY(cublasLtMatrixLayoutCreate(&c.d, CUDA_R_16BF, N, M, N));

    TRY(cublasLtMatmulPreferenceCreate(&c.pref));
    TRY(set_pref(c.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, LT_WORKSPACE_BYTES));
    /* No split-K: the heuristic picks it for small M*N (M=65 N=33 K=100), and there the BIAS epilogue was measured
     * hundreds of bf16 half-ulps off where the bias cancels most of A @ B. The bench shape does not split K. */
    TRY(set_pref(c.pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, (uint32_t)CUBLASLT_REDUCTION_SCHEME_NONE));
    TRY(set_pref(c.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment(B)));
    TRY(set_pref(c.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment(A)));
    TRY(set_pref(c.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment(C)));
    TRY(set_pref(c.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment(C)));
    cublasLtMatmulHeuristicResult_t best;
    int found = 0;
    TRY(cublasLtMatmulAlgoGetHeuristic(lt, c.op, c.a, c.b, c.d, c.d, c.pref, 1, &best, &found));
    if (found == 0) return (int)CUBLAS_STATUS_NOT_SUPPORTED;

    const float one = 1.0f, zero = 0.0f;
    return (int)cublasLtMatmul(lt, c.op, &one, B, c.a, A, c.b, &zero, C, c.d, C, c.d, &best.algo, workspace,
                               LT_WORKSPACE_BYTES, stream);
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, const __nv_bfloat16 *bias, __nv_bfloat16 *C,
                         int M, int N, int K, cudaStream_t stream) {
    TRY(matmul_bias(A, B, bias, C, M, N, K, stream));
    const long long n = (long long)M * N;
    gelu_erf_inplace<<<(unsigned)((n + THREADS - 1) / THREADS), THREADS, 0, stream>>>(C, n);
    return (int)cudaGetLastError();
}
