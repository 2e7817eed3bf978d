#include <cuda_bf16.h>

/* Rotate-half RoPE with one thread per rotated pair (t, h, i < P): it reads x[i] and x[i + P] of
 * its head and the table entries of its token, and writes both outputs. */
#define THREADS 256

__global__ static void rope(const __nv_bfloat16 *x, const float *cos_t, const float *sin_t, __nv_bfloat16 *out,
			    long long pairs, int H, int P)
{
	for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < pairs;
	     p += (long long)gridDim.x * blockDim.x) {
		int i = (int)(p % P);
		long long th = p / P; /* t * H + h */
		long long t = th / H;
		size_t head = (size_t)th * 2 * P;
		float a = __bfloat162float(x[head + i]), b = __bfloat162float(x[head + i + P]);
		float c = cos_t[t * P + i], s = sin_t[t * P + i];
		out[head + i] = __float2bfloat16(a * c - b * s);
		out[head + i + P] = __float2bfloat16(b * c + a * s);
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const float *cos_table, const float *sin_table, __nv_bfloat16 *out,
			 int T, int H, int P, cudaStream_t stream)
{
	long long pairs = (long long)T * H * P;
	long long blocks = (pairs + THREADS - 1) / THREADS;
	if (blocks > 65536)
		blocks = 65536;
	rope<<<(int)(blocks < 1 ? 1 : blocks), THREADS, 0, stream>>>(x, cos_table, sin_table, out, pairs, H, P);
	return cudaGetLastError() != cudaSuccess;
}
