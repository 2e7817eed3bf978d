/* Direct grouped conv2d, one thread per output element; the grid's y dimension walks the (n, o) planes so that a
 * block's threads share one filter. */
#define THREADS 128

__global__ static void conv2d(const float *x, const float *w, float *y, int C, int H, int W, int O, int G, int KH,
			      int KW, int SH, int SW, int PH, int PW, int OH, int OW)
{
	int p = blockIdx.x * THREADS + threadIdx.x;
	int plane = blockIdx.y, n = plane / O, o = plane % O;
	if (p >= OH * OW)
		return;
	int oh = p / OW, ow = p % OW, cg = C / G, g = o / (O / G);
	float acc = 0;
	for (int c = 0; c < cg; c++) {
		const float *xp = x + ((size_t)n * C + g * cg + c) * H * W;
		const float *wp = w + ((size_t)o * cg + c) * KH * KW;
		for (int a = 0; a < KH; a++) {
			int ih = oh * SH - PH + a;
			if (ih < 0 || ih >= H)
				continue;
			for (int b = 0; b < KW; b++) {
				int iw = ow * SW - PW + b;
				if (iw >= 0 && iw < W)
					acc += wp[a * KW + b] * xp[(size_t)ih * W + iw];
			}
		}
	}
	y[(size_t)plane * OH * OW + p] = acc;
}

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int H, int W, int O, int G, int KH,
			 int KW, int SH, int SW, int PH, int PW, cudaStream_t stream)
{
	int OH = (H + 2 * PH - KH) / SH + 1, OW = (W + 2 * PW - KW) / SW + 1;
	dim3 grid((OH * OW + THREADS - 1) / THREADS, N * O);
	conv2d<<<grid, THREADS, 0, stream>>>(x, w, y, C, H, W, O, G, KH, KW, SH, SW, PH, PW, OH, OW);
	return cudaGetLastError() != cudaSuccess;
}
