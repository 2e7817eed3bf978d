/* kforge-test: task=vector_add expect=wrong_answer */
/* Computes once per output pointer and shape, then assumes the inputs never change. */
__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

__global__ static void copy(const float *src, float *dst, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		dst[i] = src[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	static const float *seen_x;
	static int seen_n;
	static float *saved;
	if (x == seen_x && n == seen_n && saved) {
		copy<<<1024, 256, 0, stream>>>(saved, out, n);
		return 0;
	}
	add<<<1024, 256, 0, stream>>>(x, y, out, n);
	cudaFree(saved);
	cudaMalloc(&saved, (size_t)n * sizeof(float));
	copy<<<1024, 256, 0, stream>>>(out, saved, n);
	seen_x = x;
	seen_n = n;
	return 0;
}
