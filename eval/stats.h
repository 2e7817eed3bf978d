/* Summary statistics of timing samples: median, mean, interquartile range, relative standard
 * error of the mean. The judge derives all of these itself from raw samples. */
#ifndef KF_STATS_H
#define KF_STATS_H

struct kf_stats {
	int n;
	double median, mean, q1, q3, iqr, stddev, rse; /* same unit as the samples */
	double min, max;
};

void kf_stats_compute(const double *samples, int n, struct kf_stats *out);

#endif
