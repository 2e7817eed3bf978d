/* kforge-test: task=vector_add expect=unwritten_output */
/* Hands the work to a detached thread that starts after a pause and returns at once, so a timer that
 * stops when kf_launch returns would miss the work. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define KF_DELAY_NS 200000000L

struct kf_job {
	const float *x, *y;
	float *out;
	int n;
};

static void *kf_finish_later(void *arg)
{
	struct kf_job *job = arg;
	struct timespec delay = { .tv_nsec = KF_DELAY_NS };
	nanosleep(&delay, NULL);
	for (int i = 0; i < job->n; i++)
		job->out[i] = job->x[i] + job->y[i];
	free(job);
	return NULL;
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	struct kf_job *job = malloc(sizeof *job);
	if (!job)
		return 1;
	*job = (struct kf_job){ x, y, out, n };
	pthread_t t;
	if (pthread_create(&t, NULL, kf_finish_later, job) != 0) {
		free(job);
		return 1;
	}
	pthread_detach(t);
	return 0;
}
