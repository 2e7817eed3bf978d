/* Example CUDA candidate for maxpool3d_f32: a 3-D grid, x over output columns and y over output rows of one output
 * depth slice, z over (n*c, depth); each thread takes the max of its in-range taps. */
#define BX 32
#define BY 4

__global__ static void maxpool(const float *__restrict__ x, float *__restrict__ y, int D, int H, int W, int OD, int OH,
			       int OW, int K, int S, int P, int DIL)
{
	int l = blockIdx.x * BX + threadIdx.x, j = blockIdx.y * BY + threadIdx.y;
	if (l >= OW || j >= OH)
		return;
	int i = blockIdx.z % OD;
	long long r = blockIdx.z / OD;
	const float *xr = x + r * D * H * W;
	float best = -INFINITY;
	for (int a = 0; a < K; a++) {
		int d = i * S - P + a * DIL;
		for (int b = 0; b < K; b++) {
			int h = j * S - P + b * DIL;
			for (int e = 0; e < K; e++) {
				int w = l * S - P + e * DIL;
				if (d >= 0 && d < D && h >= 0 && h < H && w >= 0 && w < W)
					best = fmaxf(best, xr[((long long)d * H + h) * W + w]);
			}
		}
	}
	y[((r * OD + i) * OH + j) * OW + l] = best;
}

extern "C" int kf_launch(const float *x, float *y, int N, int C, int D, int H, int W, int K, int S, int P, int DIL,
			 cudaStream_t stream)
{
	int span = DIL * (K - 1) + 1;
	int OD = (D + 2 * P - span) / S + 1, OH = (H + 2 * P - span) / S + 1, OW = (W + 2 * P - span) / S + 1;
	if (N * C == 0 || OD <= 0 || OH <= 0 || OW <= 0)
		return 0;
	dim3 grid((OW + BX - 1) / BX, (OH + BY - 1) / BY, N * C * OD);
	maxpool<<<grid, dim3(BX, BY), 0, stream>>>(x, y, D, H, W, OD, OH, OW, K, S, P, DIL);
	return cudaGetLastError() != cudaSuccess;
}
