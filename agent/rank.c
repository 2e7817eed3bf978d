/* Candidate ordering (see rank.h). */
#include "agent/rank.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static const struct {
	const char *verdict;
	enum kf_verdict_class cls;
} classes[] = {
	{ "ok", KF_CLASS_OK },
	{ "wrong_answer", KF_CLASS_INCORRECT },
	{ "trivial_output", KF_CLASS_INCORRECT },
	{ "unwritten_output", KF_CLASS_INCORRECT },
	{ "inputs_modified", KF_CLASS_INCORRECT },
	{ "nondeterministic", KF_CLASS_INCORRECT },
	{ "out_of_bounds", KF_CLASS_INCORRECT },
	{ "runtime_error", KF_CLASS_RUNTIME },
	{ "timeout", KF_CLASS_RUNTIME },
	{ "cpu_timeout", KF_CLASS_RUNTIME },
	{ "memory_limit", KF_CLASS_RUNTIME },
	{ "crash", KF_CLASS_RUNTIME },
	{ "compile_error", KF_CLASS_COMPILE },
	{ "compile_timeout", KF_CLASS_COMPILE },
	{ "link_error", KF_CLASS_COMPILE },
	{ "policy_violation", KF_CLASS_REJECTED },
	{ "sandbox_violation", KF_CLASS_REJECTED },
	{ "faster_than_light", KF_CLASS_REJECTED },
	{ "internal_error", KF_CLASS_INTERNAL },
};

enum kf_verdict_class kf_rank_class(const char *verdict)
{
	for (size_t i = 0; verdict && i < sizeof classes / sizeof classes[0]; i++)
		if (!strcmp(verdict, classes[i].verdict))
			return classes[i].cls;
	return KF_CLASS_INTERNAL;
}

int kf_rank_compare(const struct kf_rank_key *a, const struct kf_rank_key *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->trusted != b->trusted)
		return a->trusted ? -1 : 1;
	bool ta = !isnan(a->sol_fraction), tb = !isnan(b->sol_fraction);
	if (ta != tb)
		return ta ? -1 : 1;
	if (ta && a->sol_fraction != b->sol_fraction)
		return a->sol_fraction > b->sol_fraction ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}
