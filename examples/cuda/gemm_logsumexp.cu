/* Example CUDA candidate for gemm_logsumexp: one 128-thread block per row; each thread an online log-sum-exp over its
 * strided outputs, merged through shared memory. */
#define THREADS 128

__global__ static void gemm_lse(const float *x, const float *W, const float *b, float *y, int N, int K)
{
	__shared__ float smax[THREADS], ssum[THREADS];
	int m = blockIdx.x;
	float mx = -INFINITY, sum = 0;
	for (int n = threadIdx.x; n < N; n += THREADS) {
		float z = b[n];
		for (int k = 0; k < K; k++)
			z += x[(size_t)m * K + k] * W[(size_t)n * K + k];
		float nm = fmaxf(mx, z);
		sum = sum * expf(mx - nm) + expf(z - nm);
		mx = nm;
	}
	smax[threadIdx.x] = mx;
	ssum[threadIdx.x] = sum;
	__syncthreads();
	for (int half = THREADS / 2; half > 0; half /= 2) {
		if (threadIdx.x < half) {
			float a = smax[threadIdx.x], c = smax[threadIdx.x + half], nm = fmaxf(a, c);
			if (nm != -INFINITY)
				ssum[threadIdx.x] = ssum[threadIdx.x] * expf(a - nm) + ssum[threadIdx.x + half] * expf(c - nm);
			smax[threadIdx.x] = nm;
		}
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[m] = smax[0] + logf(ssum[0]);
}

extern "C" int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K,
			 cudaStream_t stream)
{
	if (M > 0)
		gemm_lse<<<M, THREADS, 0, stream>>>(x, W, b, y, N, K);
	return cudaGetLastError() != cudaSuccess;
}
