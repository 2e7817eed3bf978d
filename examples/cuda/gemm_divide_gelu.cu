/* Example CUDA candidate for gemm_divide_gelu: 16x16 shared-memory tiles, then the division and GELU. */
#define T 16

__global__ static void gemm_div_gelu(const float *x, const float *W, const float *b, float *y, int M, int N, int K,
				     float divisor)
{
	__shared__ float xs[T][T], ws[T][T + 1];
	int m = blockIdx.y * T + threadIdx.y, n = blockIdx.x * T + threadIdx.x;
	float acc = 0;
	for (int k0 = 0; k0 < K; k0 += T) {
		int k = k0 + threadIdx.x, wn = blockIdx.x * T + threadIdx.y;
		xs[threadIdx.y][threadIdx.x] = m < M && k < K ? x[(size_t)m * K + k] : 0.0f;
		ws[threadIdx.y][threadIdx.x] = wn < N && k < K ? W[(size_t)wn * K + k] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < T; kk++)
			acc += xs[threadIdx.y][kk] * ws[threadIdx.x][kk];
		__syncthreads();
	}
	if (m < M && n < N) {
		float z = (acc + b[n]) / divisor;
		y[(size_t)m * N + n] = 0.5f * z * (1.0f + erff(z * 0.70710678f));
	}
}

extern "C" int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K, float divisor,
			 cudaStream_t stream)
{
	dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
	gemm_div_gelu<<<grid, block, 0, stream>>>(x, W, b, y, M, N, K, divisor);
	return cudaGetLastError() != cudaSuccess;
}
