/* Instance norm: a block per (n, c) plane; each thread keeps a Welford (count, mean, M2) over its share, the
 * block merges them (Chan's formula), then normalises. */
#define THREADS 256

struct stat {
	float n, mean, m2;
};

__device__ static struct stat merge(struct stat a, struct stat b)
{
	struct stat r;
	r.n = a.n + b.n;
	if (r.n == 0)
		return a;
	float d = b.mean - a.mean;
	r.mean = a.mean + d * (b.n / r.n);
	r.m2 = a.m2 + b.m2 + d * d * (a.n * b.n / r.n);
	return r;
}

__global__ static void instance_norm(const float *x, float *y, int HW, float eps)
{
	__shared__ struct stat part[THREADS];
	const float *p = x + (size_t)blockIdx.x * HW;
	struct stat s = { 0, 0, 0 };
	for (int i = threadIdx.x; i < HW; i += THREADS) {
		float v = p[i];
		s.n += 1;
		float d = v - s.mean;
		s.mean += d / s.n;
		s.m2 += d * (v - s.mean);
	}
	part[threadIdx.x] = s;
	__syncthreads();
	for (int w = THREADS / 2; w; w /= 2) {
		if (threadIdx.x < w)
			part[threadIdx.x] = merge(part[threadIdx.x], part[threadIdx.x + w]);
		__syncthreads();
	}
	float mean = part[0].mean, rstd = rsqrtf(part[0].m2 / HW + eps);
	for (int i = threadIdx.x; i < HW; i += THREADS)
		y[(size_t)blockIdx.x * HW + i] = (p[i] - mean) * rstd;
}

extern "C" int kf_launch(const float *x, float *y, int N, int C, int H, int W, float eps, cudaStream_t stream)
{
	instance_norm<<<N * C, THREADS, 0, stream>>>(x, y, H * W, eps);
	return cudaGetLastError() != cudaSuccess;
}
