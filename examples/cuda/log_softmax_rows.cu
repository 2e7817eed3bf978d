/* Row log-softmax in two passes over the row, one block per row: the first keeps an online
 * (running max, rescaled sum of exponentials) pair per thread and merges the pairs across the block;
 * the second writes (x - max) - log(sum). */
#define THREADS 256
#define WARP 32

/* Merges (m, s) with (m2, s2): both sums rescaled to the larger max. */
__device__ static void merge(float &m, float &s, float m2, float s2)
{
	float mx = fmaxf(m, m2);
	if (mx == -INFINITY)
		return;
	s = s * expf(m - mx) + s2 * expf(m2 - mx);
	m = mx;
}

__global__ static void log_softmax(const float *x, float *out, int cols)
{
	__shared__ float ms[THREADS / WARP], ss[THREADS / WARP];
	const float *r = x + (size_t)blockIdx.x * cols;
	float *o = out + (size_t)blockIdx.x * cols;
	float m = -INFINITY, s = 0.f;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		merge(m, s, r[c], 1.f);
	for (int off = WARP / 2; off > 0; off /= 2)
		merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
	int warp = threadIdx.x / WARP;
	if (threadIdx.x % WARP == 0) {
		ms[warp] = m;
		ss[warp] = s;
	}
	__syncthreads();
	m = ms[0];
	s = ss[0];
	for (int w = 1; w < THREADS / WARP; w++)
		merge(m, s, ms[w], ss[w]);
	float lse = logf(s); /* x - max first: folding max into log(sum) would round away small outputs */
	for (int c = threadIdx.x; c < cols; c += THREADS)
		o[c] = (r[c] - m) - lse;
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	log_softmax<<<rows, THREADS, 0, stream>>>(x, out, cols);
	return cudaGetLastError() != cudaSuccess;
}
