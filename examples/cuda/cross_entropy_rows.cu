#include <cuda_bf16.h>

/* Per-row cross-entropy, one block per row: every thread keeps an online (running max, rescaled sum
 * of exponentials) pair over its strided slice of the logits, the pairs are merged across the block,
 * and thread 0 writes max + log(sum) - logits[target]. */
#define THREADS 256
#define WARP 32

__device__ static void merge(float &m, float &s, float m2, float s2)
{
	float mx = fmaxf(m, m2);
	if (mx == -INFINITY)
		return;
	s = s * expf(m - mx) + s2 * expf(m2 - mx);
	m = mx;
}

__global__ static void cross_entropy(const __nv_bfloat16 *logits, const int *targets, float *loss, int classes)
{
	__shared__ float ms[THREADS / WARP], ss[THREADS / WARP];
	const __nv_bfloat16 *r = logits + (size_t)blockIdx.x * classes;
	float m = -INFINITY, s = 0.f;
	for (int c = threadIdx.x; c < classes; c += THREADS)
		merge(m, s, __bfloat162float(r[c]), 1.f);
	for (int off = WARP / 2; off > 0; off /= 2)
		merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
	if (threadIdx.x % WARP == 0) {
		ms[threadIdx.x / WARP] = m;
		ss[threadIdx.x / WARP] = s;
	}
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	for (int w = 1; w < THREADS / WARP; w++)
		merge(m, s, ms[w], ss[w]);
	/* (max - target) + log(sum): the difference first, so a large max does not round the loss away. */
	loss[blockIdx.x] = (m - __bfloat162float(r[targets[blockIdx.x]])) + logf(s);
}

extern "C" int kf_launch(const __nv_bfloat16 *logits, const int *targets, float *loss, int rows, int classes,
			 cudaStream_t stream)
{
	cross_entropy<<<rows, THREADS, 0, stream>>>(logits, targets, loss, classes);
	return cudaGetLastError() != cudaSuccess;
}
