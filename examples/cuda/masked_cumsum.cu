/* Masked cumsum along rows: a block per row takes CHUNK values at a time, ITEMS consecutive ones per thread
 * (a serial scan each), a shared-memory scan of the threads' totals, and a running carry between chunks. */
#define THREADS 256
#define ITEMS 4
#define CHUNK (THREADS * ITEMS)

__global__ static void masked_cumsum(const float *x, const bool *mask, float *out, int N)
{
	__shared__ float tot[THREADS];
	size_t base = (size_t)blockIdx.x * N;
	float carry = 0;
	for (int c0 = 0; c0 < N; c0 += CHUNK) {
		float v[ITEMS], run = 0;
		for (int k = 0; k < ITEMS; k++) {
			int i = c0 + threadIdx.x * ITEMS + k;
			run += i < N && mask[base + i] ? x[base + i] : 0.0f;
			v[k] = run;
		}
		tot[threadIdx.x] = run;
		__syncthreads();
		for (int off = 1; off < THREADS; off *= 2) { /* Hillis-Steele, inclusive */
			float add = threadIdx.x >= off ? tot[threadIdx.x - off] : 0.0f;
			__syncthreads();
			tot[threadIdx.x] += add;
			__syncthreads();
		}
		float before = carry + (threadIdx.x ? tot[threadIdx.x - 1] : 0.0f);
		for (int k = 0; k < ITEMS; k++) {
			int i = c0 + threadIdx.x * ITEMS + k;
			if (i < N)
				out[base + i] = before + v[k];
		}
		carry += tot[THREADS - 1];
		__syncthreads();
	}
}

extern "C" int kf_launch(const float *x, const bool *mask, float *out, int B, int N, cudaStream_t stream)
{
	masked_cumsum<<<B, THREADS, 0, stream>>>(x, mask, out, N);
	return cudaGetLastError() != cudaSuccess;
}
