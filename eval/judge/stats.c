/* Timing statistics (see stats.h). */
#include "eval/judge/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Linear interpolation between order statistics (the common "type 7" quantile). */
static double quantile(const double *sorted, int n, double q)
{
	double pos = q * (n - 1);
	int lo = (int)floor(pos);
	int hi = lo + 1 < n ? lo + 1 : lo;
	return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

void kf_stats_compute(const double *samples, int n, struct kf_stats *out)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	if (n <= 0)
		return;
	double *s = kf_xmalloc(sizeof *s * (size_t)n);
	memcpy(s, samples, sizeof *s * (size_t)n);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += s[i];
	out->mean = sum / n;
	double ss = 0;
	for (int i = 0; i < n; i++)
		ss += (s[i] - out->mean) * (s[i] - out->mean);
	out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	out->rse = (n > 1 && out->mean > 0) ? out->stddev / sqrt((double)n) / out->mean : INFINITY;
	out->median = quantile(s, n, 0.5);
	out->q1 = quantile(s, n, 0.25);
	out->q3 = quantile(s, n, 0.75);
	out->iqr = out->q3 - out->q1;
	out->min = s[0];
	out->max = s[n - 1];
	free(s);
}

double kf_stats_quantile(const double *samples, int n, double q)
{
	if (n <= 0)
		return NAN;
	double *s = kf_xmalloc(sizeof *s * (size_t)n);
	memcpy(s, samples, sizeof *s * (size_t)n);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	double v = quantile(s, n, q);
	free(s);
	return v;
}

bool kf_stats_bimodal(const double *samples, int n, struct kf_modes *out)
{
	memset(out, 0, sizeof *out);
	if (n < KF_MODE_MIN_SAMPLES)
		return false;
	double *s = kf_xmalloc(sizeof *s * (size_t)n);
	memcpy(s, samples, sizeof *s * (size_t)n);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	int lo = (int)ceil(KF_MODE_MIN_SHARE * n), split = -1;
	double widest = 0;
	for (int k = lo; k <= n - lo; k++) /* split before s[k]: s[0..k) and s[k..n) */
		if (s[k] - s[k - 1] > widest) {
			widest = s[k] - s[k - 1];
			split = k;
		}
	double median = quantile(s, n, 0.5);
	bool two = false;
	if (split > 0 && widest > KF_MODE_MIN_GAP * median) {
		out->low_median = quantile(s, split, 0.5);
		out->high_median = quantile(s + split, n - split, 0.5);
		out->low_n = split;
		out->high_n = n - split;
		two = out->high_median > out->low_median * (1 + KF_MODE_MIN_SPLIT);
	}
	free(s);
	return two;
}
