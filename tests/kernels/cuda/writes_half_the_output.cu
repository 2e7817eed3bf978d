/* kforge-test: task=vector_add expect=unwritten_output */
__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 2; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	add<<<1024, 256, 0, stream>>>(x, y, out, n);
	return 0;
}
