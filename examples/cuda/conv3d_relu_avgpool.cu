/* Example CUDA candidate for conv3d_relu_avgpool: one thread per pooled output, computing its eight convolutions
 * directly. Correct for any shape; not fast. */

__global__ static void conv3d_pool(const float *x, const float *w, const float *cb, float *y, int N, int C, int D,
				   int H, int W, int O)
{
	int PD = D / 2, PH = H / 2, PW = W / 2;
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= (long long)N * O * PD * PH * PW)
		return;
	int pw = t % PW, ph = t / PW % PH, pd = t / ((long long)PW * PH) % PD, o = t / ((long long)PW * PH * PD) % O,
	    n = t / ((long long)PW * PH * PD * O);
	float sum = 0;
	for (int q = 0; q < 8; q++) {
		int d = 2 * pd + q / 4, h = 2 * ph + q / 2 % 2, v = 2 * pw + q % 2;
		float acc = cb[o];
		for (int c = 0; c < C; c++)
			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 3; b++)
					for (int e = 0; e < 3; e++) {
						int zd = d + a - 1, zh = h + b - 1, zw = v + e - 1;
						if (zd >= 0 && zd < D && zh >= 0 && zh < H && zw >= 0 && zw < W)
							acc += w[(((o * C + c) * 3 + a) * 3 + b) * 3 + e] *
							       x[((((size_t)n * C + c) * D + zd) * H + zh) * W + zw];
					}
		sum += fmaxf(acc, 0.0f);
	}
	y[t] = sum * 0.125f;
}

extern "C" int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int D, int H, int W,
			 int O, cudaStream_t stream)
{
	long long total = (long long)N * O * (D / 2) * (H / 2) * (W / 2);
	if (total)
		conv3d_pool<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(x, w, cb, y, N, C, D, H, W, O);
	return cudaGetLastError() != cudaSuccess;
}
