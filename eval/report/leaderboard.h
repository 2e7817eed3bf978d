/* kf_leaderboard: the leaderboard tables built from the store — per (source, task, backend, device) the
 * selected kernel, per source the fast_p, geometric-mean speedup, SOL and pass@k summary — split into
 * one group per (backend, device) unless merged on request. It owns the selection rule, the formulas
 * and their wording; it reads the store with its own SQL and knows nothing of output formats
 * (eval/report_*.c turn a built leaderboard into CSV, JSON, Markdown, HTML or an export directory). */
#ifndef KF_LEADERBOARD_H
#define KF_LEADERBOARD_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "db/store.h"

/* The p of fast_p (KernelBench's thresholds). */
#define KF_LB_N_FAST_P 6
extern const double kf_lb_fast_p_thresholds[KF_LB_N_FAST_P];

/* The device of an evaluation whose result names none. */
#define KF_LB_UNKNOWN_DEVICE "unknown"

/* Every formula a leaderboard uses, by name, in the words printed by --help, the reports and
 * docs/leaderboard.md (a test holds the document to this table). */
struct kf_lb_formula {
	const char *name, *text;
};
#define KF_LB_N_FORMULAS 13
extern const struct kf_lb_formula kf_lb_formulas[KF_LB_N_FORMULAS];

/* What goes into the tables. Empty lists and NULL strings filter nothing. */
struct kf_lb_query {
	const int64_t *run_ids; /* candidates of these agent runs only */
	int n_run_ids;
	const char *const *tasks; /* these task names only */
	int n_tasks;
	const char *backend; /* "cpu" | "cuda" */
	const char *device;  /* case-insensitive substring of the device name */
	bool merge;          /* pool every backend and device into one group */
};

/* One evaluated candidate: the latest evaluation of a candidate on one device. Strings are owned by
 * the leaderboard; a string that was never recorded is NULL, a number NAN. */
struct kf_lb_eval {
	int64_t submission_id, evaluation_id;
	int64_t run_id; /* 0: not part of an agent run */
	char *source;   /* the candidate's submitter: --as NAME, or model+strategy for agent runs */
	char *task, *backend, *device, *verdict, *reason;
	char *source_hash, *task_hash, *compile_key, *compiler;
	char *driver_version, *runtime_version; /* CUDA's, as "13.0" */
	double time_ms, ref_time_ms, vendor_time_ms, iqr_ms, t_sol_ms, sol_fraction, sol_score;
	int64_t source_bytes;
	double p_correct; /* the latest posterior P(correct) from kforge rank; NAN when never ranked */
	bool selected; /* the selected kernel of its row */
};

/* A scope item: a task (with its backend and device; inside an unmerged group those are the group's). */
struct kf_lb_cell {
	const char *task, *backend, *device;
};

/* One (source, cell): the selected kernel's numbers, all NAN when no candidate is correct. */
struct kf_lb_row {
	const char *source, *task, *backend, *device;
	const struct kf_lb_eval *selected; /* NULL: no correct candidate */
	const char *verdict;               /* the selected kernel's, else the best seen; NULL: no candidate */
	double time_ms, ref_time_ms, vendor_time_ms, speedup, vendor_speedup, sol_fraction, sol_score;
	int n_candidates, n_correct;
};

struct kf_lb_summary {
	const char *source;
	int n_tasks;   /* cells in scope */
	int n_correct; /* cells whose selected kernel is correct */
	double fast_p[KF_LB_N_FAST_P];
	double geomean_speedup, mean_sol_fraction, mean_sol_score; /* NAN when nothing to average */
	double pass_at_1, pass_at_k;
	int k;
	double tokens, cost_usd; /* NAN when no agent request is on record for the source */
};

struct kf_lb_strings {
	char **items; /* distinct, in byte order */
	int n;
};

struct kf_lb_group {
	char *backend, *device; /* merged: every value present, joined by ", " */
	struct kf_lb_strings compilers, driver_versions, runtime_versions;
	struct kf_lb_cell *cells; /* by task, backend, device */
	int n_cells;
	struct kf_lb_summary *summaries; /* by source */
	int n_summaries;
	/* A full grid: the row of source s and cell c is rows[s * n_cells + c] (rows by source, task). */
	struct kf_lb_row *rows;
	int n_rows;
};

/* With --run: a task of a run, which gets its rows whether or not anything of it was judged (a stopped
 * run's unsolved tasks count against it). source: the run's submitter, or its model when the run
 * recorded no candidate. */
struct kf_lb_run_task {
	int64_t run_id;
	char *source, *task, *backend;
};

struct kf_leaderboard {
	bool merged;
	struct kf_lb_eval *evals; /* every evaluated candidate in scope, by submission and evaluation id */
	int n_evals;
	struct kf_lb_run_task *run_tasks; /* every task of the --run runs in scope, by run and position */
	int n_run_tasks;
	struct kf_lb_group *groups; /* by backend, device */
	int n_groups;
};

/* Builds the tables for q. No matching evaluation is not an error: the leaderboard has no group, unless
 * q names runs with tasks: their tasks then have rows with no result (a group per backend, on device
 * KF_LB_UNKNOWN_DEVICE where none of the run's candidates was judged). */
int kf_leaderboard_build(struct kf_store *s, const struct kf_lb_query *q, struct kf_leaderboard **out, kf_err *err);
void kf_leaderboard_free(struct kf_leaderboard *lb);

/* The selection rule, in one place: among the correct candidates (verdict ok), those kforge rank trusts
 * (p_correct >= KF_RANKING_DEFAULT_THETA) first, then the lowest median time; ties by lower IQR, then
 * shorter source, then lower submission id. NULL when none is correct. */
const struct kf_lb_eval *kf_lb_select(const struct kf_lb_eval *const *cands, int n);
/* The verdict of the candidate that got furthest through the judge; NULL when n is 0. */
const char *kf_lb_best_verdict(const struct kf_lb_eval *const *cands, int n);

/* ref_time_ms / time_ms and vendor_time_ms / time_ms; NAN when either time is missing. */
double kf_lb_speedup(const struct kf_lb_eval *e);
double kf_lb_vendor_speedup(const struct kf_lb_eval *e);
/* The unbiased estimator 1 - C(n-c, k) / C(n, k); NAN unless 1 <= k <= n and 0 <= c <= n. */
double kf_lb_pass_at_k(int n, int c, int k);

#endif
