/* Example CUDA candidate for gemm_gelu_residual: 16x16 shared-memory tiles, GELU and the residual at the end. */
#define T 16

__global__ static void gemm_gelu_res(const float *x, const float *W, const float *b, float *y, int M, int K)
{
	__shared__ float xs[T][T], ws[T][T + 1];
	int m = blockIdx.y * T + threadIdx.y, n = blockIdx.x * T + threadIdx.x;
	float acc = 0;
	for (int k0 = 0; k0 < K; k0 += T) {
		int kx = k0 + threadIdx.x, wn = blockIdx.x * T + threadIdx.y;
		xs[threadIdx.y][threadIdx.x] = m < M && kx < K ? x[(size_t)m * K + kx] : 0.0f;
		ws[threadIdx.y][threadIdx.x] = wn < K && kx < K ? W[(size_t)wn * K + kx] : 0.0f;
		__syncthreads();
		for (int k = 0; k < T; k++)
			acc += xs[threadIdx.y][k] * ws[threadIdx.x][k];
		__syncthreads();
	}
	if (m < M && n < K) {
		float z = acc + b[n];
		y[(size_t)m * K + n] = x[(size_t)m * K + n] + 0.5f * z * (1.0f + erff(z * 0.70710678f));
	}
}

extern "C" int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int K, cudaStream_t stream)
{
	dim3 block(T, T), grid((K + T - 1) / T, (M + T - 1) / T);
	gemm_gelu_res<<<grid, block, 0, stream>>>(x, W, b, y, M, K);
	return cudaGetLastError() != cudaSuccess;
}
