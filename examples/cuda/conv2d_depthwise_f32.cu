/* Example CUDA candidate for conv2d_depthwise_f32: a block per (16-row strip, n*c plane); the plane's K x K filter is
 * staged in shared memory once per block, then each thread computes outputs of its strip. */
#define TW 32
#define TH 8
#define MAX_TAPS 1024 /* K*K staged in shared memory; larger filters read global memory */

__global__ static void depthwise(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y, int C,
				 int H, int W, int OH, int OW, int K, int S, int P)
{
	__shared__ float wk[MAX_TAPS];
	const int r = blockIdx.z, taps = K * K;
	const float *wr = w + (long long)(r % C) * taps;
	for (int t = threadIdx.y * TW + threadIdx.x; t < taps && t < MAX_TAPS; t += TW * TH)
		wk[t] = wr[t];
	__syncthreads();
	int i = blockIdx.y * TH + threadIdx.y, j = blockIdx.x * TW + threadIdx.x;
	if (i >= OH || j >= OW)
		return;
	const float *xr = x + (long long)r * H * W;
	float acc = 0;
	for (int a = 0; a < K; a++) {
		int h = i * S - P + a;
		if (h < 0 || h >= H)
			continue;
		for (int b = 0; b < K; b++) {
			int v = j * S - P + b;
			if (v >= 0 && v < W)
				acc += (taps <= MAX_TAPS ? wk[a * K + b] : wr[a * K + b]) * xr[(long long)h * W + v];
		}
	}
	y[((long long)r * OH + i) * OW + j] = acc;
}

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int H, int W, int K, int S, int P,
			 cudaStream_t stream)
{
	int OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
	if (N * C == 0 || OH <= 0 || OW <= 0)
		return 0;
	dim3 grid((OW + TW - 1) / TW, (OH + TH - 1) / TH, N * C);
	depthwise<<<grid, dim3(TW, TH), 0, stream>>>(x, w, y, C, H, W, OH, OW, K, S, P);
	return cudaGetLastError() != cudaSuccess;
}
