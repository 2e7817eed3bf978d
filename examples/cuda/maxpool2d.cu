/* MaxPool2d(3, stride 2, padding 1): a 2-D grid of output tiles per (n, c) plane, one thread per output. */
#define TX 32
#define TY 8

__global__ static void maxpool(const float *x, float *y, int H, int W, int OH, int OW)
{
	int j = blockIdx.x * TX + threadIdx.x, i = blockIdx.y * TY + threadIdx.y;
	if (i >= OH || j >= OW)
		return;
	const float *p = x + (size_t)blockIdx.z * H * W;
	float m = -INFINITY;
	for (int a = 0; a < 3; a++) {
		int r = 2 * i - 1 + a;
		if (r < 0 || r >= H)
			continue;
		for (int b = 0; b < 3; b++) {
			int c = 2 * j - 1 + b;
			if (c >= 0 && c < W)
				m = fmaxf(m, p[(size_t)r * W + c]);
		}
	}
	y[((size_t)blockIdx.z * OH + i) * OW + j] = m;
}

extern "C" int kf_launch(const float *x, float *y, int N, int C, int H, int W, cudaStream_t stream)
{
	int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;
	dim3 grid((OW + TX - 1) / TX, (OH + TY - 1) / TY, N * C), block(TX, TY);
	maxpool<<<grid, block, 0, stream>>>(x, y, H, W, OH, OW);
	return cudaGetLastError() != cudaSuccess;
}
