/* The GPU fill kernel's int branch (eval/judge/gpu/cuda_kernels.cu) draws integers exactly in [lo, hi]
 * over the whole int32 range, as the host does (tests/test_tensor.c): no float on the way. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "eval/judge/area.h"
#include "tests/support/corpus.h"

#define DRAWS (1 << 22)

/* DRAWS values of [lo, hi] drawn on device 0, copied back; the caller frees them. */
static int32_t *draw_on_gpu(int64_t lo, int64_t hi, uint64_t seed)
{
	kf_corpus_require_gpu();
	const struct kf_area_ops *ops;
	kf_err err;
	cr_assert_eq(kf_area_ops_for(KF_BACKEND_CUDA, &ops, &err), KF_OK, "%s", err.msg);
	struct kf_area *a;
	cr_assert_eq(ops->create(sizeof(int32_t) * DRAWS, 0, &a, &err), KF_OK, "%s", err.msg);
	cr_assert_not_null(ops->fill, "the CUDA area draws its inputs on the device");
	struct kf_dist d = { .kind = KF_DIST_INT, .a = (double)lo, .b = (double)hi };
	cr_assert_eq(ops->fill(a, 0, KF_DTYPE_I32, DRAWS, &d, seed, &err), KF_OK, "%s", err.msg);
	int32_t *v = malloc(sizeof *v * DRAWS);
	cr_assert_not_null(v);
	cr_assert_eq(ops->download(a, 0, v, sizeof *v * DRAWS, &err), KF_OK, "%s", err.msg);
	ops->destroy(a);
	return v;
}

Test(gpu_fill, int_draws_just_above_float_precision_stay_in_range_and_hit_every_value)
{
	const int64_t lo = (1 << 24) + 1, hi = (1 << 24) + 3;
	int32_t *v = draw_on_gpu(lo, hi, 1);
	int64_t count[3] = { 0 };
	for (int i = 0; i < DRAWS; i++) {
		cr_assert(v[i] >= lo && v[i] <= hi, "draw %d = %d outside [%lld, %lld]", i, v[i], (long long)lo,
			  (long long)hi);
		count[v[i] - lo]++;
	}
	for (int k = 0; k < 3; k++)
		cr_expect(llabs(count[k] - DRAWS / 3) < DRAWS / 100, "value %lld drawn %lld times", (long long)(lo + k),
			  (long long)count[k]);
	free(v);
}

Test(gpu_fill, int_draws_over_the_whole_int32_range_reach_both_ends_at_full_resolution)
{
	int32_t *v = draw_on_gpu(INT32_MIN, INT32_MAX, 2);
	int32_t lowest = INT32_MAX, highest = INT32_MIN;
	int odd = 0;
	for (int i = 0; i < DRAWS; i++) {
		lowest = v[i] < lowest ? v[i] : lowest;
		highest = v[i] > highest ? v[i] : highest;
		odd += v[i] & 1;
	}
	/* 2^22 uniform draws over 2^32 values: the extremes lie within about 2^11 of the ends. */
	cr_expect_lt(lowest, INT32_MIN + (1 << 16), "lowest %d", lowest);
	cr_expect_gt(highest, INT32_MAX - (1 << 16), "highest %d", highest);
	cr_expect(abs(odd - DRAWS / 2) < DRAWS / 100, "%d odd of %d (a float keeps only multiples of 256 up there)",
		  odd, DRAWS);
	free(v);
}

Test(gpu_fill, int_draws_hit_the_extreme_bounds_themselves)
{
	int32_t *top = draw_on_gpu((int64_t)INT32_MAX - 1, INT32_MAX, 3);
	int32_t *bottom = draw_on_gpu(INT32_MIN, (int64_t)INT32_MIN + 1, 4);
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
