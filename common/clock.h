/* Monotonic time in nanoseconds, the judge's own wall clock. */
#ifndef KF_CLOCK_H
#define KF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t kf_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline double kf_ns_to_ms(int64_t ns) { return (double)ns / 1e6; }

#endif
