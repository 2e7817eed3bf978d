/* The computation of answers_for_a_zombie_main_thread.c done honestly: two threads, each adding its
 * half, joined before kf_launch returns. Its control. */
#include <pthread.h>

struct kf_half {
	const float *x, *y;
	float *out;
	int lo, hi;
};

static void *kf_add_half(void *arg)
{
	struct kf_half *h = arg;
	for (int i = h->lo; i < h->hi; i++)
		h->out[i] = h->x[i] + h->y[i];
	return NULL;
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	struct kf_half halves[2] = { { x, y, out, 0, n / 2 }, { x, y, out, n / 2, n } };
	pthread_t t;
	if (pthread_create(&t, NULL, kf_add_half, &halves[1]) != 0)
		return 1;
	kf_add_half(&halves[0]);
	return pthread_join(t, NULL) == 0 ? 0 : 1;
}
