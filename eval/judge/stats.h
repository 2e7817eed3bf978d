/* Summary statistics of timing samples: median, mean, interquartile range, relative standard
 * error of the mean, quantiles, and whether samples fall into two modes. The judge derives all of
 * these itself from raw samples. */
#ifndef KF_STATS_H
#define KF_STATS_H

#include <stdbool.h>

struct kf_stats {
	int n;
	double median, mean, q1, q3, iqr, stddev, rse; /* same unit as the samples */
	double min, max;
};

void kf_stats_compute(const double *samples, int n, struct kf_stats *out);
/* The q-quantile (0..1) of n samples (NAN when n is 0). */
double kf_stats_quantile(const double *samples, int n, double q);

/* Two modes in a set of samples: the widest gap between consecutive sorted samples that leaves at
 * least KF_MODE_MIN_SHARE of them on each side, when it is wide (KF_MODE_MIN_GAP of the median)
 * and the two groups' medians lie more than KF_MODE_MIN_SPLIT apart. Needs KF_MODE_MIN_SAMPLES. */
#define KF_MODE_MIN_SAMPLES 30
#define KF_MODE_MIN_SHARE 0.10
#define KF_MODE_MIN_GAP 0.02
#define KF_MODE_MIN_SPLIT 0.05
struct kf_modes {
	double low_median, high_median; /* same unit as the samples */
	int low_n, high_n;
};
bool kf_stats_bimodal(const double *samples, int n, struct kf_modes *out);

#endif
