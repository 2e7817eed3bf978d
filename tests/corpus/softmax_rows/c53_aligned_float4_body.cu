/* kforge-corpus: task=softmax_rows intended=correct */
/* One block per row, three passes (max, sum of exp, write). The max and sum passes read the row
 * as a scalar head up to the first 16-byte boundary, a float4 body and a scalar tail, so rows of
 * any width (odd ones start misaligned) are read with vector loads where they can be. */
#include <stdint.h>

#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)
#define VEC 4
#define VEC_BYTES 16

struct split {
	int head, body; /* scalars before the first aligned float4; whole float4s after them */
};

__device__ static struct split split_row(const float *row, int cols)
{
	int head = (int)((VEC_BYTES - ((uintptr_t)row % VEC_BYTES)) % VEC_BYTES / sizeof(float));
	if (head > cols)
		head = cols;
	struct split s = { head, (cols - head) / VEC };
	return s;
}

/* Every thread gets the block's max (is_max) or sum; part[] is free again when it returns. */
__device__ static float block_reduce(float v, float *part, bool is_max)
{
	for (int o = WARP / 2; o > 0; o /= 2) {
		float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	if (threadIdx.x % WARP == 0)
		part[threadIdx.x / WARP] = v;
	__syncthreads();
	v = part[0];
	for (int w = 1; w < WARPS; w++)
		v = is_max ? fmaxf(v, part[w]) : v + part[w];
	__syncthreads();
	return v;
}

__global__ static void softmax(const float *x, float *out, int cols)
{
	__shared__ float part[WARPS];
	const float *row = x + (size_t)blockIdx.x * cols;
	float *o = out + (size_t)blockIdx.x * cols;
	struct split s = split_row(row, cols);
	const float4 *body = (const float4 *)(row + s.head);
	int tail = s.head + VEC * s.body;
	float m = -INFINITY;
	for (int c = threadIdx.x; c < s.head; c += THREADS)
		m = fmaxf(m, row[c]);
	for (int v = threadIdx.x; v < s.body; v += THREADS) {
		float4 q = body[v];
		m = fmaxf(m, fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w)));
	}
	for (int c = tail + threadIdx.x; c < cols; c += THREADS)
		m = fmaxf(m, row[c]);
	m = block_reduce(m, part, true);
	float sum = 0;
	for (int c = threadIdx.x; c < s.head; c += THREADS)
		sum += expf(row[c] - m);
	for (int v = threadIdx.x; v < s.body; v += THREADS) {
		float4 q = body[v];
		sum += (expf(q.x - m) + expf(q.y - m)) + (expf(q.z - m) + expf(q.w - m));
	}
	for (int c = tail + threadIdx.x; c < cols; c += THREADS)
		sum += expf(row[c] - m);
	float inv = 1.f / block_reduce(sum, part, false);
	for (int c = threadIdx.x; c < cols; c += THREADS)
		o[c] = expf(row[c] - m) * inv;
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	softmax<<<rows, THREADS, 0, stream>>>(x, out, cols);
	return cudaGetLastError() != cudaSuccess;
}
