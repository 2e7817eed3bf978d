/* Example CUDA candidate for conv_transpose3d_f32: the gather form, one thread per output voxel; along each axis only
 * the taps whose source position p + P - tap divides by S and lands inside the input count. */
#define THREADS 256

__global__ static void conv_t3d(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y,
				long long total, int C, int D, int H, int W, int O, int G, int OD, int OH, int OW, int K,
				int S, int P)
{
	long long t = blockIdx.x * (long long)THREADS + threadIdx.x;
	if (t >= total)
		return;
	int pw = (int)(t % OW), ph = (int)(t / OW % OH), pd = (int)(t / ((long long)OW * OH) % OD);
	int o = (int)(t / ((long long)OW * OH * OD) % O);
	long long n = t / ((long long)OW * OH * OD * O);
	int cg = C / G, og = O / G, g = o / og, m = o % og;
	float acc = 0;
	for (int a = 0; a < K; a++) {
		int sd = pd + P - a;
		if (sd < 0 || sd % S || sd / S >= D)
			continue;
		for (int b = 0; b < K; b++) {
			int sh = ph + P - b;
			if (sh < 0 || sh % S || sh / S >= H)
				continue;
			for (int e = 0; e < K; e++) {
				int sw = pw + P - e;
				if (sw < 0 || sw % S || sw / S >= W)
					continue;
				long long at = ((long long)(sd / S) * H + sh / S) * W + sw / S;
				for (int c = g * cg; c < (g + 1) * cg; c++)
					acc += x[(n * C + c) * D * H * W + at] * w[(((long long)c * og + m) * K + a) * K * K + b * K + e];
			}
		}
	}
	y[t] = acc;
}

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int D, int H, int W, int O, int G, int K,
			 int S, int P, cudaStream_t stream)
{
	int OD = (D - 1) * S - 2 * P + K, OH = (H - 1) * S - 2 * P + K, OW = (W - 1) * S - 2 * P + K;
	long long total = (long long)N * O * OD * OH * OW;

	if (total <= 0)
		return 0;
	unsigned blocks = (unsigned)((total + THREADS - 1) / THREADS);
	conv_t3d<<<blocks, THREADS, 0, stream>>>(x, w, y, total, C, D, H, W, O, G, OD, OH, OW,
						 K, S, P);
	return cudaGetLastError() != cudaSuccess;
}
