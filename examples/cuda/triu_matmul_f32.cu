/* Example CUDA candidate for triu_matmul_f32: 32 x 32 output tiles; a tile wholly below the diagonal just writes zeros,
 * and the k loop of tile (bi, bj) only visits the slices bi..bj that can hold nonzero A[i, k] B[k, j]. Operands are
 * masked to their upper triangles as they enter shared memory. */
#define T 32

__global__ static void triu_gemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int N)
{
	__shared__ float as[T][T + 1], bs[T][T + 1];
	const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
	float acc = 0;
	if (blockIdx.x >= blockIdx.y) {
		for (int k0 = blockIdx.y * T; k0 < (blockIdx.x + 1) * T && k0 < N; k0 += T) {
			int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
			as[threadIdx.y][threadIdx.x] = row < N && ka < N && ka >= row ? A[(long long)row * N + ka] : 0.0f;
			bs[threadIdx.y][threadIdx.x] = kb < N && col < N && col >= kb ? B[(long long)kb * N + col] : 0.0f;
			__syncthreads();
			for (int k = 0; k < T; k++)
				acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
			__syncthreads();
		}
	}
	if (row < N && col < N)
		C[(long long)row * N + col] = col >= row ? acc : 0.0f;
}

extern "C" int kf_launch(const float *A, const float *B, float *C, int N, cudaStream_t stream)
{
	if (N == 0)
		return 0;
	dim3 grid((N + T - 1) / T, (N + T - 1) / T);
	triu_gemm<<<grid, dim3(T, T), 0, stream>>>(A, B, C, N);
	return cudaGetLastError() != cudaSuccess;
}
