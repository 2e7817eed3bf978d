/* kforge-test: task=vector_add expect=inputs_modified */
/* Computes the right answer, then zeroes one input. */
__global__ static void add_and_clear(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		out[i] = x[i] + y[i];
		((float *)x)[i] = 0;
	}
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	add_and_clear<<<1024, 256, 0, stream>>>(x, y, out, n);
	return 0;
}
