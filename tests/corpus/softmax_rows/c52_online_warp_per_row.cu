/* kforge-corpus: task=softmax_rows intended=correct */
/* One warp per row with the online (running max, rescaled sum) formulation, merged across lanes
 * with shuffles; lanes that saw no column carry (-inf, 0) and merge as identities. */
#define WARP 32
#define ROWS_PER_BLOCK 8

__device__ static void merge(float *m, float *s, float m2, float s2)
{
	float mx = fmaxf(*m, m2);
	if (mx == -INFINITY)
		return;
	*s = *s * expf(*m - mx) + s2 * expf(m2 - mx);
	*m = mx;
}

__global__ static void softmax(const float *x, float *out, int rows, int cols)
{
	int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP, lane = threadIdx.x % WARP;
	if (r >= rows)
		return;
	const float *row = x + (size_t)r * cols;
	float *o = out + (size_t)r * cols;
	float m = -INFINITY, s = 0;
	for (int c = lane; c < cols; c += WARP)
		merge(&m, &s, row[c], 1.f);
	for (int d = WARP / 2; d > 0; d /= 2) {
		float m2 = __shfl_xor_sync(0xffffffffu, m, d), s2 = __shfl_xor_sync(0xffffffffu, s, d);
		merge(&m, &s, m2, s2);
	}
	float inv = 1.f / s;
	for (int c = lane; c < cols; c += WARP)
		o[c] = expf(row[c] - m) * inv;
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	int blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
	softmax<<<blocks, ROWS_PER_BLOCK * WARP, 0, stream>>>(x, out, rows, cols);
	return cudaGetLastError() != cudaSuccess;
}
