/* kforge-corpus: task=vector_add intended=correct */
/* float4 loads and stores over the first n - n % 4 elements, then the last n % 4 one by one. */
#define THREADS 256
#define MAX_BLOCKS 4096

__global__ static void add4(const float4 *x, const float4 *y, float4 *out, int n4)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
		float4 a = x[i], b = y[i];
		out[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
	}
}

__global__ static void add_tail(const float *x, const float *y, float *out, int from, int n)
{
	int i = from + threadIdx.x;
	if (i < n)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	int n4 = n / 4;
	if (n4 > 0) {
		int blocks = (n4 + THREADS - 1) / THREADS;
		if (blocks > MAX_BLOCKS)
			blocks = MAX_BLOCKS;
		add4<<<blocks, THREADS, 0, stream>>>((const float4 *)x, (const float4 *)y, (float4 *)out, n4);
	}
	if (n % 4)
		add_tail<<<1, 4, 0, stream>>>(x, y, out, n4 * 4, n);
	return cudaGetLastError() != cudaSuccess;
}
