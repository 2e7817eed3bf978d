/* Example CUDA candidate for matmul_tt_f32: 32 x 32 output tiles; both operand slices are read along their stored rows
 * (coalesced) and transposed on their way into shared memory; fp32 sums. */
#define T 32

__global__ static void gemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K)
{
	__shared__ float as[T][T + 1], bs[T][T + 1];
	const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
	float acc = 0;
	for (int k0 = 0; k0 < K; k0 += T) {
		int kr = k0 + threadIdx.y, kc = k0 + threadIdx.x;
		int am = blockIdx.y * T + threadIdx.x, bn = blockIdx.x * T + threadIdx.y;
		as[threadIdx.x][threadIdx.y] = am < M && kr < K ? A[(long long)kr * M + am] : 0.0f; /* A[kr, am] */
		bs[threadIdx.x][threadIdx.y] = bn < N && kc < K ? B[(long long)bn * K + kc] : 0.0f; /* B[bn, kc] */
		__syncthreads();
		for (int k = 0; k < T; k++)
			acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
		__syncthreads();
	}
	if (row < M && col < N)
		C[(long long)row * N + col] = acc;
}

extern "C" int kf_launch(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream)
{
	if (M == 0 || N == 0)
		return 0;
	dim3 grid((N + T - 1) / T, (M + T - 1) / T, 1);
	gemm<<<grid, dim3(T, T), 0, stream>>>(A, B, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
