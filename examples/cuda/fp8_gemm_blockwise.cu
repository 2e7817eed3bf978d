/* Example CUDA candidate for fp8_gemm_blockwise: one thread per output, one partial sum per 128-wide K group scaled by
 * both groups' scales. Correct for any shape; not fast. */
#define GROUP 128

__global__ static void fp8_block_gemm(const __nv_fp8_e4m3 *A, const __nv_fp8_e4m3 *B, const float *sa, const float *sb,
				      __nv_bfloat16 *C, int M, int N, int K)
{
	int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y, groups = K / GROUP;
	if (n >= N)
		return;
	float total = 0;
	for (int g = 0; g < groups; g++) {
		float part = 0;
		for (int k = g * GROUP; k < (g + 1) * GROUP; k++)
			part += (float)A[(size_t)m * K + k] * (float)B[(size_t)n * K + k];
		total += part * sa[(size_t)m * groups + g] * sb[(size_t)(n / GROUP) * groups + g];
	}
	C[(size_t)m * N + n] = __float2bfloat16(total);
}

extern "C" int kf_launch(const __nv_fp8_e4m3 *A, const __nv_fp8_e4m3 *B, const float *sa, const float *sb,
			 __nv_bfloat16 *C, int M, int N, int K, cudaStream_t stream)
{
	dim3 grid((N + 127) / 128, M);
	fp8_block_gemm<<<grid, 128, 0, stream>>>(A, B, sa, sb, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
