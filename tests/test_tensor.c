/* Specification of integer input draws (eval/tensor.c): values uniform in [lo, hi], both bounds
 * included, exactly, over the whole int32 range (no trip through float, whose 24 bits would round
 * large bounds and overflow at +-2^31). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "eval/tensor.h"

#define DRAWS (1 << 20)

static int32_t *draw(int64_t lo, int64_t hi, uint64_t seed)
{
	struct kf_sampler *s = kf_sampler_new();
	kf_rng r;
	kf_rng_seed(&r, seed);
	struct kf_dist d = { .kind = KF_DIST_INT, .a = (double)lo, .b = (double)hi };
	int32_t *v = malloc(sizeof *v * DRAWS);
	cr_assert_not_null(v);
	kf_tensor_fill(s, &r, &d, KF_DTYPE_I32, v, DRAWS);
	kf_sampler_free(s);
	return v;
}

Test(tensor, int_draws_just_above_float_precision_stay_in_range_and_hit_every_value)
{
	const int64_t lo = (1 << 24) + 1, hi = (1 << 24) + 3;
	int32_t *v = draw(lo, hi, 1);
	int64_t count[3] = { 0 };
	for (int i = 0; i < DRAWS; i++) {
		cr_assert(v[i] >= lo && v[i] <= hi, "draw %d = %d outside [%lld, %lld]", i, v[i], (long long)lo,
			  (long long)hi);
		count[v[i] - lo]++;
	}
	/* Each value a third of the time: within 1% of DRAWS/3 (about 10 standard deviations). */
	for (int k = 0; k < 3; k++)
		cr_expect(llabs(count[k] - DRAWS / 3) < DRAWS / 100, "value %lld drawn %lld times", (long long)(lo + k),
			  (long long)count[k]);
	free(v);
}

Test(tensor, int_draws_over_the_whole_int32_range_reach_both_ends_at_full_resolution)
{
	int32_t *v = draw(INT32_MIN, INT32_MAX, 2);
	int32_t lowest = INT32_MAX, highest = INT32_MIN;
	int odd = 0, negative = 0;
	for (int i = 0; i < DRAWS; i++) {
		lowest = v[i] < lowest ? v[i] : lowest;
		highest = v[i] > highest ? v[i] : highest;
		odd += v[i] & 1;
		negative += v[i] < 0;
	}
	/* 2^20 uniform draws over 2^32 values: the extremes lie within about 2^13 of the ends. */
	cr_expect_lt(lowest, INT32_MIN + (1 << 16), "lowest %d", lowest);
	cr_expect_gt(highest, INT32_MAX - (1 << 16), "highest %d", highest);
	/* A float would have kept only multiples of 256 up there: half the draws must be odd. */
	cr_expect(abs(odd - DRAWS / 2) < DRAWS / 100, "%d odd of %d", odd, DRAWS);
	cr_expect(abs(negative - DRAWS / 2) < DRAWS / 100, "%d negative of %d", negative, DRAWS);
	free(v);
}

Test(tensor, int_draws_hit_the_extreme_bounds_themselves)
{
	int32_t *top = draw((int64_t)INT32_MAX - 1, INT32_MAX, 3), *bottom = draw(INT32_MIN, (int64_t)INT32_MIN + 1, 4);
	int top_hits[2] = { 0 }, bottom_hits[2] = { 0 };
	for (int i = 0; i < DRAWS; i++) {
		cr_assert(top[i] >= INT32_MAX - 1, "draw %d = %d", i, top[i]);
		cr_assert(bottom[i] <= INT32_MIN + 1, "draw %d = %d", i, bottom[i]);
		top_hits[top[i] == INT32_MAX]++;
		bottom_hits[bottom[i] == INT32_MIN]++;
	}
	cr_expect(top_hits[0] > 0 && top_hits[1] > 0, "INT32_MAX-1: %d, INT32_MAX: %d", top_hits[0], top_hits[1]);
	cr_expect(bottom_hits[0] > 0 && bottom_hits[1] > 0, "INT32_MIN+1: %d, INT32_MIN: %d", bottom_hits[0],
		  bottom_hits[1]);
	free(top);
	free(bottom);
}

Test(tensor, int_draws_are_reproducible_from_the_seed)
{
	int32_t *a = draw(-1000, 1000, 5), *b = draw(-1000, 1000, 5);
	cr_expect_arr_eq(a, b, sizeof *a * DRAWS);
	free(a);
	free(b);
}
