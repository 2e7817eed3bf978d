/* Answers every call correctly, but only after 0.9 s of sleep (no CPU): each call stays inside a
 * 1 s call timeout, so only a deadline on the whole evaluation ends it in reasonable time. */
#include <time.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	struct timespec late = { 0, 900000000L };
	nanosleep(&late, NULL);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
