/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* One pass over the row: sums of (x - K) and (x - K)^2 with the shift K = the row's first element,
 * so a large mean does not cancel; var = E[(x-K)^2] - E[x-K]^2, clamped at zero. */
#include <cuda_bf16.h>

#define THREADS 256
#define EPS 1e-5f

__global__ static void layernorm(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				 __nv_bfloat16 *y, int cols)
{
	__shared__ float s1[THREADS], s2[THREADS];
	const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
	__nv_bfloat16 *out = y + (size_t)blockIdx.x * cols;
	float k = __bfloat162float(row[0]), a = 0, q = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = __bfloat162float(row[c]) - k;
		a += d;
		q += d * d;
	}
	s1[threadIdx.x] = a;
	s2[threadIdx.x] = q;
	__syncthreads();
	for (int h = THREADS / 2; h > 0; h /= 2) {
		if (threadIdx.x < h) {
			s1[threadIdx.x] += s1[threadIdx.x + h];
			s2[threadIdx.x] += s2[threadIdx.x + h];
		}
		__syncthreads();
	}
	float m1 = s1[0] / cols, var = fmaxf(s2[0] / cols - m1 * m1, 0.f);
	float mean = k + m1, rstd = rsqrtf(var + EPS);
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = (__bfloat162float(row[c]) - mean) * rstd;
		out[c] = __float2bfloat16(d * __bfloat162float(g[c]) + __bfloat162float(b[c]));
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
			 __nv_bfloat16 *y, int rows, int cols, cudaStream_t stream)
{
	layernorm<<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
	return cudaGetLastError() != cudaSuccess;
}
