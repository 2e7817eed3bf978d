/* Specification of integer input draws (eval/tasks/tensor.c): values uniform in [lo, hi], both bounds
 * included, exactly, over the whole int32 range (no trip through float, whose 24 bits would round
 * large bounds and overflow at +-2^31). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "eval/tasks/tensor.h"

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

/* ---- format v2 dtypes: exact codecs (hand-computed cases), draws, poison ---- */

#include <math.h>
#include <string.h>

#include "eval/tasks/lowp.h"

Test(tensor, fp8_e4m3_rounds_to_nearest_even_and_saturates_at_448)
{
	cr_expect_eq(kf_float_to_fp8_e4m3(1.0f), 0x38);
	cr_expect_eq(kf_float_to_fp8_e4m3(1.0625f), 0x38, "tie between 1 and 1.125 goes to the even 1");
	cr_expect_eq(kf_float_to_fp8_e4m3(1.1875f), 0x3a, "tie between 1.125 and 1.25 goes to the even 1.25");
	cr_expect_eq(kf_float_to_fp8_e4m3(448.0f), 0x7e);
	cr_expect_eq(kf_float_to_fp8_e4m3(500.0f), 0x7e, "finite overflow saturates");
	cr_expect_eq(kf_float_to_fp8_e4m3(-INFINITY), 0xfe, "E4M3 has no infinity: saturates");
	cr_expect_eq(kf_float_to_fp8_e4m3(NAN) & 0x7f, 0x7f);
	cr_expect_eq(kf_float_to_fp8_e4m3(0x1p-9f), 0x01, "smallest subnormal");
	cr_expect_eq(kf_float_to_fp8_e4m3(0x1p-10f), 0x00, "half the smallest step ties to even zero");
	cr_expect_eq(kf_float_to_fp8_e4m3(0x1.8p-10f), 0x01);
	cr_expect_eq(kf_float_to_fp8_e4m3(0x1.cp-7f), 0x07, "7 steps of 2^-9: the largest subnormal");
	cr_expect_eq(kf_float_to_fp8_e4m3(0x1.ep-7f), 0x08, "7.5 steps tie to the even 8: the first normal");
	cr_expect_eq(kf_fp8_e4m3_to_float(0x7e), 448.0f);
	cr_expect_eq(kf_fp8_e4m3_to_float(0x01), 0x1p-9f);
	cr_expect_eq(kf_fp8_e4m3_to_float(0xb8), -1.0f);
	cr_expect(isnan(kf_fp8_e4m3_to_float(0xff)));
	for (int c = 0; c < 256; c++)
		if ((c & 0x7f) != 0x7f)
			cr_assert_eq(kf_float_to_fp8_e4m3(kf_fp8_e4m3_to_float((uint8_t)c)), c == 0x80 ? 0x80 : c,
				     "code %#x does not round-trip", c);
}

Test(tensor, fp8_e5m2_keeps_infinity_and_saturates_finite_overflow)
{
	cr_expect_eq(kf_float_to_fp8_e5m2(1.0f), 0x3c);
	cr_expect_eq(kf_float_to_fp8_e5m2(57344.0f), 0x7b);
	cr_expect_eq(kf_float_to_fp8_e5m2(60000.0f), 0x7b);
	cr_expect_eq(kf_float_to_fp8_e5m2(INFINITY), 0x7c);
	cr_expect_eq(kf_float_to_fp8_e5m2(0x1p-16f), 0x01);
	cr_expect_eq(kf_fp8_e5m2_to_float(0x7c), INFINITY);
	cr_expect(isnan(kf_fp8_e5m2_to_float(0x7d)));
	for (int c = 0; c < 256; c++)
		if ((c & 0x7f) <= 0x7c)
			cr_assert_eq(kf_float_to_fp8_e5m2(kf_fp8_e5m2_to_float((uint8_t)c)), c);
}

Test(tensor, fp4_e2m1_has_eight_magnitudes_ties_to_even_and_saturates_at_6)
{
	const float mags[8] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6 };
	for (int c = 0; c < 16; c++)
		cr_expect_eq(kf_fp4_e2m1_to_float((uint8_t)c), c & 8 ? -mags[c & 7] : mags[c & 7]);
	cr_expect_eq(kf_float_to_fp4_e2m1(5.0f), 0x6, "tie between 4 and 6 goes to the even 4");
	cr_expect_eq(kf_float_to_fp4_e2m1(2.5f), 0x4, "tie between 2 and 3 goes to the even 2");
	cr_expect_eq(kf_float_to_fp4_e2m1(0.25f), 0x0);
	cr_expect_eq(kf_float_to_fp4_e2m1(0.75f), 0x2);
	cr_expect_eq(kf_float_to_fp4_e2m1(-1.5f), 0xb);
	cr_expect_eq(kf_float_to_fp4_e2m1(100.0f), 0x7);
	cr_expect_eq(kf_float_to_fp4_e2m1(NAN), 0x0);
}

Test(tensor, e8m0_is_a_power_of_two_taken_at_or_below_the_value)
{
	cr_expect_eq(kf_float_to_e8m0(1.0f), 127);
	cr_expect_eq(kf_float_to_e8m0(3.0f), 128);
	cr_expect_eq(kf_float_to_e8m0(0.3f), 125);
	cr_expect_eq(kf_e8m0_to_float(127), 1.0f);
	cr_expect_eq(kf_e8m0_to_float(0), 0x1p-127f);
	cr_expect(isnan(kf_e8m0_to_float(0xff)));
}

static void fill_int(enum kf_dtype d, int64_t lo, int64_t hi, void *dst, int64_t n)
{
	struct kf_sampler *s = kf_sampler_new();
	kf_rng r;
	kf_rng_seed(&r, 7);
	struct kf_dist dist = { .kind = KF_DIST_INT, .a = (double)lo, .b = (double)hi };
	kf_tensor_fill(s, &r, &dist, d, dst, n);
	kf_sampler_free(s);
}

Test(tensor, small_and_wide_integer_dtypes_are_drawn_exactly_within_their_bounds)
{
	enum { N = 1 << 14 };
	int8_t i8[N];
	fill_int(KF_DTYPE_I8, -128, 127, i8, N);
	bool lo = false, hi = false;
	for (int i = 0; i < N; i++)
		lo |= i8[i] == -128, hi |= i8[i] == 127;
	cr_expect(lo && hi, "i8 draws reach both ends");
	uint8_t b[N];
	fill_int(KF_DTYPE_BOOL, 0, 1, b, N);
	int ones = 0;
	for (int i = 0; i < N; i++) {
		cr_assert(b[i] <= 1);
		ones += b[i];
	}
	cr_expect(ones > N / 3 && ones < 2 * N / 3);
	static int64_t i64[N];
	fill_int(KF_DTYPE_I64, -(1ll << 53), 1ll << 53, i64, N);
	bool big = false;
	for (int i = 0; i < N; i++) {
		cr_assert(i64[i] >= -(1ll << 53) && i64[i] <= 1ll << 53);
		big |= i64[i] > (1ll << 40);
	}
	cr_expect(big, "i64 draws use the whole range");
	uint8_t sc[N];
	fill_int(KF_DTYPE_E8M0, -3, 3, sc, N);
	for (int i = 0; i < N; i++) {
		double v = kf_tensor_get(KF_DTYPE_E8M0, sc, i);
		cr_assert(v >= 0.125 && v <= 8 && v == ldexp(1, ilogb(v)), "scale %g", v);
	}
}

Test(tensor, low_precision_float_draws_are_rounded_once_to_the_format)
{
	enum { N = 4096 };
	uint8_t x[N];
	struct kf_sampler *s = kf_sampler_new();
	kf_rng r;
	kf_rng_seed(&r, 3);
	struct kf_dist d = { .kind = KF_DIST_NORMAL, .a = 0, .b = 2 };
	kf_tensor_fill(s, &r, &d, KF_DTYPE_FP8_E4M3, x, N);
	int distinct = 0;
	bool seen[256] = { false };
	for (int i = 0; i < N; i++) {
		double v = kf_tensor_get(KF_DTYPE_FP8_E4M3, x, i);
		cr_assert(isfinite(v));
		cr_assert_eq(kf_float_to_fp8_e4m3((float)v), x[i] == 0x80 ? 0x80 : x[i]);
		distinct += !seen[x[i]];
		seen[x[i]] = true;
	}
	cr_expect(distinct > 64, "only %d distinct fp8 values", distinct);
	kf_tensor_fill(s, &r, &d, KF_DTYPE_FP4_E2M1X2, x, N);
	int lo_nonzero = 0, hi_nonzero = 0;
	for (int i = 0; i < N; i++)
		lo_nonzero += (x[i] & 7) != 0, hi_nonzero += (x[i] & 0x70) != 0;
	cr_expect(lo_nonzero > N / 2 && hi_nonzero > N / 2, "both nibbles carry draws");
	kf_sampler_free(s);
}

Test(tensor, poison_marks_unwritten_one_and_eight_byte_elements_where_a_pattern_is_free)
{
	uint8_t b[16];
	int64_t q[4], first;
	kf_tensor_poison(KF_DTYPE_BOOL, b, 16);
	b[3] = 1;
	cr_expect_eq(kf_tensor_count_poison(KF_DTYPE_BOOL, b, 16, &first), 15);
	cr_expect_eq(first, 0);
	cr_expect_eq(kf_tensor_count_poison(KF_DTYPE_FP8_E4M3, b, 16, &first), 15);
	cr_expect_eq(kf_tensor_count_poison(KF_DTYPE_I8, b, 16, &first), 0, "every i8 byte is a value");
	kf_tensor_poison(KF_DTYPE_I64, q, 4);
	q[0] = 5;
	cr_expect_eq(kf_tensor_count_poison(KF_DTYPE_I64, q, 4, &first), 3);
	cr_expect_eq(first, 1);
	cr_expect(isnan(kf_tensor_get(KF_DTYPE_FP8_E5M2, b, 0)), "the poison byte is NaN in fp8");
	cr_expect_eq(kf_tensor_set(KF_DTYPE_BOOL, b, 0, 3.0), 1.0);
	cr_expect_eq(kf_tensor_set(KF_DTYPE_FP8_E4M3, b, 0, 1000.0), 448.0);
}
