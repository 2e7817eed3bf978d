/* kforge-test: task=vector_add expect=runtime_error */
/* A thread bomb: 2000 threads that sleep forever. The runner's own uid, process limit and memory cap
 * stop it (pthread_create fails, and the kernel gives up with an error) without touching any other
 * evaluation or kforge itself. */
#include <pthread.h>
#include <time.h>

#define KF_THREADS 2000

static void *kf_sleep_forever(void *arg)
{
	(void)arg;
	struct timespec hour = { .tv_sec = 3600 };
	for (;;)
		nanosleep(&hour, NULL);
	return NULL;
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < KF_THREADS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, kf_sleep_forever, NULL) != 0)
			return 1;
	}
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
