/* conv3d, kernel 3, padding 1: a block computes a row of W outputs for one (n, o, d, h); each thread walks the
 * 27 taps per input channel. */
#define THREADS 128

__global__ static void conv3d(const float *x, const float *wt, float *y, int C, int D, int H, int W, int O)
{
	int row = blockIdx.y; /* (n, o, d, h) */
	int h = row % H, d = row / H % D, o = row / (H * D) % O, n = row / (H * D * O);
	for (int w0 = blockIdx.x * THREADS + threadIdx.x; w0 < W; w0 += gridDim.x * THREADS) {
		float acc = 0;
		for (int c = 0; c < C; c++) {
			const float *k = wt + ((size_t)o * C + c) * 27;
			const float *xc = x + ((size_t)n * C + c) * D * H * W;
			for (int a = 0; a < 3; a++) {
				int zd = d - 1 + a;
				if (zd < 0 || zd >= D)
					continue;
				for (int b = 0; b < 3; b++) {
					int zh = h - 1 + b;
					if (zh < 0 || zh >= H)
						continue;
					const float *line = xc + ((size_t)zd * H + zh) * W;
					for (int e = 0; e < 3; e++) {
						int zw = w0 - 1 + e;
						if (zw >= 0 && zw < W)
							acc += k[a * 9 + b * 3 + e] * line[zw];
					}
				}
			}
		}
		y[(size_t)row * W + w0] = acc;
	}
}

extern "C" int kf_launch(const float *x, const float *wt, float *y, int N, int C, int D, int H, int W, int O,
			 cudaStream_t stream)
{
	dim3 grid((W + THREADS - 1) / THREADS, N * O * D * H);
	conv3d<<<grid, THREADS, 0, stream>>>(x, wt, y, C, D, H, W, O);
	return cudaGetLastError() != cudaSuccess;
}
