/* Example CUDA candidate for leaky_relu_f16: max(x, slope x), the same for 0 <= slope <= 1; a grid-stride loop, one
 * element per thread per step, fp32 inside. */
#define THREADS 256
#define MAX_BLOCKS 8192

__global__ static void act(const __half *__restrict__ x, __half *__restrict__ y, long long n, float slope)
{
	for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS) {
		float v = __half2float(x[i]);
		y[i] = __float2half_rn(fmaxf(v, slope * v));
	}
}

extern "C" int kf_launch(const __half *x, __half *y, int N, float slope, cudaStream_t stream)
{
	if (N <= 0)
		return 0;
	long long blocks = ((long long)N + THREADS - 1) / THREADS;
	act<<<blocks < MAX_BLOCKS ? (int)blocks : MAX_BLOCKS, THREADS, 0, stream>>>(x, y, N, slope);
	return cudaGetLastError() != cudaSuccess;
}
