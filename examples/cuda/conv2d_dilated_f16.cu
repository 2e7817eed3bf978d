/* Example CUDA candidate for conv2d_dilated_f16: one thread per output element; the row and column taps that fall
 * inside the image are found once per output (first and last in-range tap per axis), so the tap loops have no
 * bounds test; fp32 accumulation. */
#define THREADS 256

__device__ static void tap_range(int start, int dil, int k, int extent, int *lo, int *hi)
{
	*lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
	*hi = extent - 1 - start < 0 ? 0 : min(k, (extent - 1 - start) / dil + 1);
}

__global__ static void conv2d(const __half *__restrict__ x, const __half *__restrict__ w, __half *__restrict__ y,
			      long long total, int C, int H, int W, int O, int OH, int OW, int KH, int KW, int S, int PH,
			      int PW, int DH, int DW)
{
	long long t = blockIdx.x * (long long)THREADS + threadIdx.x;
	if (t >= total)
		return;
	int j = (int)(t % OW), i = (int)(t / OW % OH), o = (int)(t / ((long long)OW * OH) % O);
	long long n = t / ((long long)OW * OH * O);
	int h0 = i * S - PH, v0 = j * S - PW, alo, ahi, blo, bhi;
	tap_range(h0, DH, KH, H, &alo, &ahi);
	tap_range(v0, DW, KW, W, &blo, &bhi);
	float acc = 0;
	for (int c = 0; c < C; c++) {
		const __half *xc = x + (n * C + c) * H * W;
		const __half *wc = w + ((long long)o * C + c) * KH * KW;
		for (int a = alo; a < ahi; a++)
			for (int b = blo; b < bhi; b++)
				acc += __half2float(wc[a * KW + b]) * __half2float(xc[(long long)(h0 + a * DH) * W + v0 + b * DW]);
	}
	y[t] = __float2half_rn(acc);
}

extern "C" int kf_launch(const __half *x, const __half *w, __half *y, int N, int C, int H, int W, int O, int KH, int KW,
			 int S, int PH, int PW, int DH, int DW, cudaStream_t stream)
{
	int OH = (H + 2 * PH - DH * (KH - 1) - 1) / S + 1, OW = (W + 2 * PW - DW * (KW - 1) - 1) / S + 1;
	long long total = (long long)N * O * OH * OW;

	if (total <= 0)
		return 0;
	unsigned blocks = (unsigned)((total + THREADS - 1) / THREADS);
	conv2d<<<blocks, THREADS, 0, stream>>>(x, w, y, total, C, H, W, O, OH, OW, KH, KW, S, PH, PW, DH,
						DW);
	return cudaGetLastError() != cudaSuccess;
}
