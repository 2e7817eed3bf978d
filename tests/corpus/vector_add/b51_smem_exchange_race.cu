/* kforge-corpus: task=vector_add intended=bug */
/* Sums are staged in shared memory and each warp writes out its neighbour warp's slots, with no
 * __syncthreads() between the two: right only when the neighbour warp happened to run first. */
#define THREADS 256
#define WARP 32

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	__shared__ float stage[THREADS];
	int base = blockIdx.x * THREADS;
	int i = base + threadIdx.x;
	stage[threadIdx.x] = i < n ? x[i] + y[i] : 0.f;
	int j = (threadIdx.x + WARP) % THREADS; /* the same lane of the next warp */
	if (base + j < n)
		out[base + j] = stage[j];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	add<<<(n + THREADS - 1) / THREADS, THREADS, 0, stream>>>(x, y, out, n);
	return cudaGetLastError() != cudaSuccess;
}
