/* Example CUDA candidate for cnn_block: the first conv + BatchNorm + ReLU into a buffer allocated once in kf_init
 * (64 MiB, enough for the bench shape's 26 MB; larger shapes are refused), then one thread per pooled output computing
 * its four second-stage values. */
#define STAGE_BYTES (64u << 20)

static float *stage1;

extern "C" int kf_init(void)
{
	return cudaMalloc((void **)&stage1, STAGE_BYTES) != cudaSuccess;
}

__global__ static void conv1_bn_relu(const float *x, const float *w, const float *m, const float *v, const float *g,
				     const float *b, float *z, int N, int C, int H, int W, int C1, float eps)
{
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= (long long)N * C1 * H * W)
		return;
	int j = t % W, i = t / W % H, o = t / ((long long)W * H) % C1, n = t / ((long long)W * H * C1);
	float acc = 0;
	for (int c = 0; c < C; c++)
		for (int a = -1; a <= 1; a++)
			for (int e = -1; e <= 1; e++) {
				int r = i + a, s = j + e;
				if (r >= 0 && r < H && s >= 0 && s < W)
					acc += w[((o * C + c) * 3 + a + 1) * 3 + e + 1] * x[(((size_t)n * C + c) * H + r) * W + s];
			}
	z[t] = fmaxf((acc - m[o]) / sqrtf(v[o] + eps) * g[o] + b[o], 0.0f);
}

__global__ static void conv2_bn_relu_pool(const float *z, const float *w, const float *m, const float *v, const float *g,
					  const float *b, float *y, int N, int C1, int H, int W, int C2, float eps)
{
	int PH = H / 2, PW = W / 2;
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= (long long)N * C2 * PH * PW)
		return;
	int pj = t % PW, pi = t / PW % PH, o = t / ((long long)PW * PH) % C2, n = t / ((long long)PW * PH * C2);
	float best = 0; /* ReLU outputs are >= 0 */
	for (int q = 0; q < 4; q++) {
		int i = 2 * pi + q / 2, j = 2 * pj + q % 2;
		float acc = 0;
		for (int c = 0; c < C1; c++)
			for (int a = -1; a <= 1; a++)
				for (int e = -1; e <= 1; e++) {
					int r = i + a, s = j + e;
					if (r >= 0 && r < H && s >= 0 && s < W)
						acc += w[((o * C1 + c) * 3 + a + 1) * 3 + e + 1] * z[(((size_t)n * C1 + c) * H + r) * W + s];
				}
		best = fmaxf(best, (acc - m[o]) / sqrtf(v[o] + eps) * g[o] + b[o]);
	}
	y[t] = best;
}

extern "C" int kf_launch(const float *x, const float *w1, const float *m1, const float *v1, const float *g1,
			 const float *b1, const float *w2, const float *m2, const float *v2, const float *g2,
			 const float *b2, float *y, int N, int C, int H, int W, int C1, int C2, float eps,
			 cudaStream_t stream)
{
	long long n1 = (long long)N * C1 * H * W, n2 = (long long)N * C2 * (H / 2) * (W / 2);
	if (!stage1 || n1 * (long long)sizeof(float) > STAGE_BYTES)
		return 1;
	if (n1)
		conv1_bn_relu<<<(unsigned)((n1 + 255) / 256), 256, 0, stream>>>(x, w1, m1, v1, g1, b1, stage1, N, C, H, W, C1,
										   eps);
	if (n2)
		conv2_bn_relu_pool<<<(unsigned)((n2 + 255) / 256), 256, 0, stream>>>(stage1, w2, m2, v2, g2, b2, y, N, C1, H,
											W, C2, eps);
	return cudaGetLastError() != cudaSuccess;
}
