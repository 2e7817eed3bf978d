/* kforge-corpus: task=softmax_rows intended=bug */
/* Many short rows (rows >= 32, cols <= 1024) take a warp-per-row path that reads and writes the
 * row as float4 with a scalar tail, assuming each row starts on a 16-byte boundary because the
 * tensor does. That holds when cols % 4 == 0 (the test shape 64 x 1024); at the hidden 100 x 777
 * every row but one in four starts misaligned and the kernel dies on a misaligned access. Every
 * other shape takes the block-per-row path, which is right. */
#define WARP 32
#define ROWS_PER_BLOCK 8
#define MANY_ROWS 32
#define WARP_MAX_COLS 1024
#define VEC 4
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

__global__ static void softmax_warp(const float *x, float *out, int rows, int cols)
{
	int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP, lane = threadIdx.x % WARP;
	if (r >= rows)
		return;
	const float *row = x + (size_t)r * cols;
	float *o = out + (size_t)r * cols;
	const float4 *row4 = (const float4 *)row;
	int n4 = cols / VEC;
	float m = -INFINITY;
	for (int v = lane; v < n4; v += WARP) {
		float4 q = row4[v];
		m = fmaxf(m, fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w)));
	}
	for (int c = VEC * n4 + lane; c < cols; c += WARP)
		m = fmaxf(m, row[c]);
	m = warp_max(m);
	float s = 0;
	for (int v = lane; v < n4; v += WARP) {
		float4 q = row4[v];
		s += (expf(q.x - m) + expf(q.y - m)) + (expf(q.z - m) + expf(q.w - m));
	}
	for (int c = VEC * n4 + lane; c < cols; c += WARP)
		s += expf(row[c] - m);
	float inv = 1.f / warp_sum(s);
	for (int v = lane; v < n4; v += WARP) {
		float4 q = row4[v];
		((float4 *)o)[v] = make_float4(expf(q.x - m) * inv, expf(q.y - m) * inv, expf(q.z - m) * inv,
					       expf(q.w - m) * inv);
	}
	for (int c = VEC * n4 + lane; c < cols; c += WARP)
		o[c] = expf(row[c] - m) * inv;
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

__global__ static void softmax_block(const float *x, float *out, int cols)
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
	if (rows >= MANY_ROWS && cols <= WARP_MAX_COLS)
		softmax_warp<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, ROWS_PER_BLOCK * WARP, 0, stream>>>(x, out, rows,
														       cols);
	else
		softmax_block<<<rows, THREADS, 0, stream>>>(x, out, cols);
	return cudaGetLastError() != cudaSuccess;
}
