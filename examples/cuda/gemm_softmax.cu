/* Example CUDA candidate for gemm_softmax: one thread per output writes the linear layer into y; then one 128-thread
 * block per row finds the max and the sum through shared memory and normalises in place. */
#define THREADS 128

__global__ static void linear(const float *x, const float *W, const float *b, float *y, int N, int K)
{
	int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
	if (n >= N)
		return;
	float z = b[n];
	for (int k = 0; k < K; k++)
		z += x[(size_t)m * K + k] * W[(size_t)n * K + k];
	y[(size_t)m * N + n] = z;
}

__global__ static void row_softmax(float *y, int N)
{
	__shared__ float red[THREADS];
	float *row = y + (size_t)blockIdx.x * N, mx = -INFINITY, sum = 0;
	for (int n = threadIdx.x; n < N; n += THREADS)
		mx = fmaxf(mx, row[n]);
	red[threadIdx.x] = mx;
	__syncthreads();
	for (int half = THREADS / 2; half > 0; half /= 2) {
		if (threadIdx.x < half)
			red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + half]);
		__syncthreads();
	}
	mx = red[0];
	__syncthreads();
	for (int n = threadIdx.x; n < N; n += THREADS)
		sum += expf(row[n] - mx);
	red[threadIdx.x] = sum;
	__syncthreads();
	for (int half = THREADS / 2; half > 0; half /= 2) {
		if (threadIdx.x < half)
			red[threadIdx.x] += red[threadIdx.x + half];
		__syncthreads();
	}
	float inv = 1.0f / red[0];
	for (int n = threadIdx.x; n < N; n += THREADS)
		row[n] = expf(row[n] - mx) * inv;
}

extern "C" int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K,
			 cudaStream_t stream)
{
	if (M <= 0)
		return 0;
	dim3 grid((N + 127) / 128, M);
	linear<<<grid, 128, 0, stream>>>(x, W, b, y, N, K);
	row_softmax<<<M, THREADS, 0, stream>>>(y, N);
	return cudaGetLastError() != cudaSuccess;
}
