/* Example CUDA candidate for conv2d_groupnorm_maxpool: one 256-thread block per (sample, group). The block computes
 * its group's convolution sums twice (mean, then the squared deviations about it) and a third time while pooling, so
 * no intermediate tensor is stored. Correct for any shape; slow. */
#define THREADS 256

__device__ static float conv_at(const float *x, const float *w, const float *cb, int n, int o, int i, int j, int C,
				int H, int W)
{
	float acc = cb[o];
	for (int c = 0; c < C; c++)
		for (int a = -1; a <= 1; a++)
			for (int e = -1; e <= 1; e++) {
				int r = i + a, s = j + e;
				if (r >= 0 && r < H && s >= 0 && s < W)
					acc += w[((o * C + c) * 3 + a + 1) * 3 + e + 1] * x[(((size_t)n * C + c) * H + r) * W + s];
			}
	return acc;
}

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

__global__ static void conv_gn_pool(const float *x, const float *w, const float *cb, const float *gamma,
				    const float *beta, float *y, int C, int H, int W, int O, int G, float eps)
{
	__shared__ float red[THREADS];
	int n = blockIdx.x / G, g = blockIdx.x % G, cpg = O / G, len = cpg * H * W;
	float part = 0;
	for (int k = threadIdx.x; k < len; k += THREADS)
		part += conv_at(x, w, cb, n, g * cpg + k / (H * W), k % (H * W) / W, k % W, C, H, W);
	float mean = block_sum(part, red) / len;
	part = 0;
	for (int k = threadIdx.x; k < len; k += THREADS) {
		float d = conv_at(x, w, cb, n, g * cpg + k / (H * W), k % (H * W) / W, k % W, C, H, W) - mean;
		part += d * d;
	}
	float rstd = rsqrtf(block_sum(part, red) / len + eps);
	int PH = H / 2, PW = W / 2, plen = cpg * PH * PW;
	for (int k = threadIdx.x; k < plen; k += THREADS) {
		int o = g * cpg + k / (PH * PW), pi = k % (PH * PW) / PW, pj = k % PW;
		float m = -INFINITY;
		for (int q = 0; q < 4; q++) {
			float v = (conv_at(x, w, cb, n, o, 2 * pi + q / 2, 2 * pj + q % 2, C, H, W) - mean) * rstd;
			m = fmaxf(m, v * gamma[o] + beta[o]);
		}
		y[(((size_t)n * O + o) * PH + pi) * PW + pj] = m;
	}
}

extern "C" int kf_launch(const float *x, const float *w, const float *cb, const float *gamma, const float *beta,
			 float *y, int N, int C, int H, int W, int O, int G, float eps, cudaStream_t stream)
{
	if (N > 0 && G > 0)
		conv_gn_pool<<<N * G, THREADS, 0, stream>>>(x, w, cb, gamma, beta, y, C, H, W, O, G, eps);
	return cudaGetLastError() != cudaSuccess;
}
