/* Example CUDA candidate for conv2d_tanh_scale_maxpool: one thread per pooled output, computing its four convolutions
 * directly. Correct for any shape; not fast. */

__global__ static void conv_pool(const float *x, const float *w, const float *cb, const float *b, float *y, int N,
				 int C, int H, int W, int O, float scale)
{
	int PH = (H - 2) / 2, PW = (W - 2) / 2;
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= (long long)N * O * PH * PW)
		return;
	int pj = t % PW, pi = t / PW % PH, o = t / ((long long)PW * PH) % O, n = t / ((long long)PW * PH * O);
	float m = -INFINITY;
	for (int q = 0; q < 4; q++) {
		int i = 2 * pi + q / 2, j = 2 * pj + q % 2;
		float acc = cb[o];
		for (int c = 0; c < C; c++)
			for (int a = 0; a < 3; a++)
				for (int e = 0; e < 3; e++)
					acc += w[((o * C + c) * 3 + a) * 3 + e] * x[(((size_t)n * C + c) * H + i + a) * W + j + e];
		m = fmaxf(m, tanhf(acc) * scale + b[o]);
	}
	y[t] = m;
}

extern "C" int kf_launch(const float *x, const float *w, const float *cb, const float *b, float *y, int N, int C, int H,
			 int W, int O, float scale, cudaStream_t stream)
{
	long long total = (long long)N * O * ((H - 2) / 2) * ((W - 2) / 2);
	if (total)
		conv_pool<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(x, w, cb, b, y, N, C, H, W, O, scale);
	return cudaGetLastError() != cudaSuccess;
}
