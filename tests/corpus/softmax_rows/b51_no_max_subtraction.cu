/* kforge-corpus: task=softmax_rows intended=bug */
/* exp(x) / sum exp(x) without subtracting the row max: overflows on large inputs and underflows
 * to 0/0 on all-negative ones. */
#define THREADS 256

__global__ static void softmax(const float *x, float *out, int cols)
{
	__shared__ float red[THREADS];
	const float *row = x + (size_t)blockIdx.x * cols;
	float *o = out + (size_t)blockIdx.x * cols;
	float s = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s += expf(row[c]);
	red[threadIdx.x] = s;
	__syncthreads();
	for (int k = THREADS / 2; k > 0; k /= 2) {
		if (threadIdx.x < k)
			red[threadIdx.x] += red[threadIdx.x + k];
		__syncthreads();
	}
	float inv = 1.f / red[0];
	for (int c = threadIdx.x; c < cols; c += THREADS)
		o[c] = expf(row[c]) * inv;
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	softmax<<<rows, THREADS, 0, stream>>>(x, out, cols);
	return cudaGetLastError() != cudaSuccess;
}
