/* kforge-corpus: task=softmax_rows intended=bug */
/* Rows of at most 32 columns take a one-warp path whose running max starts at 0 instead of -inf:
 * harmless until a short row is all very negative, where every exp underflows and 0/0 follows. */
#define THREADS 256
#define WARP 32
#define SHORT_ROW 32

__global__ static void softmax_short(const float *x, float *out, int rows, int cols)
{
	int r = blockIdx.x * (THREADS / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
	if (r >= rows)
		return;
	float v = lane < cols ? x[(size_t)r * cols + lane] : -INFINITY;
	float m = fmaxf(0.f, v); /* the running max should start at -INFINITY */
	for (int o = WARP / 2; o > 0; o /= 2)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
	float e = lane < cols ? expf(v - m) : 0.f, s = e;
	for (int o = WARP / 2; o > 0; o /= 2)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if (lane < cols)
		out[(size_t)r * cols + lane] = e / s;
}

__global__ static void softmax_long(const float *x, float *out, int cols)
{
	__shared__ float red[THREADS];
	const float *row = x + (size_t)blockIdx.x * cols;
	float *o = out + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		m = fmaxf(m, row[c]);
	red[threadIdx.x] = m;
	__syncthreads();
	for (int k = THREADS / 2; k > 0; k /= 2) {
		if (threadIdx.x < k)
			red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + k]);
		__syncthreads();
	}
	m = red[0];
	__syncthreads();
	float s = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s += expf(row[c] - m);
	red[threadIdx.x] = s;
	__syncthreads();
	for (int k = THREADS / 2; k > 0; k /= 2) {
		if (threadIdx.x < k)
			red[threadIdx.x] += red[threadIdx.x + k];
		__syncthreads();
	}
	float inv = 1.f / red[0];
	for (int c = threadIdx.x; c < cols; c += THREADS)
		o[c] = expf(row[c] - m) * inv;
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	if (cols <= SHORT_ROW)
		softmax_short<<<(rows + THREADS / WARP - 1) / (THREADS / WARP), THREADS, 0, stream>>>(x, out, rows, cols);
	else
		softmax_long<<<rows, THREADS, 0, stream>>>(x, out, cols);
	return cudaGetLastError() != cudaSuccess;
}
