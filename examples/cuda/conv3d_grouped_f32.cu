/* Example CUDA candidate for conv3d_grouped_f32: one thread per output element; each thread finds its group's input
 * channels and walks the window with per-tap bounds tests, fp32 accumulation. */
#define THREADS 256

__global__ static void conv3d(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y,
			      long long total, int C, int D, int H, int W, int O, int G, int OD, int OH, int OW, int K,
			      int S, int P)
{
	long long t = blockIdx.x * (long long)THREADS + threadIdx.x;
	if (t >= total)
		return;
	int l = (int)(t % OW), j = (int)(t / OW % OH), i = (int)(t / ((long long)OW * OH) % OD);
	int o = (int)(t / ((long long)OW * OH * OD) % O);
	long long n = t / ((long long)OW * OH * OD * O);
	int cg = C / G, g = o / (O / G);
	float acc = 0;
	for (int c = 0; c < cg; c++) {
		const float *xc = x + (n * C + (long long)g * cg + c) * D * H * W;
		const float *wc = w + ((long long)o * cg + c) * K * K * K;
		for (int a = 0; a < K; a++) {
			int d = i * S - P + a;
			for (int b = 0; b < K; b++) {
				int h = j * S - P + b;
				for (int e = 0; e < K; e++) {
					int v = l * S - P + e;
					if (d >= 0 && d < D && h >= 0 && h < H && v >= 0 && v < W)
						acc += wc[(a * K + b) * K + e] * xc[((long long)d * H + h) * W + v];
				}
			}
		}
	}
	y[t] = acc;
}

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int D, int H, int W, int O, int G, int K,
			 int S, int P, cudaStream_t stream)
{
	int OD = (D + 2 * P - K) / S + 1, OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
	long long total = (long long)N * O * OD * OH * OW;

	if (total <= 0)
		return 0;
	unsigned blocks = (unsigned)((total + THREADS - 1) / THREADS);
	conv3d<<<blocks, THREADS, 0, stream>>>(x, w, y, total, C, D, H, W, O, G, OD, OH, OW,
						 K, S, P);
	return cudaGetLastError() != cudaSuccess;
}
