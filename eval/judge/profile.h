/* Profiles of judged candidates (issue 21): why a correct kernel is slow, for the refinement prompt.
 * A profile comes from a SEPARATE sandboxed run of the candidate at the benchmark shape (the same
 * runner jail as the judge's), made after the verdict; nothing of it ever changes a verdict or a
 * time, and it is stored apart (the `profiles` table) and only feeds the prompt and `kforge show`.
 *
 * CPU: the judge (trusted, outside the jail) counts the runner's threads with perf_event_open
 * (task clock always; instructions, cycles, cache references and misses where the machine exposes
 * hardware counters), and the compiler's optimisation report (-fopt-info-vec) says which loops of
 * the candidate were vectorised. CUDA: the runner brings CUPTI up before its seccomp filter
 * (sandbox/profile_cuda.c) and reports the metrics of each profiled call on its output: DRAM and L2
 * throughput, SM and tensor-pipe utilisation, achieved and theoretical occupancy with its limiter,
 * warp stall reasons, shared-memory bank conflicts, and each kernel's grid in waves. Those numbers
 * come from inside the candidate's process and so are only claims: they steer the prompt, nothing
 * else. Both backends add the shares of peak bandwidth and arithmetic the judge's own time implies.
 *
 * The profile object: {"backend", "shape", "calls", "seconds", "metrics": {...}, "unavailable":
 * {what: why}, "bound": "memory"|"compute"|"sfu"|"latency", "bound_why", "key": [metric names,
 * the two or three that matter for the bound]}, or {"error": why} when the profiled run failed. */
#ifndef KF_PROFILE_H
#define KF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "db/store.h"
#include "eval/judge/sol.h"
#include "eval/tasks/task.h"

/* A unit at or above this share of its peak is what bounds the kernel; below it on every unit,
 * the kernel is latency-bound (nothing is saturated: parallelism, occupancy, dependencies). */
#define KF_PROFILE_SATURATED_PCT 60.0
/* The line the CUDA runner prints after a profiled call, followed by one JSON object. */
#define KF_PROFILE_LINE_MARK "KF_PROFILE "

struct kf_profile_opts {
	enum kf_backend backend;
	int device;
	uint64_t seed;         /* the inputs' draw */
	int calls;             /* CPU: profiled calls, after one warm-up call; CUDA: one, always */
	double call_timeout_s; /* one call (CUDA replays a call once per profiler pass) */
	double cpu_limit_s;
	size_t mem_limit_bytes;
};
void kf_profile_opts_default(struct kf_profile_opts *o);

/* Profiles one candidate that the judge passed. judge_result is that evaluation's result (its
 * time_ms places the run against the peaks). On KF_OK *profile is the object above; a candidate
 * that fails in the profiled run gets {"error": why}. Errors are kforge's own. */
int kf_profile_candidate(const struct kf_task *t, const struct kf_peaks *peaks, const char *source, size_t len,
			 const cJSON *judge_result, const struct kf_profile_opts *o, cJSON **profile, kf_err *err);

/* The pieces, exposed for tests. */
/* Counts the candidate's loops in a GCC -fopt-info-vec-optimized/-missed report into metrics:
 * "loops", "vector_loops", "vector_share", "missed_loops": [{"line", "why"}] (at most three). Only
 * lines about the candidate's own file count. Nothing is added when the report names no loop. */
void kf_profile_vector_report(const char *log, const char *file, cJSON *metrics);
/* The last KF_PROFILE_LINE_MARK object in a runner's output, or NULL. */
cJSON *kf_profile_from_output(const char *output);
/* Sets "bound", "bound_why" and "key" from the metrics (see KF_PROFILE_SATURATED_PCT). */
void kf_profile_classify(cJSON *profile);

/* The store (migration 4). put replaces; get gives NULL when there is none (free with cJSON_Delete). */
int kf_profile_put(struct kf_store *s, int64_t evaluation_id, const cJSON *profile, double seconds, kf_err *err);
int kf_profile_get(struct kf_store *s, int64_t evaluation_id, cJSON **out, kf_err *err);
/* The latest evaluation of a candidate (*evaluation_id 0 when none) and its profile (NULL when none). */
int kf_profile_latest(struct kf_store *s, int64_t candidate_id, int64_t *evaluation_id, cJSON **out, kf_err *err);
/* Adds "profile" to each evaluation of a `kforge show` record that has one. */
int kf_profile_attach(struct kf_store *s, cJSON *candidate, kf_err *err);
/* A profile for people: the bound and every metric, one per line, each line starting with indent. */
void kf_profile_print(FILE *f, const cJSON *profile, const char *indent);

#endif
