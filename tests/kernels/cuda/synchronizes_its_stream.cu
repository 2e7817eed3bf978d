/* kforge-test: task=vector_add expect=ok */
/* Waits for its own stream inside kf_launch (as a kernel that reads a result back would). The runner
 * holds that stream with a kernel until kf_launch returns, so the wait could only end by the hold's
 * device-side timeout: the call must still finish, correct and timed, never a call timeout. */
__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	add<<<1024, 256, 0, stream>>>(x, y, out, n);
	return cudaStreamSynchronize(stream) != cudaSuccess;
}
