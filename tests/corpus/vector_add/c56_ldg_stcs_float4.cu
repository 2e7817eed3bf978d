/* kforge-corpus: task=vector_add intended=correct */
/* float4 through the read-only cache (__ldg) with streaming stores (__stcs), grid-stride over
 * n / 4 + 1 slots: the one past the last whole vector adds the 0-3 leftover elements. */
#define THREADS 256
#define MAX_BLOCKS 4096

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	int n4 = n / 4;
	for (int v = blockIdx.x * blockDim.x + threadIdx.x; v <= n4; v += gridDim.x * blockDim.x) {
		if (v < n4) {
			float4 a = __ldg((const float4 *)x + v), b = __ldg((const float4 *)y + v);
			__stcs((float4 *)out + v, make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w));
		} else {
			for (int i = 4 * n4; i < n; i++)
				out[i] = x[i] + y[i];
		}
	}
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	int blocks = (n / 4 + 1 + THREADS - 1) / THREADS;
	if (blocks > MAX_BLOCKS)
		blocks = MAX_BLOCKS;
	add<<<blocks, THREADS, 0, stream>>>(x, y, out, n);
	return cudaGetLastError() != cudaSuccess;
}
