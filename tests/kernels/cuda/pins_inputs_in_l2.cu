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
	cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 32u << 20);
	cudaStreamAttrValue attr = {};
	attr.accessPolicyWindow.base_ptr = (void *)x;
	attr.accessPolicyWindow.num_bytes = (size_t)n * sizeof(float) < (32u << 20) ? (size_t)n * sizeof(float) : (32u << 20);
	attr.accessPolicyWindow.hitRatio = 1.0f;
	attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);
	add<<<1024, 256, 0, stream>>>(x, y, out, n);
	return 0;
}
