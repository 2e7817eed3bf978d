/* kforge-corpus: task=softmax_rows intended=bug */
/* Rows wider than 4096 skip the max pass to save a read of the row: the shift is the max of the
 * first 32 columns, "any shift works, softmax is shift-invariant". So it is, until some column
 * exceeds that shift by more than ~88 and exp overflows: never for N(0, 1) inputs (the ragged
 * 5 x 5003 and the benchmark rows pass), nearly always for the large-magnitude stress (std 100),
 * which the default tests apply only to the test shapes, all 4096 wide or less. */
#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)
#define WIDE 4096

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

__device__ static float block_reduce(float v, float *part, bool is_max)
{
	v = is_max ? warp_max(v) : warp_sum(v);
	if (threadIdx.x % WARP == 0)
		part[threadIdx.x / WARP] = v;
	__syncthreads();
	float r = threadIdx.x % WARP < WARPS ? part[threadIdx.x % WARP] : (is_max ? -INFINITY : 0.f);
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
	if (cols > WIDE) {
		/* every warp reads the same first 32 columns: one coalesced load, no barrier */
		m = warp_max(row[threadIdx.x % WARP]);
	} else {
		for (int c = threadIdx.x; c < cols; c += THREADS)
			m = fmaxf(m, row[c]);
		m = block_reduce(m, part, true);
	}
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
