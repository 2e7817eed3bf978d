/* Example CUDA candidate for avgpool3d_f32: one thread per output element (flat index over [N*C, OD, OH, OW]); each
 * sums its window clipped to the volume and divides by K^3 (count_include_pad). */
#define THREADS 256

__global__ static void avgpool(const float *__restrict__ x, float *__restrict__ y, long long total, int D, int H, int W,
			       int OD, int OH, int OW, int K, int S, int P)
{
	long long t = blockIdx.x * (long long)THREADS + threadIdx.x;
	if (t >= total)
		return;
	int l = (int)(t % OW), j = (int)(t / OW % OH), i = (int)(t / ((long long)OW * OH) % OD);
	long long r = t / ((long long)OW * OH * OD);
	const float *xr = x + r * D * H * W;
	int d0 = max(i * S - P, 0), d1 = min(i * S - P + K, D), h0 = max(j * S - P, 0), h1 = min(j * S - P + K, H);
	int w0 = max(l * S - P, 0), w1 = min(l * S - P + K, W);
	float sum = 0;
	for (int d = d0; d < d1; d++)
		for (int h = h0; h < h1; h++)
			for (int w = w0; w < w1; w++)
				sum += xr[((long long)d * H + h) * W + w];
	y[t] = sum / (float)(K * K * K);
}

extern "C" int kf_launch(const float *x, float *y, int N, int C, int D, int H, int W, int K, int S, int P,
			 cudaStream_t stream)
{
	int OD = (D + 2 * P - K) / S + 1, OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
	long long total = (long long)N * C * OD * OH * OW;
	if (total <= 0)
		return 0;
	avgpool<<<(unsigned)((total + THREADS - 1) / THREADS), THREADS, 0, stream>>>(x, y, total, D, H, W, OD, OH, OW, K,
											  S, P);
	return cudaGetLastError() != cudaSuccess;
}
