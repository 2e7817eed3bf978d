/* A straightforward vector_add: one thread per element, grid-stride for any n. */
__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	const int threads = 256;
	int blocks = (n + threads - 1) / threads;
	if (blocks > 65535 * 8)
		blocks = 65535 * 8;
	add<<<blocks, threads, 0, stream>>>(x, y, out, n);
	return cudaGetLastError() != cudaSuccess;
}
