/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* Widths that are a multiple of 8 take a 16-byte vector path (two-pass, fp32, right). Other widths
 * take a fallback that squares the deviations as packed half2 for throughput, "deviations are a
 * few units". fp16 tops out at 65504, so a deviation over 256 makes its square infinite, the
 * variance infinite and the row collapses to beta. N(0.5, 2) rows never come close; the
 * large-magnitude stress (std 1000) overflows on every row, but the default tests stress only the
 * test shapes (64, 1024, 4096 wide: all on the vector path). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)
#define EPS 1e-5f
#define VEC 8 /* bf16 per 16-byte load */

__device__ static float block_sum(float v, float *part)
{
	for (int o = WARP / 2; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (threadIdx.x % WARP == 0)
		part[threadIdx.x / WARP] = v;
	__syncthreads();
	float r = 0;
	for (int w = 0; w < WARPS; w++)
		r += part[w];
	__syncthreads();
	return r;
}

__device__ static void unpack(uint4 u, float *f)
{
	const __nv_bfloat162 *p = (const __nv_bfloat162 *)&u;
	for (int k = 0; k < VEC / 2; k++) {
		float2 t = __bfloat1622float2(p[k]);
		f[2 * k] = t.x;
		f[2 * k + 1] = t.y;
	}
}

__global__ static void layernorm_vec(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				     __nv_bfloat16 *y, int cols)
{
	__shared__ float part[WARPS];
	const uint4 *row = (const uint4 *)(x + (size_t)blockIdx.x * cols);
	uint4 *out = (uint4 *)(y + (size_t)blockIdx.x * cols);
	int n = cols / VEC;
	float v[VEC], s = 0, q = 0;
	for (int i = threadIdx.x; i < n; i += THREADS) {
		unpack(row[i], v);
		for (int k = 0; k < VEC; k++)
			s += v[k];
	}
	float mean = block_sum(s, part) / cols;
	for (int i = threadIdx.x; i < n; i += THREADS) {
		unpack(row[i], v);
		for (int k = 0; k < VEC; k++)
			q += (v[k] - mean) * (v[k] - mean);
	}
	float rstd = rsqrtf(block_sum(q, part) / cols + EPS);
	for (int i = threadIdx.x; i < n; i += THREADS) {
		float gv[VEC], bv[VEC];
		unpack(row[i], v);
		unpack(((const uint4 *)g)[i], gv);
		unpack(((const uint4 *)b)[i], bv);
		uint4 r;
		__nv_bfloat162 *p = (__nv_bfloat162 *)&r;
		for (int k = 0; k < VEC / 2; k++)
			p[k] = __floats2bfloat162_rn((v[2 * k] - mean) * rstd * gv[2 * k] + bv[2 * k],
						     (v[2 * k + 1] - mean) * rstd * gv[2 * k + 1] + bv[2 * k + 1]);
		out[i] = r;
	}
}

__global__ static void layernorm_any(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				     __nv_bfloat16 *y, int cols)
{
	__shared__ float part[WARPS];
	const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
	__nv_bfloat16 *out = y + (size_t)blockIdx.x * cols;
	float s = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s += __bfloat162float(row[c]);
	float mean = block_sum(s, part) / cols, q = 0;
	for (int c = 2 * threadIdx.x; c < cols; c += 2 * THREADS) {
		float d0 = __bfloat162float(row[c]) - mean;
		float d1 = c + 1 < cols ? __bfloat162float(row[c + 1]) - mean : 0.f;
		__half2 d = __floats2half2_rn(d0, d1), sq = __hmul2(d, d);
		q += __low2float(sq) + __high2float(sq);
	}
	float rstd = rsqrtf(block_sum(q, part) / cols + EPS);
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = (__bfloat162float(row[c]) - mean) * rstd;
		out[c] = __float2bfloat16(d * __bfloat162float(g[c]) + __bfloat162float(b[c]));
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
			 __nv_bfloat16 *y, int rows, int cols, cudaStream_t stream)
{
	if (cols % VEC == 0)
		layernorm_vec<<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
	else
		layernorm_any<<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
	return cudaGetLastError() != cudaSuccess;
}
