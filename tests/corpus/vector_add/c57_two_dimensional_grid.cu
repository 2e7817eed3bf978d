/* kforge-corpus: task=vector_add intended=correct */
/* One element per thread on a 2-D grid (at most 65535 blocks across, as many rows of blocks as
 * needed), the way code written for the old grid limit does it; the flat index is 64-bit. */
#define THREADS 256
#define MAX_GRID_X 65535

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	size_t block = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
	size_t i = block * THREADS + threadIdx.x;
	if (i < (size_t)n)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	long blocks = ((long)n + THREADS - 1) / THREADS;
	dim3 grid(blocks < MAX_GRID_X ? (unsigned)blocks : MAX_GRID_X);
	grid.y = (unsigned)((blocks + grid.x - 1) / grid.x);
	add<<<grid, THREADS, 0, stream>>>(x, y, out, n);
	return cudaGetLastError() != cudaSuccess;
}
