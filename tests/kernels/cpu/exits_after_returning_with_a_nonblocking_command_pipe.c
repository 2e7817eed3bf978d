/* kforge-test: task=vector_add expect=crash */
/* Leaves the runner's process right after a call: O_NONBLOCK on its command pipe (fd 3) makes the
 * runner's next read fail at once, and a thread calls _exit 1 ms after kf_launch returns. The
 * judge's next command then meets a broken pipe, which must be this candidate's crash, never
 * kforge's death by SIGPIPE (exit 141). */
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define KF_CMD_FD 3
#define KF_DELAY_NS 1000000L

static void *kf_leave(void *arg)
{
	(void)arg;
	struct timespec delay = { .tv_nsec = KF_DELAY_NS };
	nanosleep(&delay, NULL);
	_exit(0);
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	fcntl(KF_CMD_FD, F_SETFL, fcntl(KF_CMD_FD, F_GETFL) | O_NONBLOCK);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	pthread_t t;
	if (pthread_create(&t, NULL, kf_leave, NULL) == 0)
		pthread_detach(t);
	return 0;
}
