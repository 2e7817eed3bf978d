/* Hinge loss: block partial sums of max(0, 1 - p t), each scaled by 1/B and added atomically into the zeroed
 * output. */
#define TERM(p, t) fmaxf(0.0f, 1.0f - (p) * (t))
#define THREADS 256
#define BLOCKS 512

__global__ static void partial_sums(const float *p, const float *t, float *loss, size_t n, float inv_n)
{
	__shared__ float part[THREADS];
	float s = 0;
	for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)BLOCKS * THREADS)
		s += TERM(p[i], t[i]);
	part[threadIdx.x] = s;
	__syncthreads();
	for (int w = THREADS / 2; w; w /= 2) {
		if (threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(loss, part[0] * inv_n);
}

extern "C" int kf_launch(const float *pred, const float *target, float *loss, int B, cudaStream_t stream)
{
	if (cudaMemsetAsync(loss, 0, sizeof *loss, stream) != cudaSuccess)
		return 1;
	partial_sums<<<BLOCKS, THREADS, 0, stream>>>(pred, target, loss, (size_t)B, 1.0f / B);
	return cudaGetLastError() != cudaSuccess;
}
