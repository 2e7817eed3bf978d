/* kforge-corpus: task=vector_add intended=correct */
/* Each block owns 2048 consecutive elements, eight per thread a block-width apart (coalesced).
 * Whole chunks load all eight before storing, without bounds checks; only the last, partial
 * chunk checks each index. */
#define THREADS 256
#define PER_THREAD 8
#define CHUNK (THREADS * PER_THREAD)

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	size_t first = (size_t)blockIdx.x * CHUNK, base = first + threadIdx.x;
	if (first + CHUNK <= (size_t)n) {
		float s[PER_THREAD];
#pragma unroll
		for (int k = 0; k < PER_THREAD; k++)
			s[k] = x[base + k * THREADS] + y[base + k * THREADS];
#pragma unroll
		for (int k = 0; k < PER_THREAD; k++)
			out[base + k * THREADS] = s[k];
		return;
	}
	for (int k = 0; k < PER_THREAD; k++) {
		size_t i = base + k * THREADS;
		if (i < (size_t)n)
			out[i] = x[i] + y[i];
	}
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	int blocks = (int)(((size_t)n + CHUNK - 1) / CHUNK);
	add<<<blocks, THREADS, 0, stream>>>(x, y, out, n);
	return cudaGetLastError() != cudaSuccess;
}
