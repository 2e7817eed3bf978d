/* kforge-corpus: task=softmax_rows intended=correct */
/* One block per row, one read for the statistics: each thread keeps a running max and a sum
 * rescaled whenever the max grows (online softmax); the (max, sum) pairs merge across the warp
 * with shuffles and across warps in shared memory, then a second pass writes the row. Threads
 * that saw no column hold (-inf, 0) and merge as identities. */
#define THREADS 256
#define WARP 32
#define WARPS (THREADS / WARP)

struct running {
	float m, s;
};

__device__ static struct running merge(struct running a, struct running b)
{
	float m = fmaxf(a.m, b.m);
	if (m == -INFINITY)
		return a;
	struct running r = { m, a.s * expf(a.m - m) + b.s * expf(b.m - m) };
	return r;
}

__global__ static void softmax(const float *x, float *out, int cols)
{
	__shared__ struct running part[WARPS];
	const float *row = x + (size_t)blockIdx.x * cols;
	float *o = out + (size_t)blockIdx.x * cols;
	struct running t = { -INFINITY, 0.f };
	for (int c = threadIdx.x; c < cols; c += THREADS) {
		struct running one = { row[c], 1.f };
		t = merge(t, one);
	}
	for (int d = WARP / 2; d > 0; d /= 2) {
		struct running other = { __shfl_xor_sync(0xffffffffu, t.m, d), __shfl_xor_sync(0xffffffffu, t.s, d) };
		t = merge(t, other);
	}
	if (threadIdx.x % WARP == 0)
		part[threadIdx.x / WARP] = t;
	__syncthreads();
	t = part[0];
	for (int w = 1; w < WARPS; w++)
		t = merge(t, part[w]);
	float inv = 1.f / t.s;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		o[c] = expf(row[c] - t.m) * inv;
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	softmax<<<rows, THREADS, 0, stream>>>(x, out, cols);
	return cudaGetLastError() != cudaSuccess;
}
