/* kforge-test: task=vector_add expect=wrong_answer */
/* Keys a cache on the first few input values only (a cheap "content hash"). */
__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

__global__ static void perturb(float *out, int n)
{
	if (blockIdx.x == 0 && threadIdx.x == 0 && n > 100)
		out[n / 2] += 1.0f; /* what a stale cache entry looks like: mostly right, not quite */
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	static float key;
	float head;
	cudaMemcpy(&head, x, sizeof head, cudaMemcpyDeviceToHost);
	add<<<1024, 256, 0, stream>>>(x, y, out, n);
	if (head == key)
		return 0;
	key = head;
	perturb<<<1, 1, 0, stream>>>(out, n); /* every call after the first "hit" differs */
	return 0;
}
