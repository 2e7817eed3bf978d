/* kforge-corpus: task=vector_add intended=correct */
/* Each thread adds four elements a block-width apart (loads stay coalesced), every one bounds-checked. */
#define THREADS 256
#define PER_THREAD 4

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	long base = (long)blockIdx.x * THREADS * PER_THREAD + threadIdx.x;
#pragma unroll
	for (int k = 0; k < PER_THREAD; k++) {
		long i = base + (long)k * THREADS;
		if (i < n)
			out[i] = x[i] + y[i];
	}
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	int blocks = (int)(((long)n + THREADS * PER_THREAD - 1) / (THREADS * PER_THREAD));
	add<<<blocks, THREADS, 0, stream>>>(x, y, out, n);
	return cudaGetLastError() != cudaSuccess;
}
