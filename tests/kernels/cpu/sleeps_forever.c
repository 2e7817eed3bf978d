/* kforge-test: task=vector_add expect=timeout */
/* Hangs without using any CPU: only a wall-clock watchdog can end it. */
#include <time.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	struct timespec hour = { .tv_sec = 3600 };
	for (;;)
		nanosleep(&hour, NULL);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
