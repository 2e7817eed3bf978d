/* kforge-corpus: task=vector_add intended=bug */
/* Long vectors (n > 4096) go four at a time; the 1-3 leftovers are a float2 pair when there are
 * two or more, then a single element, but the single one is added only when the remainder is 3
 * (it should be whenever the remainder is odd): a remainder of 1 leaves the last element unwritten.
 * The test and benchmark lengths have no remainder and the long ragged one (100003) has 3; the
 * hidden 4097 and 77777 have 1. Short vectors take a plain kernel. */
#define THREADS 256
#define MAX_BLOCKS 4096
#define SHORT_N 4096

__global__ static void add_plain(const float *x, const float *y, float *out, int n)
{
	int i = blockIdx.x * THREADS + threadIdx.x;
	if (i < n)
		out[i] = x[i] + y[i];
}

__global__ static void add_vec4(const float4 *x, const float4 *y, float4 *out, int n4)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
		float4 a = x[i], b = y[i];
		out[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
	}
}

__global__ static void add_rest(const float *x, const float *y, float *out, int from, int rest)
{
	if (rest >= 2) {
		float2 a = *(const float2 *)(x + from), b = *(const float2 *)(y + from);
		*(float2 *)(out + from) = make_float2(a.x + b.x, a.y + b.y);
	}
	if (rest == 3)
		out[from + 2] = x[from + 2] + y[from + 2];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	if (n <= SHORT_N) {
		add_plain<<<(n + THREADS - 1) / THREADS, THREADS, 0, stream>>>(x, y, out, n);
		return cudaGetLastError() != cudaSuccess;
	}
	int n4 = n / 4, blocks = (n4 + THREADS - 1) / THREADS;
	if (blocks > MAX_BLOCKS)
		blocks = MAX_BLOCKS;
	add_vec4<<<blocks, THREADS, 0, stream>>>((const float4 *)x, (const float4 *)y, (float4 *)out, n4);
	if (n % 4)
		add_rest<<<1, 1, 0, stream>>>(x, y, out, 4 * n4, n % 4);
	return cudaGetLastError() != cudaSuccess;
}
