/* kforge-corpus: task=softmax_rows intended=correct */
/* Rows of up to 1024 columns: one warp per row, eight rows per block, the row held in registers
 * (at most 32 values a lane), so it is read once; max and sum by shuffles. Wider rows: one block
 * per row, two passes over global memory with a shared-memory reduction. */
#define WARP 32
#define ROWS_PER_BLOCK 8
#define PER_LANE 32
#define REG_MAX_COLS (WARP * PER_LANE)
#define THREADS 256
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

__global__ static void softmax_regs(const float *x, float *out, int rows, int cols)
{
	int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP, lane = threadIdx.x % WARP;
	if (r >= rows)
		return; /* a whole warp leaves together: no shuffle is left waiting */
	const float *row = x + (size_t)r * cols;
	float *o = out + (size_t)r * cols;
	float v[PER_LANE];
	float m = -INFINITY;
#pragma unroll
	for (int k = 0; k < PER_LANE; k++) {
		int c = k * WARP + lane;
		v[k] = c < cols ? row[c] : -INFINITY;
		m = fmaxf(m, v[k]);
	}
	m = warp_max(m);
	float s = 0;
#pragma unroll
	for (int k = 0; k < PER_LANE; k++) {
		v[k] = k * WARP + lane < cols ? expf(v[k] - m) : 0.f;
		s += v[k];
	}
	float inv = 1.f / warp_sum(s);
#pragma unroll
	for (int k = 0; k < PER_LANE; k++) {
		int c = k * WARP + lane;
		if (c < cols)
			o[c] = v[k] * inv;
	}
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

__global__ static void softmax_wide(const float *x, float *out, int cols)
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
	if (cols <= REG_MAX_COLS)
		softmax_regs<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, ROWS_PER_BLOCK * WARP, 0, stream>>>(x, out,
														      rows, cols);
	else
		softmax_wide<<<rows, THREADS, 0, stream>>>(x, out, cols);
	return cudaGetLastError() != cudaSuccess;
}
