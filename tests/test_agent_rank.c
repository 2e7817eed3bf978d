/* Candidate ranking (agent/rank.c): correct before incorrect before crashed before uncompiled; among
 * correct ones the trusted first; then by SOL fraction, then the older candidate, so a resumed run
 * picks the same parents. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "agent/rank.h"

TestSuite(agent_rank);

Test(agent_rank, groups_verdicts_into_classes)
{
	cr_expect_eq(kf_rank_class("ok"), KF_CLASS_OK);
	cr_expect_eq(kf_rank_class("wrong_answer"), KF_CLASS_INCORRECT);
	cr_expect_eq(kf_rank_class("unwritten_output"), KF_CLASS_INCORRECT);
	cr_expect_eq(kf_rank_class("crash"), KF_CLASS_RUNTIME);
	cr_expect_eq(kf_rank_class("compile_error"), KF_CLASS_COMPILE);
	cr_expect_eq(kf_rank_class("faster_than_light"), KF_CLASS_REJECTED);
	cr_expect_eq(kf_rank_class("no_such_verdict"), KF_CLASS_INTERNAL);
	cr_expect_eq(kf_rank_class(NULL), KF_CLASS_INTERNAL);
}

static int cmp(const void *a, const void *b)
{
	return kf_rank_compare(a, b);
}

static void expect_order(struct kf_rank_key *k, size_t n, const int64_t *want)
{
	qsort(k, n, sizeof k[0], cmp);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(k[i].id, want[i], "position %zu: candidate %lld, expected %lld", i, (long long)k[i].id,
			     (long long)want[i]);
}

Test(agent_rank, orders_by_class_then_sol_fraction_then_age)
{
	struct kf_rank_key k[] = {
		{ KF_CLASS_COMPILE, false, NAN, 1 }, { KF_CLASS_OK, false, 0.5, 2 }, { KF_CLASS_INCORRECT, false, NAN, 3 },
		{ KF_CLASS_OK, false, 0.9, 4 },      { KF_CLASS_OK, false, 0.5, 5 }, { KF_CLASS_OK, false, NAN, 6 },
	};
	const int64_t want[] = { 4, 2, 5, 6, 3, 1 };
	expect_order(k, sizeof k / sizeof k[0], want);
}

Test(agent_rank, puts_trusted_correct_candidates_before_faster_untrusted_ones)
{
	struct kf_rank_key k[] = {
		{ KF_CLASS_OK, false, 0.9, 1 },       /* fastest, but the verifiers doubt it */
		{ KF_CLASS_OK, true, 0.3, 2 },        { KF_CLASS_OK, true, 0.6, 3 },
		{ KF_CLASS_INCORRECT, true, NAN, 4 }, /* trust never lifts a rejected candidate */
		{ KF_CLASS_OK, false, 0.5, 5 },
	};
	const int64_t want[] = { 3, 2, 1, 5, 4 };
	expect_order(k, sizeof k / sizeof k[0], want);
}
