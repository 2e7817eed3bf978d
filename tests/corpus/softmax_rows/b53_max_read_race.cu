/* kforge-corpus: task=softmax_rows intended=bug */
/* The shared array that held the reduced max is reused for the sum without a barrier after the
 * max is read: a fast warp can overwrite red[0] before a slow one has read it (a race that shows
 * only sometimes, as a wrong max in some rows). */
#define THREADS 256

__global__ static void softmax(const float *x, float *out, int cols)
{
	__shared__ float red[THREADS];
	const float *row = x + (size_t)blockIdx.x * cols;
	float *o = out + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		m = fmaxf(m, row[c]);
	red[threadIdx.x] = m;
	__syncthreads();
	for (int k = THREADS / 2; k > 0; k /= 2) {
		if (threadIdx.x < k)
			red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + k]);
		__syncthreads();
	}
	m = red[0]; /* missing __syncthreads() before red[] is written again */
	float s = 0;
	for (int c = threadIdx.x; c < cols; c += THREADS)
		s += expf(row[c] - m);
	red[threadIdx.x] = s;
	__syncthreads();
	for (int k = THREADS / 2; k > 0; k /= 2) {
		if (threadIdx.x < k)
			red[threadIdx.x] += red[threadIdx.x + k];
		__syncthreads();
	}
	float inv = 1.f / red[0];
	for (int c = threadIdx.x; c < cols; c += THREADS)
		o[c] = expf(row[c] - m) * inv;
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	softmax<<<rows, THREADS, 0, stream>>>(x, out, cols);
	return cudaGetLastError() != cudaSuccess;
}
