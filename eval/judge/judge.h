/* The judge (DESIGN.md §3, §6): trusted, it draws every input, computes every expected output
 * in its own memory (fp64 oracle on small shapes, the reference kernel on large ones), runs the
 * candidate only inside a sandboxed runner, checks each call (inputs untouched, every output
 * element written, not trivial, within tolerance, not still changing after return), then times
 * candidate and reference interleaved with fresh inputs and a cache flush per iteration, verifies
 * randomly chosen timed outputs, and places the result against the speed of light. */
#ifndef KF_JUDGE_H
#define KF_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "eval/judge/sol.h"
#include "eval/tasks/task.h"

/* What a judge keeps between evaluations of one task in one process, as a run judges many
 * candidates of a task: the trusted kernels, the buffer areas and host copies, and on devices the
 * reference's and vendor baseline's runners, which stay up. A session serves one task (and one set
 * of limits) at a time and rebuilds itself when another comes; nothing of a candidate is kept. */
struct kf_judge_session;
struct kf_judge_session *kf_judge_session_new(void);
void kf_judge_session_free(struct kf_judge_session *s);

struct kf_judge_opts {
	enum kf_backend backend;
	int device;               /* GPU ordinal (cuda backend) */
	int gpus;                 /* level-4 (multi-GPU) tasks: the job's GPU count, from device on (wrapping);
				     0 = every visible GPU */
	uint64_t seed;            /* base seed; every drawn value follows from it (below KF_SEED_LIMIT) */
	int n_seeds;              /* correctness seeds */
	double call_timeout_s;    /* wall limit for one kf_launch */
	double cpu_limit_s;       /* CPU-time limit of one runner */
	size_t mem_limit_bytes;   /* memory cap of one runner */
	double timing_budget_s;   /* wall budget of the timing loop */
	int min_iters, max_iters; /* timed iterations per side */
	double target_rse;        /* stop once both sides' relative standard error is below this */
	double verify_fraction;   /* share of timed iterations whose output is fully checked */
	double deadline_s;        /* wall limit of the whole evaluation (verdict timeout past it); 0 = none */
	struct kf_store *store;   /* optional: lets measured ceilings be confirmed (kf_sol_confirm) */
	struct kf_judge_session *session; /* optional: state kept between evaluations (see above) */
	/* optional: called with each stage's name ("compile_ms", ... as in the result's phases) as it
	 * ends, on the judging thread; a progress display (kforge submit on a terminal) follows it. */
	void (*on_phase)(void *ctx, const char *phase);
	void *on_phase_ctx;
};

/* Seeds stay below 2^53 so the JSON numbers that record them hold them exactly (--seed reproduces). */
#define KF_SEED_LIMIT (1ull << 53)

void kf_judge_opts_default(struct kf_judge_opts *o);

/* Judges one candidate source. On KF_OK, *result holds the result object (see README:
 * verdict, reason, time_ms, ref_time_ms, speedup, sol_fraction, sol_score, ...); a rejected
 * candidate is still KF_OK. Errors are kforge's own (a broken reference, no disk). */
int kf_judge_evaluate(const struct kf_task *t, const struct kf_peaks *peaks, const char *source, size_t len,
		      const struct kf_judge_opts *o, cJSON **result, kf_err *err);

/* Whether expected outputs at this shape come from the fp64 oracle (small shapes) or from the
 * reference kernel (large ones). Every check that computes expected outputs uses this one rule. */
bool kf_judge_uses_oracle(const struct kf_task *t, const struct kf_shape *s);
/* The tolerance output i is held to: the task's against the oracle's exact values; twice the
 * task's against the reference kernel's, which is itself only within the task's tolerance of the
 * truth (a candidate and a reference both within tol of the truth are within 2 tol of each other). */
struct kf_tolerance kf_judge_tolerance(const struct kf_task *t, int i, bool oracle);

/* Well-posedness of a task (DESIGN.md §5): on a test shape, all-zero, constant and
 * copy-of-input outputs must fail the tolerance, and the output must change when the inputs
 * do. KF_OK when well posed; KF_EINPUT naming the problem otherwise. */
int kf_judge_check_task(const struct kf_task *t, kf_err *err);

#endif
