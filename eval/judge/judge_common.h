/* What the one-GPU judge (judge.c) and the multi-GPU judge (multi.c) share (judge_common.c): the
 * fields every evaluation's result record carries whichever judge wrote it (task, compile, speed,
 * verdict, worst errors), the first failure's verdict and reason, warnings, the candidate's compile,
 * the worst-error tally, the trials' seeds, the canaries' byte and the evaluation's deadline. Also
 * used by the verifiers (eval/rank/verify.c) and the profiler (profile.c), which compile a candidate
 * as the judge does. */
#ifndef KF_JUDGE_COMMON_H
#define KF_JUDGE_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "eval/judge/compare.h"
#include "eval/judge/judge.h"
#include "eval/judge/sol.h"
#include "sandbox/sandbox.h"

/* Bytes of one warning's text, at most. */
#define KF_JUDGE_WARNING_MAX 1024

/* Sets *verdict to v and reason (reason_len bytes) from fmt unless a verdict other than ok is already
 * set: the first failure is the one reported. True when it set them. */
bool kf_judge_vreject(enum kf_verdict *verdict, char *reason, size_t reason_len, enum kf_verdict v, const char *fmt,
		      va_list ap) __attribute__((format(printf, 5, 0)));

/* Appends one warning, formatted from fmt, to the warnings array. */
void kf_judge_vwarn(cJSON *warnings, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Compiles a candidate as the judge does: the task's ABI header and shim for backend b, the vendor
 * libraries where the task allows them, for device's architecture; report_flags (NULL-terminated,
 * or NULL) add the compiler's report. A candidate that does not build is res->verdict, not an error. */
int kf_judge_compile(const struct kf_task *t, enum kf_backend b, int device, const char *source, size_t len,
		     const char *const *report_flags, struct kf_compile_res *res, kf_err *err);

/* The worst errors an evaluation saw, over every output compared. */
struct kf_judge_worst {
	double max_abs, max_rel, max_margin;
};

/* Folds one comparison into the tally. */
void kf_judge_note_error(struct kf_judge_worst *w, const struct kf_cmp *c);

/* Trial k's seed from the evaluation's base seed: far apart for neighbouring k. */
uint64_t kf_judge_trial_seed(uint64_t base, int k);

/* The canaries' byte of one evaluation, drawn fresh so a candidate cannot learn it. */
uint8_t kf_judge_canary_byte(void);

/* kf_now_ns() past which an evaluation started at now ends with timeout; 0 when o sets none. */
int64_t kf_judge_deadline_ns(const struct kf_judge_opts *o, int64_t now);

/* The record's opening fields: task, task_hash, backend, kforge_version, seed. */
void kf_judge_result_head(cJSON *res, const struct kf_task *t, enum kf_backend b, uint64_t seed);

/* The record's "compile" object. */
void kf_judge_result_compile(cJSON *res, const struct kf_compile_res *c);

/* The speed fields after the medians: speedup, t_sol_ms, sol_fraction, sol_score (when finite), bound. */
void kf_judge_result_speed(cJSON *res, double t_ms, double ref_ms, double t_sol_ms, enum kf_sol_bound bound);

/* The record's closing fields: the verdict and its reason, the timing fields (null unless the verdict
 * is ok or faster than light), the worst errors, and the trials, warnings and phases, which res takes
 * over (the pointers are cleared). */
void kf_judge_result_finish(cJSON *res, enum kf_verdict v, const char *reason, const struct kf_judge_worst *w,
			    cJSON **trials, cJSON **warnings, cJSON **phases);

#endif
