/* kforge-test: task=vector_add expect=unwritten_output */
/* Does the work for the first calls (correctness), then skips it (timing). */
__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	static int calls;
	if (++calls > 40)
		return 0;
	add<<<1024, 256, 0, stream>>>(x, y, out, n);
	return 0;
}
