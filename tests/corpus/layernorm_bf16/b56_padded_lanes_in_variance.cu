/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* Widths of 256..2048 that are a multiple of 8 keep the row in registers: one 16-byte vector per
 * thread, the block rounded up to whole warps, threads past the row holding zeros. The zeros add
 * nothing to the sum, but the variance loop does not mask them, so each padded element adds
 * mean^2. Only cols = 2000 has padding (250 vectors on 256 threads); there the excess is 48 mean^2
 * / 2000: invisible for mean 0.5 (the hidden shape passes on the task's inputs), ruinous for the
 * large-mean stress (mean 300), which the default tests never run at that width. */
#include <cuda_bf16.h>

#define THREADS 256
#define WARP 32
#define MAX_WARPS 32
#define EPS 1e-5f
#define VEC 8 /* bf16 per 16-byte load */
#define REG_MIN_COLS 256
#define REG_MAX_COLS 2048

__device__ static float block_sum(float v, float *part)
{
	for (int o = WARP / 2; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (threadIdx.x % WARP == 0)
		part[threadIdx.x / WARP] = v;
	__syncthreads();
	float r = 0;
	for (int w = 0; w < (int)blockDim.x / WARP; w++)
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

__global__ static void layernorm_regs(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				      __nv_bfloat16 *y, int cols)
{
	__shared__ float part[MAX_WARPS];
	int i = threadIdx.x;
	bool live = i < cols / VEC;
	float v[VEC] = { 0 }, s = 0, q = 0;
	if (live)
		unpack(((const uint4 *)(x + (size_t)blockIdx.x * cols))[i], v);
	for (int k = 0; k < VEC; k++)
		s += v[k];
	float mean = block_sum(s, part) / cols;
	for (int k = 0; k < VEC; k++)
		q += (v[k] - mean) * (v[k] - mean);
	float rstd = rsqrtf(block_sum(q, part) / cols + EPS);
	if (!live)
		return;
	float gv[VEC], bv[VEC];
	unpack(((const uint4 *)g)[i], gv);
	unpack(((const uint4 *)b)[i], bv);
	uint4 r;
	__nv_bfloat162 *p = (__nv_bfloat162 *)&r;
	for (int k = 0; k < VEC / 2; k++)
		p[k] = __floats2bfloat162_rn((v[2 * k] - mean) * rstd * gv[2 * k] + bv[2 * k],
					     (v[2 * k + 1] - mean) * rstd * gv[2 * k + 1] + bv[2 * k + 1]);
	((uint4 *)(y + (size_t)blockIdx.x * cols))[i] = r;
}

__global__ static void layernorm_rows(const __nv_bfloat16 *x, const __nv_bfloat16 *g, const __nv_bfloat16 *b,
				      __nv_bfloat16 *y, int cols)
{
	__shared__ float part[MAX_WARPS];
	const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
	__nv_bfloat16 *out = y + (size_t)blockIdx.x * cols;
	float s = 0, q = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s += __bfloat162float(row[c]);
	float mean = block_sum(s, part) / cols;
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		float d = __bfloat162float(row[c]) - mean;
		q += d * d;
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
	if (cols % VEC == 0 && cols >= REG_MIN_COLS && cols <= REG_MAX_COLS) {
		int threads = (cols / VEC + WARP - 1) / WARP * WARP;
		layernorm_regs<<<rows, threads, 0, stream>>>(x, gamma, beta, y, cols);
	} else {
		layernorm_rows<<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, cols);
	}
	return cudaGetLastError() != cudaSuccess;
}
