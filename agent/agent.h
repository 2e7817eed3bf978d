/* The agent (DESIGN.md §10): `kforge run`. For every task of a run it asks a model for N samples,
 * judges each extracted kernel, then for R-1 more rounds asks for refinements of the best K
 * candidates with feedback from the judge; "best" comes from the weak-verifier ranking (eval/rank/rank.h:
 * trusted correct candidates first, then SOL fraction), which also picks what the run reports. One
 * event loop drives the HTTP requests (agent/http.h) and the judge worker processes (agent/worker.h)
 * together, never waiting for a judgement; every
 * request, attempt, reply, candidate and evaluation is written to the store as it happens, so a
 * killed run resumes from the database alone.
 * This header is the whole interface the CLI uses: configuration, the judge seam, progress events
 * and the end-of-run summary. */
#ifndef KF_AGENT_H
#define KF_AGENT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "agent/http.h"
#include "agent/price.h"
#include "agent/provider.h"
#include "db/store.h"
#include "agent/record.h"
#include "agent/replay.h"
#include "agent/worker.h"
#include "eval/report/leaderboard.h"
#include "eval/rank/rank.h"
#include "eval/judge/sol.h"
#include "eval/tasks/task.h"

/* ---- configuration ----
 * A run's configuration is one JSON object (stored with the run, so --resume continues with the
 * same settings). Every key is also a `kforge run --flag` (key "budget_usd" = --budget-usd);
 * the table below is the single list of them. API keys are never part of it. */

enum kf_agent_option_type { KF_OPT_STRING, KF_OPT_CHOICE, KF_OPT_INT, KF_OPT_NUMBER };

struct kf_agent_option {
	const char *flag;     /* without dashes */
	const char *key;      /* JSON key */
	enum kf_agent_option_type type;
	double min, max;      /* KF_OPT_INT / KF_OPT_NUMBER bounds, inclusive */
	const char *choices;  /* KF_OPT_CHOICE: "a|b|c" */
	bool resume_fixed;    /* may not change when a run is resumed */
	const char *help;     /* one line for --help */
};

/* The options, terminated by an entry with flag NULL. */
const struct kf_agent_option *kf_agent_options(void);
/* The defaults ("model", "provider" and "base_url" null). Free with cJSON_Delete. */
cJSON *kf_agent_config_default(void);
/* Parses a command-line value for option `flag` into cfg; KF_EINPUT names the flag and the rule. */
int kf_agent_config_set(cJSON *cfg, const char *flag, const char *value, kf_err *err);

/* How much the run's ranking verifies (--verify). */
enum kf_agent_verify {
	KF_AGENT_VERIFY_OFF,      /* order by verdict and SOL fraction only */
	KF_AGENT_VERIFY_STANDARD, /* every weak verifier but compute-sanitizer, on correct candidates */
	KF_AGENT_VERIFY_FULL,     /* compute-sanitizer memcheck and racecheck too (CUDA; slow) */
};

struct kf_agent_config {
	enum kf_provider_kind provider;
	const char *base_url;   /* points into the JSON it was read from */
	enum kf_backend backend;
	int samples;            /* requests per task per round */
	int rounds;             /* 1 = sampling only; each further round refines the best `keep` */
	int keep;
	int concurrency;        /* requests in flight */
	struct kf_llm_params params;
	double budget_usd;      /* <= 0: none */
	int64_t budget_tokens;  /* <= 0: none */
	double max_minutes;     /* <= 0: none */
	bool price_known;
	struct kf_price price;
	struct kf_http_opts http;
	int device;             /* GPU ordinal (cuda backend) */
	int devices[KF_WORKER_MAX]; /* one judge worker each: GPU ordinals (--gpus), or zeros on the CPU */
	int n_workers;
	bool slurm;             /* --dispatch slurm: each worker is an srun job step */
	const char *partition;  /* NULL: Slurm's default */
	int gpus_per_worker;    /* Slurm, cuda backend */
	int compile_jobs;       /* compile processes ahead of the judges (--compile-jobs; 0 with Slurm) */
	bool replay;            /* a replay: every reply is stored with the run, nothing is asked */
	int judge_seeds;
	double call_timeout_s, timing_budget_s;
	double deadline_s;      /* wall limit of one whole evaluation (kf_judge_opts.deadline_s) */
	uint64_t seed;          /* judge seeds and retry jitter derive from it */
	enum kf_agent_verify verify;
	double theta;           /* trust threshold for P(correct) */
	const char *llm_judge_model; /* NULL: no LLM judge; else asked through the run's endpoint */
	/* Search strategy (docs/agent.md, "Search strategies"). */
	bool profile;           /* profile correct parents before refining them (eval/judge/profile.h) */
	double min_distance;    /* diversity of the kept: normalised source distance to each better one */
	double explore;         /* share of a refinement round's requests sampled afresh */
	double stop_at_sol;     /* a task stops once its best correct SOL fraction reaches this; 0: never */
	const char *api_key;    /* from the environment; never stored */
};

/* Reads and checks a configuration (model and base URL required; the base URL defaults to the
 * provider's). The config keeps pointers into cfg_json. */
int kf_agent_config_read(const cJSON *cfg_json, struct kf_agent_config *out, kf_err *err);

/* ---- the judge seam ----
 * Without a judge of the caller's, candidates are judged by kf_judge_evaluate in judge worker
 * processes (agent/worker.h) and verified by kf_verify_candidate in this process. A caller's judge
 * (tests) runs in this process instead: the loop calls evaluate() between HTTP polls, one candidate
 * at a time, and verify() (the weak verifiers, eval/rank/verify.h) on each correct candidate when a
 * task's round is ranked. */
struct kf_agent_judge {
	int (*evaluate)(void *ctx, const struct kf_task *t, const struct kf_peaks *peaks, const char *source,
			size_t len, uint64_t seed, cJSON **result, kf_err *err);
	kf_ranking_verify_fn verify; /* NULL: kf_verify_candidate */
	/* Profiles a correct candidate (eval/judge/profile.h's object into *profile). NULL with a
	 * caller's judge: no profiles; without one, kf_profile_candidate runs in this process. */
	int (*profile)(void *ctx, const struct kf_task *t, const struct kf_peaks *peaks, const char *source, size_t len,
		       const cJSON *judge_result, cJSON **profile, kf_err *err);
	void *ctx;
};

/* ---- progress ---- */

struct kf_agent_progress {
	int tasks_done, n_tasks;
	int requests_done, requests_planned, in_flight;
	int evaluated, ok, failed; /* candidates */
	double best_sol;           /* best SOL fraction of an ok candidate so far, NAN when none */
	int64_t tokens;
	double cost_usd;           /* NAN when the price is unknown */
};

enum kf_agent_event_kind {
	KF_AGENT_EV_REQUEST,   /* a request finished (outcome) */
	KF_AGENT_EV_ATTEMPT,   /* an HTTP attempt failed (detail; retry_in_s >= 0 when retried) */
	KF_AGENT_EV_EVALUATED, /* a candidate was judged (verdict) */
	KF_AGENT_EV_ROUND,     /* a round was planned for a task */
	KF_AGENT_EV_TASK_DONE,
	KF_AGENT_EV_RANKED,    /* the run's candidates were ranked (what: "ranked" or "failed"; detail) */
	KF_AGENT_EV_STOP,      /* the run is stopping early (detail says why) */
	KF_AGENT_EV_TICK,      /* nothing happened for a while; progress only */
};

struct kf_agent_event {
	enum kf_agent_event_kind kind;
	const char *task;      /* NULL for run-wide events */
	int round, slot;
	int64_t request_id, candidate_id;
	const char *what;      /* outcome, verdict or stop reason */
	const char *detail;
	double sol_fraction;   /* EVALUATED: NAN unless timed */
	double retry_in_s;
	int attempt, max_attempts; /* ATTEMPT: which HTTP attempt failed, of how many allowed */
	struct kf_agent_progress progress;
};

struct kf_agent_observer {
	void (*on_event)(void *ctx, const struct kf_agent_event *e);
	void *ctx;
};

/* ---- the run ---- */

struct kf_agent_task_summary {
	char task[KF_NAME_MAX];
	int requests;          /* finished (done or failed) */
	int failed_requests;   /* no usable reply */
	int no_code;           /* replies without a usable code block */
	int candidates, evaluated, ok;
	int64_t tokens_in, tokens_out;
	double cost_usd;       /* NAN when unknown */
	int64_t best_id;       /* the selected candidate (trusted correct first, then SOL); 0 when none */
	char best_verdict[32];
	double best_time_ms, best_speedup, best_sol_fraction; /* NAN when not timed */
	double best_p_correct; /* the run's latest ranking; NAN when not scored */
	bool best_trusted;
	int trusted;           /* candidates the latest ranking trusts */
};

struct kf_agent_summary {
	int64_t run_id;
	char status[16];        /* "done" | "stopped" */
	char stop_reason[128];  /* empty when done */
	char model[256], provider[16], backend[16];
	int n_tasks;
	struct kf_agent_task_summary *tasks;
	int64_t tokens_in, tokens_out;
	double cost_usd;        /* NAN when unknown */
	int requests, candidates, ok_tasks;
	int requests_planned;   /* tasks x samples x rounds */
	int requests_failed;
	int requests_unsent;    /* planned and never answered: pending, or in rounds never planned */
	int evaluated;          /* candidates with a verdict */
	/* Over every task of the run, a task without a correct kernel counting as a failure (the
	 * leaderboard's formulas, eval/report/leaderboard.h, on the run's own selection). */
	double fast_p[KF_LB_N_FAST_P];
	double pass_at_1;
	struct kf_record_failure *failures; /* the most frequent errors of failed requests */
	int n_failures;
	double wall_s;          /* of this invocation; 0 when only read back */
	/* Refinements that quoted their parent's profile, and what that cost (agent/profile_cost.h). */
	int refinements, profiled_refinements;
	double profile_bytes_mean, profile_tokens_mean;
};

struct kf_agent_run_args {
	struct kf_store *store;
	int64_t resume_id;             /* 0: a new run */
	cJSON *config;                 /* full configuration; on resume, the stored one with the caller's overrides */
	struct kf_task **tasks;        /* a new run's tasks (ignored on resume: the run's own specs are used) */
	int n_tasks;
	const char *api_key;
	const struct kf_agent_judge *judge;     /* NULL: the local judge */
	const struct kf_peaks *peaks;  /* the judge's device; NULL: this machine's, from the store */
	const struct kf_agent_observer *observer; /* may be NULL */
	volatile sig_atomic_t *stop;   /* set by a signal handler: stop soon, keep what is finished */
	const struct kf_replay *replay; /* a new run: these replies are its requests' answers (tasks
					 * ignored: the replay's own are used); nothing is asked */
};

/* Runs (or resumes) a run to its end or until a budget or *stop ends it. KF_OK with *summary
 * filled either way; errors are kforge's own or the user's (unknown run id, a resume that changes
 * the model). Free the summary with kf_agent_summary_free. */
int kf_agent_run(const struct kf_agent_run_args *a, struct kf_agent_summary *summary, kf_err *err);

/* The stored configuration of run `id` (for --resume). KF_EINPUT when there is no such run. */
int kf_agent_run_config(struct kf_store *s, int64_t id, cJSON **config, kf_err *err);
/* Summary of a run as stored. */
int kf_agent_summarize(struct kf_store *s, int64_t run_id, struct kf_agent_summary *out, kf_err *err);
void kf_agent_summary_free(struct kf_agent_summary *s);
/* Writes the selected correct kernel of each task to dir/<task>.c (or .cu); tasks without one get
 * no file. *written counts the files. */
int kf_agent_write_best(struct kf_store *s, const struct kf_agent_summary *sum, const char *dir, int *written,
			kf_err *err);

#endif
