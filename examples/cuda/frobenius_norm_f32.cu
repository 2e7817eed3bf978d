/* Example CUDA candidate for frobenius_norm_f32: a grid-stride sum of squares per block (double), one double
 * atomicAdd per block into a zeroed accumulator, then a second kernel scales every element by its reciprocal square
 * root. The accumulator is a __device__ variable, so the 4-byte workspace goes unused. */
#define THREADS 256
#define BLOCKS 1024

__device__ static double sumsq;

__global__ static void zero(void)
{
	sumsq = 0;
}

__global__ static void squares(const float *__restrict__ x, long long n)
{
	__shared__ double part[THREADS];
	double acc = 0;
	for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
		acc += (double)x[i] * x[i];
	part[threadIdx.x] = acc;
	__syncthreads();
	for (int s = THREADS / 2; s > 0; s /= 2) {
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(&sumsq, part[0]);
}

__global__ static void scale(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	const float inv = (float)rsqrt(sumsq);
	for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
		y[i] = x[i] * inv;
}

extern "C" int kf_launch(const float *x, float *y, int B, int D, void *workspace, cudaStream_t stream)
{
	(void)workspace;
	long long n = (long long)B * D, blocks = (n + THREADS - 1) / THREADS;
	if (n == 0)
		return 0;
	int grid = blocks < BLOCKS ? (int)blocks : BLOCKS;
	zero<<<1, 1, 0, stream>>>();
	squares<<<grid, THREADS, 0, stream>>>(x, n);
	scale<<<grid, THREADS, 0, stream>>>(x, y, n);
	return cudaGetLastError() != cudaSuccess;
}
