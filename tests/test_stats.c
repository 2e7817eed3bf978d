/* Timing statistics (eval/judge/stats.h): quantiles, and the two-mode test behind the judge's
 * re-measurement of unsteady samples (issue 16.5). */
#include <criterion/criterion.h>
#include <math.h>

#include "eval/judge/stats.h"

#define N 100

Test(stats, finds_two_modes_when_a_share_of_samples_sits_far_above_the_rest)
{
	double s[N];
	for (int i = 0; i < N; i++) /* 60 samples near 0.30 ms, 40 near 0.51 ms (the layernorm case) */
		s[i] = i < 60 ? 0.300 + 0.0001 * (i % 7) : 0.508 + 0.0002 * (i % 5);
	struct kf_modes m;
	cr_assert(kf_stats_bimodal(s, N, &m), "two clear modes were not found");
	cr_expect_eq(m.low_n, 60);
	cr_expect_eq(m.high_n, 40);
	cr_expect_float_eq(m.low_median, 0.3003, 1e-3);
	cr_expect_float_eq(m.high_median, 0.5084, 1e-3);
}

Test(stats, sees_one_mode_in_noisy_but_unimodal_samples)
{
	double s[N];
	for (int i = 0; i < N; i++) /* a smooth spread of +-5% around 1.0 */
		s[i] = 1.0 + 0.1 * ((double)((i * 37) % N) / N - 0.5);
	struct kf_modes m;
	cr_expect_not(kf_stats_bimodal(s, N, &m), "a smooth spread was called bimodal (%g / %g)", m.low_median,
		      m.high_median);
}

Test(stats, ignores_a_few_outliers_and_too_few_samples)
{
	double s[N];
	for (int i = 0; i < N; i++) /* 5% slow outliers: not a mode */
		s[i] = i < 95 ? 1.0 + 0.001 * (i % 9) : 3.0;
	struct kf_modes m;
	cr_expect_not(kf_stats_bimodal(s, N, &m), "5%% of outliers were called a mode");
	double few[] = { 1, 1, 1, 2, 2, 2 };
	cr_expect_not(kf_stats_bimodal(few, 6, &m), "six samples cannot show two modes");
}

Test(stats, interpolates_quantiles_between_order_statistics)
{
	double s[] = { 4, 1, 3, 2 };
	cr_expect_float_eq(kf_stats_quantile(s, 4, 0.5), 2.5, 1e-12);
	cr_expect_float_eq(kf_stats_quantile(s, 4, 0.9), 3.7, 1e-12);
	cr_expect(isnan(kf_stats_quantile(s, 0, 0.5)));
}
