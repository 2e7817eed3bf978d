/* kforge-corpus: task=vector_add intended=correct */
/* float2 loads and stores (8-byte aligned: every tensor starts on an allocation boundary) over the
 * n / 2 pairs in a grid-stride loop; the first thread also adds the last element of an odd n. */
#define THREADS 256
#define MAX_BLOCKS 8192

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	const float2 *x2 = (const float2 *)x, *y2 = (const float2 *)y;
	float2 *o2 = (float2 *)out;
	int pairs = n / 2;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += gridDim.x * blockDim.x) {
		float2 a = x2[i], b = y2[i];
		o2[i] = make_float2(a.x + b.x, a.y + b.y);
	}
	if (n % 2 && blockIdx.x == 0 && threadIdx.x == 0)
		out[n - 1] = x[n - 1] + y[n - 1];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	int blocks = (n / 2 + THREADS - 1) / THREADS;
	if (blocks > MAX_BLOCKS)
		blocks = MAX_BLOCKS;
	if (blocks < 1)
		blocks = 1; /* n = 1: no pair, but someone must add the odd element */
	add<<<blocks, THREADS, 0, stream>>>(x, y, out, n);
	return cudaGetLastError() != cudaSuccess;
}
