/* kforge-test: task=vector_add expect=ok */
/* Sets a persisting L2 access-policy window over its inputs so they survive the flush; the judge
 * resets persisting lines before every flush, so this buys nothing and must not crash anything. */
__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	int dev = 0, persist = 0, window = 0;
	cudaGetDevice(&dev);
	cudaDeviceGetAttribute(&persist, cudaDevAttrMaxPersistingL2CacheSize, dev);
	cudaDeviceGetAttribute(&window, cudaDevAttrMaxAccessPolicyWindowSize, dev);
	if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)persist) != cudaSuccess)
		return 1;
	size_t bytes = (size_t)n * sizeof(float);
	cudaStreamAttrValue attr = {};
	attr.accessPolicyWindow.base_ptr = (void *)x;
	attr.accessPolicyWindow.num_bytes = bytes < (size_t)window ? bytes : (size_t)window;
	attr.accessPolicyWindow.hitRatio = 1.0f;
	attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	if (cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr) != cudaSuccess)
		return 1;
	add<<<1024, 256, 0, stream>>>(x, y, out, n);
	return 0;
}
