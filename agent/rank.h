/* How the agent orders a task's candidates (DESIGN.md §9-§10): by the judge's verdict first,
 * grouped into classes from "correct" down to "never compiled"; among correct ones, those the
 * weak-verifier ranking trusts (eval/rank/rank.h: P(correct) >= theta) first; then by SOL fraction,
 * then by age (the earlier candidate wins a tie, so the order is the same when a run is resumed). */
#ifndef KF_RANK_H
#define KF_RANK_H

#include <stdbool.h>
#include <stdint.h>

enum kf_verdict_class {
	KF_CLASS_OK,        /* ok */
	KF_CLASS_INCORRECT, /* ran, wrong outputs: wrong_answer, trivial_output, unwritten_output, ... */
	KF_CLASS_RUNTIME,   /* ran, failed: runtime_error, timeout, crash, memory_limit, ... */
	KF_CLASS_COMPILE,   /* never ran: compile_error, compile_timeout, link_error */
	KF_CLASS_REJECTED,  /* refused: policy_violation, sandbox_violation, faster_than_light */
	KF_CLASS_INTERNAL,  /* internal_error or a verdict this build does not know */
};

enum kf_verdict_class kf_rank_class(const char *verdict);

struct kf_rank_key {
	enum kf_verdict_class cls;
	bool trusted;        /* the latest ranking's P(correct) >= theta (false when never ranked) */
	double sol_fraction; /* NAN when not timed */
	int64_t id;          /* candidate id */
};

/* < 0 when a ranks before b. */
int kf_rank_compare(const struct kf_rank_key *a, const struct kf_rank_key *b);

#endif
