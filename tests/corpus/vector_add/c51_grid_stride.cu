/* kforge-corpus: task=vector_add intended=correct */
/* One thread per element with a grid-stride loop and a capped grid: right for every n. */
#define THREADS 256
#define MAX_BLOCKS 4096

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	int blocks = (n + THREADS - 1) / THREADS;
	if (blocks > MAX_BLOCKS)
		blocks = MAX_BLOCKS;
	add<<<blocks, THREADS, 0, stream>>>(x, y, out, n);
	return cudaGetLastError() != cudaSuccess;
}
