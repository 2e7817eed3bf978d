/* kforge-test: task=vector_add expect=unwritten_output */
/* Returns at once and launches the work later from a host thread. */
#include <pthread.h>
#include <unistd.h>

struct job { const float *x, *y; float *out; int n; };
static struct job job;

__global__ static void add(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = x[i] + y[i];
}

static void *later(void *arg)
{
	(void)arg;
	usleep(1000);
	add<<<1024, 256>>>(job.x, job.y, job.out, job.n);
	cudaDeviceSynchronize();
	return NULL;
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)stream;
	job = (struct job){ x, y, out, n };
	pthread_t t;
	pthread_create(&t, NULL, later, NULL);
	pthread_detach(t);
	return 0;
}
