#include <cuda_bf16.h>

/* Selective scan with one thread per (batch, channel), walking the sequence: the channel's N states
 * and its row of A live in registers (fully unrolled over the largest N, inactive slots skipped), and
 * each step reads the position's u and delta of the channel and the B and C rows shared by the batch. */
#define THREADS 64
#define NMAX 64

__global__ static void __launch_bounds__(THREADS)
	selective_scan(const __nv_bfloat16 *u, const __nv_bfloat16 *delta, const float *A, const __nv_bfloat16 *Bm,
		       const __nv_bfloat16 *Cm, __nv_bfloat16 *y, int B, int L, int Dm, int N)
{
	int id = blockIdx.x * THREADS + threadIdx.x;
	if (id >= B * Dm)
		return;
	int b = id / Dm, d = id % Dm;
	float h[NMAX], a[NMAX];
#pragma unroll
	for (int n = 0; n < NMAX; n++) {
		h[n] = 0.f;
		a[n] = n < N ? A[(size_t)d * N + n] : 0.f;
	}
	for (int t = 0; t < L; t++) {
		size_t at = ((size_t)b * L + t) * Dm + d, bc = ((size_t)b * L + t) * N;
		float dt = __bfloat162float(delta[at]), du = dt * __bfloat162float(u[at]), out = 0.f;
#pragma unroll
		for (int n = 0; n < NMAX; n++)
			if (n < N) {
				h[n] = expf(dt * a[n]) * h[n] + du * __bfloat162float(Bm[bc + n]);
				out += __bfloat162float(Cm[bc + n]) * h[n];
			}
		y[at] = __float2bfloat16(out);
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *u, const __nv_bfloat16 *delta, const float *A, const __nv_bfloat16 *Bm,
			 const __nv_bfloat16 *Cm, __nv_bfloat16 *y, int B, int L, int Dm, int N, cudaStream_t stream)
{
	if (N < 1 || N > NMAX)
		return (int)cudaErrorInvalidValue;
	selective_scan<<<(B * Dm + THREADS - 1) / THREADS, THREADS, 0, stream>>>(u, delta, A, Bm, Cm, y, B, L, Dm, N);
	return cudaGetLastError() != cudaSuccess;
}
