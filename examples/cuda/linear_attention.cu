#include <cuda_bf16.h>

/* Causal linear attention as its recurrence, one block per head: the state S = sum_s phi(k_s) v_s^T
 * (D x D) gets one more column for the normaliser z = sum_s phi(k_s) (a value of 1 appended to v), and
 * thread (g, j) holds rows i = g, g + G, ... of column j in registers. At each position t the state is
 * updated, each thread's share of phi(q_t) . S[:, j] is summed across the G groups, and o[t, j] is
 * column j's sum divided by the normaliser's. The next position's q, k, v are loaded while this one runs. */
#define G 4    /* row groups: threads per column */
#define DMAX 128
#define ROWS (DMAX / G)

__device__ static float phi(float x)
{
	return x > 0.f ? x + 1.f : expf(x); /* elu(x) + 1 */
}

__global__ static void linear_attention(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v,
					__nv_bfloat16 *o, int L, int D)
{
	__shared__ float pq[DMAX], pk[DMAX], vv[DMAX + 1], part[G][DMAX + 1];
	const int cols = D + 1, j = threadIdx.x % cols, g = threadIdx.x / cols;
	const size_t head = (size_t)blockIdx.x * L * D;
	const bool loader = threadIdx.x < D;
	float s[ROWS];
	for (int ii = 0; ii < ROWS; ii++)
		s[ii] = 0.f;
	float nq = 0.f, nk = 0.f, nv = 0.f;
	if (loader) {
		nq = __bfloat162float(q[head + threadIdx.x]);
		nk = __bfloat162float(k[head + threadIdx.x]);
		nv = __bfloat162float(v[head + threadIdx.x]);
	}
	for (int t = 0; t < L; t++) {
		__syncthreads(); /* the previous position's pq, pk, vv and part have been read */
		if (loader) {
			pq[threadIdx.x] = phi(nq);
			pk[threadIdx.x] = phi(nk);
			vv[threadIdx.x] = nv;
			if (t + 1 < L) {
				size_t next = head + (size_t)(t + 1) * D + threadIdx.x;
				nq = __bfloat162float(q[next]);
				nk = __bfloat162float(k[next]);
				nv = __bfloat162float(v[next]);
			}
		}
		if (threadIdx.x == D)
			vv[D] = 1.f;
		__syncthreads();
		float vj = vv[j], num = 0.f;
#pragma unroll
		for (int ii = 0; ii < ROWS; ii++) {
			int i = g + G * ii;
			if (i < D) {
				s[ii] += pk[i] * vj;
				num += pq[i] * s[ii];
			}
		}
		part[g][j] = num;
		__syncthreads();
		if (g == 0 && j < D) {
			float num = 0.f, den = 0.f;
			for (int gg = 0; gg < G; gg++) {
				num += part[gg][j];
				den += part[gg][D];
			}
			o[head + (size_t)t * D + j] = __float2bfloat16(num / den);
		}
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *o,
			 int BH, int L, int D, cudaStream_t stream)
{
	if (D < 1 || D > DMAX)
		return (int)cudaErrorInvalidValue;
	linear_attention<<<BH, G * (D + 1), 0, stream>>>(q, k, v, o, L, D);
	return cudaGetLastError() != cudaSuccess;
}
