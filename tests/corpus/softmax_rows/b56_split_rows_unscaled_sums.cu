/* kforge-corpus: task=softmax_rows intended=bug */
/* Few rows of an even width over 1024 (rows < 64) would leave most of the GPU idle at one block per
 * row, so each row is split between two blocks: each half writes its max and its sum of exp(x -
 * half max) to a workspace, and a second kernel combines them. The combination takes the larger
 * max but adds the two sums as they are, without rescaling the other half's sum by exp(its max -
 * the row max): every row comes out wrong. Only the hidden 32 x 2048 takes the split path; the
 * test, ragged and benchmark shapes all go one block per row, which is right. */
#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)
#define HALVES 2
#define SPLIT_MAX_ROWS 64
#define SPLIT_MIN_COLS 1024

static float2 *workspace; /* (max, sum) per half row, allocated by kf_init */

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

/* Max and sum of exp(x - max) over n values; every thread gets both. */
__device__ static float2 stats(const float *v, int n, float *part)
{
	float m = -INFINITY;
	for (int c = threadIdx.x; c < n; c += THREADS)
		m = fmaxf(m, v[c]);
	m = block_reduce(m, part, true);
	float s = 0;
	for (int c = threadIdx.x; c < n; c += THREADS)
		s += expf(v[c] - m);
	return make_float2(m, block_reduce(s, part, false));
}

__global__ static void half_stats(const float *x, float2 *halves, int cols)
{
	__shared__ float part[WARPS];
	int half = cols / HALVES;
	float2 st = stats(x + (size_t)blockIdx.y * cols + blockIdx.x * half, half, part);
	if (threadIdx.x == 0)
		halves[blockIdx.y * HALVES + blockIdx.x] = st;
}

__global__ static void half_write(const float *x, const float2 *halves, float *out, int cols)
{
	int half = cols / HALVES;
	size_t at = (size_t)blockIdx.y * cols + blockIdx.x * half;
	float2 a = halves[blockIdx.y * HALVES], b = halves[blockIdx.y * HALVES + 1];
	float m = fmaxf(a.x, b.x), inv = 1.f / (a.y + b.y);
	for (int c = threadIdx.x; c < half; c += THREADS)
		out[at + c] = expf(x[at + c] - m) * inv;
}

__global__ static void softmax(const float *x, float *out, int cols)
{
	__shared__ float part[WARPS];
	const float *row = x + (size_t)blockIdx.x * cols;
	float *o = out + (size_t)blockIdx.x * cols;
	float2 st = stats(row, cols, part);
	float inv = 1.f / st.y;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		o[c] = expf(row[c] - st.x) * inv;
}

extern "C" int kf_init(void)
{
	return cudaMalloc(&workspace, sizeof *workspace * SPLIT_MAX_ROWS * HALVES) != cudaSuccess;
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	if (rows < SPLIT_MAX_ROWS && cols > SPLIT_MIN_COLS && cols % HALVES == 0) {
		dim3 grid(HALVES, rows);
		half_stats<<<grid, THREADS, 0, stream>>>(x, workspace, cols);
		half_write<<<grid, THREADS, 0, stream>>>(x, workspace, out, cols);
	} else {
		softmax<<<rows, THREADS, 0, stream>>>(x, out, cols);
	}
	return cudaGetLastError() != cudaSuccess;
}
