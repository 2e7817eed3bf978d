/* Example CUDA candidate for matrix_scalar_f32: float4 loads and stores when both pointers are 16-byte aligned (the
 * n % 4 tail by the first threads), a scalar grid-stride loop otherwise. */
#define THREADS 256
#define MAX_BLOCKS 8192

__global__ static void scale4(const float *__restrict__ a1, float *__restrict__ c1, long long n, float s)
{
	const float4 *a = (const float4 *)a1;
	float4 *c = (float4 *)c1;
	const long long n4 = n / 4;
	long long first = blockIdx.x * (long long)THREADS + threadIdx.x;
	for (long long i = first; i < n4; i += (long long)gridDim.x * THREADS) {
		float4 v = a[i];
		c[i] = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
	}
	if (first < n - 4 * n4)
		c1[4 * n4 + first] = a1[4 * n4 + first] * s;
}

__global__ static void scale1(const float *__restrict__ a, float *__restrict__ c, long long n, float s)
{
	for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS)
		c[i] = a[i] * s;
}

extern "C" int kf_launch(const float *A, float *C, int M, int N, float s, cudaStream_t stream)
{
	long long n = (long long)M * N, blocks = (n / 4 + THREADS - 1) / THREADS;
	if (n == 0)
		return 0;
	int grid = blocks < 1 ? 1 : blocks < MAX_BLOCKS ? (int)blocks : MAX_BLOCKS;
	if ((unsigned long long)A % 16 == 0 && (unsigned long long)C % 16 == 0)
		scale4<<<grid, THREADS, 0, stream>>>(A, C, n, s);
	else
		scale1<<<grid, THREADS, 0, stream>>>(A, C, n, s);
	return cudaGetLastError() != cudaSuccess;
}
