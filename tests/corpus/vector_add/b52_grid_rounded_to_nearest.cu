/* kforge-corpus: task=vector_add intended=bug */
/* The grid is n / 256 rounded to the nearest block (at least one) instead of up: a last partial
 * block of fewer than 64 elements is never launched (n = 4097 loses its last element). */
#define THREADS 256
#define ROUND_BIAS 192

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	int i = blockIdx.x * THREADS + threadIdx.x;
	if (i < n)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	int blocks = (n + ROUND_BIAS) / THREADS;
	if (blocks < 1)
		blocks = 1;
	add<<<blocks, THREADS, 0, stream>>>(x, y, out, n);
	return cudaGetLastError() != cudaSuccess;
}
