/* Example CUDA candidate for tensor4d_matmul_bf16: the leading three axes folded into rows ([B*I*J, L] x [L, K]);
 * 32 x 32 output tiles with 32-deep operand slices widened to fp32 in shared memory. */
#define T 32

__global__ static void gemm(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ W,
			    __nv_bfloat16 *__restrict__ C, int M, int N, int K)
{
	__shared__ float as[T][T + 1], bs[T][T + 1];
	const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
	float acc = 0;
	for (int k0 = 0; k0 < K; k0 += T) {
		int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
		as[threadIdx.y][threadIdx.x] = row < M && ka < K ? __bfloat162float(A[(long long)row * K + ka]) : 0.0f;
		bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? __bfloat162float(W[(long long)kb * N + col]) : 0.0f;
		__syncthreads();
		for (int k = 0; k < T; k++)
			acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
		__syncthreads();
	}
	if (row < M && col < N)
		C[(long long)row * N + col] = __float2bfloat16_rn(acc);
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *W, __nv_bfloat16 *C, int B, int I, int J, int L,
			 int K, cudaStream_t stream)
{
	int rows = B * I * J;
	if (rows == 0 || K == 0)
		return 0;
	dim3 grid((K + T - 1) / T, (rows + T - 1) / T, 1);
	gemm<<<grid, dim3(T, T), 0, stream>>>(A, W, C, rows, K, L);
	return cudaGetLastError() != cudaSuccess;
}
