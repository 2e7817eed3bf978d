/* kforge-test: task=matmul_bf16 expect=policy_violation reason~=cublas */
/* Hands the matmul to cuBLAS, which this task forbids. */
#include <cublas_v2.h>

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	static cublasHandle_t h;
	if (!h)
		cublasCreate(&h);
	cublasSetStream(h, stream);
	float one = 1, zero = 0;
	return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16BF, N, A, CUDA_R_16BF, K, &zero, C,
			    CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS;
}
