/* Example CUDA candidate for int8_gemm_rowcol: one thread per output, exact int32 dot product with __dp4a over four
 * K values at a time where K allows, then both scales. Correct for any shape; not fast. */

__global__ static void int8_gemm(const signed char *A, const signed char *B, const float *sa, const float *sb,
                                 __nv_bfloat16 *C, int M, int N, int K)
{
	int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
	if (n >= N)
		return;
	const signed char *a = A + (size_t)m * K, *b = B + (size_t)n * K;
	int acc = 0, k = 0;
	if (K % 4 == 0)
		for (; k < K; k += 4)
			acc = __dp4a(*(const int *)(a + k), *(const int *)(b + k), acc);
	for (; k < K; k++)
		acc += a[k] * b[k];
	C[(size_t)m * N + n] = __float2bfloat16((float)acc * sa[m] * sb[n]);
}

extern "C" int kf_launch(const signed char *A, const signed char *B, const float *sa, const float *sb, __nv_bfloat16 *C,
			 int M, int N, int K, cudaStream_t stream)
{
	dim3 grid((N + 127) / 128, M);
	int8_gemm<<<grid, 128, 0, stream>>>(A, B, sa, sb, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
