/* Example CUDA candidate for triplet_margin_loss_f32: one block per row computes both squared distances in one pass
 * over the anchor (block tree in shared memory), and thread 0 adds the row's hinge / B to a double accumulator with
 * atomicAdd; the accumulator lives in the workspace (zeroed first), and a one-thread kernel stores it as the loss. */
#define THREADS 256

__global__ static void zero(double *total)
{
	*total = 0;
}

__global__ static void rows(const float *__restrict__ a, const float *__restrict__ p, const float *__restrict__ q,
			    int D, float margin, double inv_b, double *total)
{
	__shared__ float sp[THREADS], sn[THREADS];
	const long long base = (long long)blockIdx.x * D;
	float accp = 0, accn = 0;
	for (int j = threadIdx.x; j < D; j += THREADS) {
		float u = a[base + j] - p[base + j] + 1e-6f, v = a[base + j] - q[base + j] + 1e-6f;
		accp += u * u;
		accn += v * v;
	}
	sp[threadIdx.x] = accp;
	sn[threadIdx.x] = accn;
	__syncthreads();
	for (int s = THREADS / 2; s > 0; s /= 2) {
		if (threadIdx.x < s) {
			sp[threadIdx.x] += sp[threadIdx.x + s];
			sn[threadIdx.x] += sn[threadIdx.x + s];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(total, fmax((double)sqrtf(sp[0]) - sqrtf(sn[0]) + margin, 0.0) * inv_b);
}

__global__ static void finish(float *loss, const double *total)
{
	loss[0] = (float)*total;
}

extern "C" int kf_launch(const float *anchor, const float *positive, const float *negative, float *loss, int B, int D,
			 float margin, void *workspace, cudaStream_t stream)
{
	double *total = (double *)workspace; /* 8*B bytes, at least one double */
	zero<<<1, 1, 0, stream>>>(total);
	if (B > 0)
		rows<<<B, THREADS, 0, stream>>>(anchor, positive, negative, D, margin, 1.0 / B, total);
	finish<<<1, 1, 0, stream>>>(loss, total);
	return cudaGetLastError() != cudaSuccess;
}
