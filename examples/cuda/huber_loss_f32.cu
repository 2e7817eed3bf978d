/* Example CUDA candidate for huber_loss_f32: h(d) = c (|d| - c / 2) with c = min(|d|, delta); a grid-stride loop
 * sums the per-element terms in double per thread, a shared-memory tree per block, then one double atomicAdd per
 * block into an accumulator a one-thread kernel zeroed first, and another scales and stores the loss. */
#define THREADS 256
#define BLOCKS 1024

__device__ static double total; /* the running sum of one call; zeroed before it */

__global__ static void terms(const float *__restrict__ pred, const float *__restrict__ target, float delta, long long n)
{
	__shared__ double part[THREADS];
	double acc = 0;
	for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS) {
		float a = fabsf(pred[i] - target[i]), c = fminf(a, delta);
		acc += c * (a - 0.5f * c);
	}
	part[threadIdx.x] = acc;
	__syncthreads();
	for (int s = THREADS / 2; s > 0; s /= 2) {
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(&total, part[0]);
}

__global__ static void zero(void)
{
	total = 0;
}

__global__ static void finish(float *loss, double scale)
{
	loss[0] = (float)(total * scale);
}

extern "C" int kf_launch(const float *pred, const float *target, float *loss, int B, int D,
			 float delta, cudaStream_t stream)
{
	long long n = (long long)B * D, blocks = (n + THREADS - 1) / THREADS;
	zero<<<1, 1, 0, stream>>>();
	terms<<<blocks < BLOCKS ? (int)blocks : BLOCKS, THREADS, 0, stream>>>(pred, target, delta, n);
	finish<<<1, 1, 0, stream>>>(loss, 1.0 / (double)n);
	return cudaGetLastError() != cudaSuccess;
}
