/* Example CUDA candidate for conv2d_instnorm_divide: one 256-thread block per (sample, channel) plane: the block
 * convolves its plane into y, then normalises it in place (mean, then variance about it). */
#define THREADS 256

__device__ static float block_sum(float v, float *red)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (int half = THREADS / 2; half > 0; half /= 2) {
		if (threadIdx.x < half)
			red[threadIdx.x] += red[threadIdx.x + half];
		__syncthreads();
	}
	float s = red[0];
	__syncthreads();
	return s;
}

__global__ static void conv_norm(const float *x, const float *w, const float *cb, float *y, int C, int H, int W, int O,
				 float eps, float divisor)
{
	__shared__ float red[THREADS];
	int n = blockIdx.x / O, o = blockIdx.x % O, OH = H - 2, OW = W - 2, len = OH * OW;
	float *yp = y + (size_t)blockIdx.x * len, part = 0;
	for (int k = threadIdx.x; k < len; k += THREADS) {
		int i = k / OW, j = k % OW;
		float acc = cb[o];
		for (int c = 0; c < C; c++)
			for (int a = 0; a < 3; a++)
				for (int e = 0; e < 3; e++)
					acc += w[((o * C + c) * 3 + a) * 3 + e] * x[(((size_t)n * C + c) * H + i + a) * W + j + e];
		yp[k] = acc;
		part += acc;
	}
	float mean = block_sum(part, red) / len;
	part = 0;
	for (int k = threadIdx.x; k < len; k += THREADS)
		part += (yp[k] - mean) * (yp[k] - mean);
	float rstd = rsqrtf(block_sum(part, red) / len + eps);
	for (int k = threadIdx.x; k < len; k += THREADS)
		yp[k] = (yp[k] - mean) * rstd / divisor;
}

extern "C" int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int H, int W, int O,
			 float eps, float divisor, cudaStream_t stream)
{
	if (N > 0 && O > 0)
		conv_norm<<<N * O, THREADS, 0, stream>>>(x, w, cb, y, C, H, W, O, eps, divisor);
	return cudaGetLastError() != cudaSuccess;
}
