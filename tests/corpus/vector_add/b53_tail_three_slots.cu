/* kforge-corpus: task=vector_add intended=bug */
/* Whole 1024-element chunks go through float4 with no checks; the remainder goes to one block
 * whose threads take three elements each, as if it were under 3 x 256. A remainder is up to 1023:
 * over 768 its last elements are never written. Every test, ragged and benchmark length leaves a
 * remainder of at most 675 (n = 100003); the hidden n = 77777 leaves 977. */
#define THREADS 256
#define CHUNK (THREADS * 4)
#define TAIL_PER_THREAD 3

__global__ static void add_chunks(const float4 *x, const float4 *y, float4 *out)
{
	size_t v = (size_t)blockIdx.x * THREADS + threadIdx.x;
	float4 a = x[v], b = y[v];
	out[v] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

__global__ static void add_tail(const float *x, const float *y, float *out, int from, int n)
{
#pragma unroll
	for (int k = 0; k < TAIL_PER_THREAD; k++) {
		int i = from + k * THREADS + threadIdx.x;
		if (i < n)
			out[i] = x[i] + y[i];
	}
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	int chunks = n / CHUNK;
	if (chunks)
		add_chunks<<<chunks, THREADS, 0, stream>>>((const float4 *)x, (const float4 *)y, (float4 *)out);
	if (n % CHUNK)
		add_tail<<<1, THREADS, 0, stream>>>(x, y, out, chunks * CHUNK, n);
	return cudaGetLastError() != cudaSuccess;
}
