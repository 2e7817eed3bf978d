/* Candidate ranking (agent/rank.c): correct before incorrect before crashed before uncompiled,
 * then by SOL fraction, then the older candidate, so a resumed run picks the same parents. */
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

Test(agent_rank, orders_by_class_then_sol_fraction_then_age)
{
	struct kf_rank_key k[] = {
		{ KF_CLASS_COMPILE, NAN, 1 }, { KF_CLASS_OK, 0.5, 2 },        { KF_CLASS_INCORRECT, NAN, 3 },
		{ KF_CLASS_OK, 0.9, 4 },      { KF_CLASS_OK, 0.5, 5 },        { KF_CLASS_OK, NAN, 6 },
	};
	qsort(k, sizeof k / sizeof k[0], sizeof k[0], cmp);
	const int64_t want[] = { 4, 2, 5, 6, 3, 1 };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_expect_eq(k[i].id, want[i], "position %zu: candidate %lld, expected %lld", i, (long long)k[i].id,
			     (long long)want[i]);
}
