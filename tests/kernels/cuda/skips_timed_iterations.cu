/* kforge-test: task=vector_add expect=unwritten_output */
/* Tells timed runs from checks by their shape: the first few calls at the large benchmark size
 * (a correctness check and warm-ups) do the work, later ones skip it. */
#define BENCH_SIZED (1 << 20)
#define HONEST_BENCH_CALLS 3

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	static int bench_calls;
	if (n >= BENCH_SIZED && ++bench_calls > HONEST_BENCH_CALLS)
		return 0;
	add<<<1024, 256, 0, stream>>>(x, y, out, n);
	return 0;
}
