/* kforge-corpus: task=softmax_rows intended=correct */
/* One block per row: max, then sum of exp(x - max), each reduced with warp shuffles and a
 * shared array of per-warp partials; right for any width, one column included. */
#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)

__device__ static float warp_max(float v)
{
	for (int o = WARP / 2; o > 0; o /= 2)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

__device__ static float warp_sum(float v)
{
	for (int o = WARP / 2; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

/* Every thread gets the block's reduction; part[] is reused, so the caller's reads come first. */
__device__ static float block_reduce(float v, float *part, bool is_max)
{
	int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
	v = is_max ? warp_max(v) : warp_sum(v);
	if (lane == 0)
		part[warp] = v;
	__syncthreads();
	float r = lane < WARPS ? part[lane] : (is_max ? -INFINITY : 0.f);
	r = is_max ? warp_max(r) : warp_sum(r);
	__syncthreads();
	return r;
}

__global__ static void softmax(const float *x, float *out, int cols)
{
	__shared__ float part[WARPS];
	const float *row = x + (size_t)blockIdx.x * cols;
	float *o = out + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		m = fmaxf(m, row[c]);
	m = block_reduce(m, part, true);
	float s = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s += expf(row[c] - m);
	float inv = 1.f / block_reduce(s, part, false);
	for (int c = threadIdx.x; c < cols; c += THREADS)
		o[c] = expf(row[c] - m) * inv;
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	softmax<<<rows, THREADS, 0, stream>>>(x, out, cols);
	return cudaGetLastError() != cudaSuccess;
}
