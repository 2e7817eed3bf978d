/* Throughput benchmark of `kforge run` (agent/search.c) with the real judge, against the scripted
 * loopback server (tests/support/llm_server.c). Every run is a child process of its own (a judge
 * in the loop's process starts OpenMP or a CUDA context, and a process that has either can no
 * longer fork judge workers), its server salts every code block so each sample is a source no
 * earlier run compiled (as a model's are), and all runs share one database.
 *
 * build/bench/throughput [TASKS [SAMPLES [WORKERS]]]          (defaults 4, 4, 1; the CPU)
 *   Part 1, judging: TASKS tasks x SAMPLES samples, one round; each task's replies are a good kernel,
 *   one that does not compile, one that writes nothing and prose (3 candidates per task). Prints
 *   candidates judged per minute, the share of the time each judge worker spent judging, and the
 *   time from a reply's arrival to its candidate's verdict; with the workers and the compile pool,
 *   with the workers alone (--compile-jobs 0), and with the judge in the loop's own process (how
 *   `kforge run` judged before the workers). Part 2, the request side (see --request-side), with
 *   the workers and with the judge in the loop. Exit 1 when part 2 misses its target with workers.
 * build/bench/throughput --request-side
 *   The request side while judges are busy, each figure from one run: 128 requests, 64 in flight,
 *   2 s scripted latency (ideal: two waves, 4 s from the first request sent to the last reply) over
 *   8 tasks whose candidates keep the judge busy; prints the measured span / ideal (target <= 1.05).
 *   Then the same load with one request that stalls and --stall-timeout 5: prints when it was
 *   abandoned (target: within the stall timeout + 5 s). Exit 1 when either target is missed.
 * build/bench/throughput --backend cuda --gpus N [--samples S] [--timing-budget T] [--no-serial]
 *   The GPU: the tasks with a CUDA example x S samples (default 4: two good kernels, one that does
 *   not compile, one that writes nothing, all distinct), after a warm-up run (the trusted kernels'
 *   compiles and the devices' descriptions): the judge in the loop's process (the old serial rate),
 *   one judge worker on GPU 0 with the compile pool, and N workers (one per GPU). Prints candidates
 *   per minute (over the whole run, and from the first verdict on, once the first compiles are done),
 *   each GPU's judging share, reply-to-verdict times, the judge's phases, the speed-ups (targets: 3x the
 *   serial rate on one GPU, 1.8x one GPU's rate on two, both over the whole run) and whether the 1- and
 *   N-GPU runs' leaderboards are equal: the same candidates with the same verdicts, and each task's best
 *   time within LEADERBOARD_TOLERANCE. --no-serial leaves the serial run (and its target) out, for more
 *   samples in the same time. Exit 1 when a target is missed or the leaderboards differ.
 * KFORGE_HOME must point at the repository (tasks/, examples/). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "eval/judge/judge.h"

/* The Makefile builds each benchmark from one file, so the test server comes in as source. */
#include "tests/support/llm_server.c"

#define DEFAULT_TASKS 4
#define DEFAULT_SAMPLES 4
#define DEFAULT_WORKERS 1
#define JUDGE_CONCURRENCY 8
#define JUDGE_LATENCY_S 0.2
#define CPU_TIMING_BUDGET "0.5"
#define GPU_TIMING_BUDGET "1"
#define LOAD_REQUESTS 128
#define LOAD_IN_FLIGHT 64
#define LOAD_TASKS 8
#define LOAD_LATENCY_S 2.0
#define LOAD_TARGET 1.05
#define STALLED_REQUEST 5        /* the server's 6th request stalls */
#define STALL_TIMEOUT_S 5.0
#define STALL_SLACK_S 5.0
#define GPU_TARGET_ONE 3.0       /* one GPU with the pipeline against the serial judge */
#define GPU_TARGET_TWO 1.8       /* two GPUs against one */
#define LEADERBOARD_TOLERANCE 0.15 /* relative difference of a task's best time between runs */
#define MAX_CANDIDATES 4096
#define MAX_SHARES 16
#define SEC_NS 1e9
#define SECONDS_PER_DAY 86400.0
#define SECONDS_PER_MINUTE 60.0
#define LABEL_MAX 64
/* The judge's phases (its result's "phases"), averaged per run: where a candidate's judging time goes. */
static const char *const phases[] = { "machine",     "compile",     "reference", "sandbox_start",
				      "correctness", "determinism", "runners",   "timing",
				      "stop" };
#define N_PHASES ((int)(sizeof phases / sizeof phases[0]))
/* The steps of a candidate runner's start (its result's "sandbox_start_steps", where it was not a spare):
 * which of them grows with the number of GPUs judging at once. */
static const char *const start_steps[] = { "launch", "setup", "calibrate", "load" };
#define N_START_STEPS ((int)(sizeof start_steps / sizeof start_steps[0]))

/* Level-1 tasks with a CPU example kernel, quickest to judge first. */
static const char *const cpu_tasks[] = { "vector_add", "relu_bf16", "silu_bf16", "sum_rows", "max_rows",
					 "softmax_rows", "transpose_f32", "gelu_tanh_bf16", "argmax_rows",
					 "cumsum_rows", "log_softmax_rows", "rmsnorm_bf16" };
/* Tasks with a CUDA example kernel (examples/cuda/). */
static const char *const cuda_tasks[] = { "vector_add", "softmax_rows", "layernorm_bf16", "matmul_bf16" };
#define N_CPU_TASKS ((int)(sizeof cpu_tasks / sizeof cpu_tasks[0]))
#define N_CUDA_TASKS ((int)(sizeof cuda_tasks / sizeof cuda_tasks[0]))

static const enum kf_scripted_reply cpu_script[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_LAZY, KF_LLM_NO_CODE };
static const enum kf_scripted_reply gpu_script[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_GOOD, KF_LLM_LAZY };
static const enum kf_scripted_reply good_only[] = { KF_LLM_GOOD };

/* One run. */
struct plan {
	const char *label;
	enum kf_backend backend;
	const char *const *tasks;
	int n_tasks, samples, concurrency;
	double latency_s;
	int judges;              /* --workers on the CPU, --gpus on cuda */
	int compile_jobs;        /* -1: the default (the machine's cores) */
	bool in_loop;            /* the judge in the loop's own process */
	const enum kf_scripted_reply *script;
	int script_len;
	const enum kf_llm_fault *faults;
	int n_faults;
	double stall_timeout_s;  /* 0: the default */
	const char *timing_budget;
	bool distinct;           /* every reply's code is a new source (the server salts it) */
};

/* What a run measured; written by the run's child process to its parent. */
struct result {
	int64_t run_id;
	int judged, compiled_ahead, n_shares;
	double wall_s, judge_span_s, per_minute, r2v_med_s, r2v_max_s;
	/* From the first verdict to the last: the rate once the pipeline has filled (the first compiles no
	 * longer awaited), which a long run approaches; NAN with fewer than two verdicts. */
	double filled_per_minute;
	double request_span_s;   /* first request sent to the last reply, failed attempts left out */
	double judges_busy;      /* judging time inside the request span, over the span (at most 1) */
	double stalled_s;        /* latency of the one failed attempt; NAN when none */
	bool stalled_while_judging; /* a candidate was being judged when it was abandoned */
	double share[MAX_SHARES];/* of each judge, over the first reply to the last verdict */
	double phase_ms[N_PHASES];/* mean over the run's evaluations of each judge phase (details.phases) */
	double step_ms[N_START_STEPS]; /* mean over the runners started for a candidate (details.sandbox_start_steps) */
	int started_cold;        /* evaluations whose candidate runner was not a spare */
};

struct watch {
	int64_t reply_ns[MAX_CANDIDATES];   /* by candidate id: when its first reply arrived */
	int64_t verdict_ns[MAX_CANDIDATES];
	int64_t first_reply_ns, first_verdict_ns, last_verdict_ns;
	int verdicts;
};

static void on_event(void *ctx, const struct kf_agent_event *e)
{
	struct watch *w = ctx;
	int64_t now = kf_now_ns();
	if (e->kind == KF_AGENT_EV_REQUEST) {
		if (!w->first_reply_ns)
			w->first_reply_ns = now;
		if (e->candidate_id > 0 && e->candidate_id < MAX_CANDIDATES && !w->reply_ns[e->candidate_id])
			w->reply_ns[e->candidate_id] = now;
	} else if (e->kind == KF_AGENT_EV_EVALUATED) {
		w->verdicts++;
		if (!w->first_verdict_ns)
			w->first_verdict_ns = now;
		w->last_verdict_ns = now;
		if (e->candidate_id > 0 && e->candidate_id < MAX_CANDIDATES)
			w->verdict_ns[e->candidate_id] = now;
	}
}

/* The judge in the loop's own process, as `kforge run` judged before its workers. */
struct in_loop {
	const struct plan *p;
	const struct kf_agent_config *cfg;
	struct kf_judge_session *session;
	struct kf_store *store;
};

static int in_loop_evaluate(void *ctx, const struct kf_task *t, const struct kf_peaks *peaks, const char *src,
			    size_t len, uint64_t seed, cJSON **result, kf_err *err)
{
	const struct in_loop *il = ctx;
	struct kf_judge_opts o;
	kf_judge_opts_default(&o);
	o.backend = il->p->backend;
	o.device = il->cfg->devices[0];
	o.seed = seed;
	o.n_seeds = il->cfg->judge_seeds;
	o.timing_budget_s = il->cfg->timing_budget_s;
	o.call_timeout_s = il->cfg->call_timeout_s;
	o.session = il->session;
	o.store = il->store;
	return kf_judge_evaluate(t, peaks, src, len, &o, result, err);
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double q1(struct kf_store *s, const char *sql, int64_t run_id)
{
	sqlite3_stmt *st;
	double v = NAN;
	if (sqlite3_prepare_v2(kf_store_db(s), sql, -1, &st, NULL) != SQLITE_OK)
		return v;
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

#define ATTEMPT_START "(julianday(a.finished_at) * 86400.0 - a.latency_ms / 1000.0)"
#define RUN_ATTEMPTS " FROM request_attempts a JOIN requests q ON q.id = a.request_id WHERE q.run_id = ?1"
#define RUN_EVALS " FROM evaluations e JOIN candidates c ON c.id = e.candidate_id WHERE c.run_id = ?1"

/* For each name, the mean over run id's evaluations of details.<object>.<name>_ms: a missing value is 0
 * where zero_missing (a phase an evaluation never reached took no time), else left out. */
static void mean_ms(struct kf_store *s, int64_t id, const char *object, const char *const *names, int n,
		    bool zero_missing, double *out)
{
	for (int i = 0; i < n; i++) {
		char avg[256];
		snprintf(avg, sizeof avg, "SELECT AVG(%sjson_extract(e.details, '$.%s.%s_ms')%s)" RUN_EVALS,
			 zero_missing ? "COALESCE(" : "", object, names[i], zero_missing ? ", 0)" : "");
		out[i] = q1(s, avg, id);
	}
}

/* The figures kept in the database: the request span, the stalled attempt, how busy the judges
 * were meanwhile, each judge's share and the compiles found done. */
static void from_store(struct kf_store *s, const struct plan *p, struct result *res, double span_s)
{
	int64_t id = res->run_id;
	double first = q1(s, "SELECT MIN(" ATTEMPT_START ")" RUN_ATTEMPTS " AND a.error IS NULL", id);
	double last = q1(s, "SELECT MAX(julianday(a.finished_at) * 86400.0)" RUN_ATTEMPTS " AND a.error IS NULL", id);
	res->request_span_s = last - first;
	res->stalled_s = q1(s, "SELECT a.latency_ms / 1000.0" RUN_ATTEMPTS " AND a.error IS NOT NULL", id);
	res->stalled_while_judging = q1(s, "SELECT COUNT(*)" RUN_EVALS " AND EXISTS (SELECT 1" RUN_ATTEMPTS
				       " AND a.error IS NOT NULL AND e.started_at < a.finished_at AND e.finished_at > a.finished_at)",
				       id) > 0;
	res->compiled_ahead = (int)q1(s, "SELECT COUNT(*)" RUN_EVALS " AND e.compile_cached = 1", id);
	mean_ms(s, id, "phases", phases, N_PHASES, true, res->phase_ms);
	res->started_cold = (int)q1(s, "SELECT COUNT(*)" RUN_EVALS " AND json_type(e.details, '$.sandbox_start_steps') = 'object'", id);
	mean_ms(s, id, "sandbox_start_steps", start_steps, N_START_STEPS, false, res->step_ms);
	/* Judging time inside the request span, over the span (one judge at a time counts once). */
	char sql[512];
	snprintf(sql, sizeof sql,
		 "SELECT SUM(MAX(0, MIN(julianday(e.finished_at) * 86400.0, %.6f) - MAX(julianday(e.started_at) * 86400.0, %.6f)))"
		 RUN_EVALS, last, first);
	double busy = q1(s, sql, id);
	res->judges_busy = res->request_span_s > 0 ? fmin(1, (isnan(busy) ? 0 : busy) / res->request_span_s) : NAN;
	sqlite3_stmt *st;
	const char *shares = "SELECT COALESCE(json_extract(e.details, '$.judge_worker'), 0),"
			     " SUM(julianday(e.finished_at) - julianday(e.started_at))" RUN_EVALS " GROUP BY 1 ORDER BY 1";
	res->n_shares = 0;
	if (p->in_loop || sqlite3_prepare_v2(kf_store_db(s), shares, -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int w = sqlite3_column_int(st, 0);
		if (w >= 0 && w < MAX_SHARES && w < p->judges) {
			res->share[w] = sqlite3_column_double(st, 1) * SECONDS_PER_DAY / span_s;
			res->n_shares = p->judges < MAX_SHARES ? p->judges : MAX_SHARES;
		}
	}
	sqlite3_finalize(st);
}

static int set_flags(cJSON *cfg, const char *const *flags, kf_err *err)
{
	int rc = KF_OK;
	for (int i = 0; flags[i] && rc == KF_OK; i += 2)
		rc = kf_agent_config_set(cfg, flags[i], flags[i + 1], err);
	return rc;
}

/* One run, in this process (the child's side). */
static int run_here(const char *db, const struct plan *p, const char *salt, struct result *res, kf_err *err)
{
	struct kf_llm_server_config sc = { .script = p->script, .script_len = p->script_len, .latency_s = p->latency_s,
					   .faults = p->faults, .n_faults = p->n_faults,
					   .backend = kf_backend_name(p->backend), .salt = salt };
	struct kf_llm_server *srv = NULL;
	struct kf_store *store = NULL;
	struct kf_task **tasks = kf_xcalloc((size_t)p->n_tasks + 1, sizeof *tasks);
	struct watch *w = kf_xcalloc(1, sizeof *w);
	struct kf_agent_summary sum = { 0 };
	cJSON *cfg = kf_agent_config_default();
	struct in_loop il = { .p = p };
	int rc = kf_store_open(db, &store, err);
	if (rc == KF_OK)
		rc = kf_llm_server_start(&sc, &srv, err);
	for (int i = 0; i < p->n_tasks && rc == KF_OK; i++)
		rc = kf_task_find(NULL, p->tasks[i], &tasks[i], err);
	char num[5][32];
	snprintf(num[0], sizeof num[0], "%d", p->samples);
	snprintf(num[1], sizeof num[1], "%d", p->concurrency);
	snprintf(num[2], sizeof num[2], "%d", p->judges);
	snprintf(num[3], sizeof num[3], "%d", p->compile_jobs);
	snprintf(num[4], sizeof num[4], "%g", p->stall_timeout_s);
	const char *flags[] = { "model", "scripted", "provider", "openai", "base-url", srv ? kf_llm_server_url(srv) : "",
				"backend", kf_backend_name(p->backend), "samples", num[0], "rounds", "1", "concurrency",
				num[1], p->backend == KF_BACKEND_CPU ? "workers" : "gpus", num[2], "seeds", "1",
				"timing-budget", p->timing_budget, "verify", "off", "seed", "1", NULL };
	const char *jobs[] = { "compile-jobs", num[3], NULL }, *stall[] = { "stall-timeout", num[4], NULL };
	if (rc == KF_OK)
		rc = set_flags(cfg, flags, err);
	if (rc == KF_OK && p->compile_jobs >= 0)
		rc = set_flags(cfg, jobs, err);
	if (rc == KF_OK && p->stall_timeout_s > 0)
		rc = set_flags(cfg, stall, err);
	struct kf_agent_config parsed;
	if (rc == KF_OK)
		rc = kf_agent_config_read(cfg, &parsed, err);
	il.cfg = &parsed;
	il.store = store;
	il.session = p->in_loop ? kf_judge_session_new() : NULL;
	const struct kf_agent_judge judge = { .evaluate = in_loop_evaluate, .ctx = &il };
	const struct kf_agent_observer obs = { on_event, w };
	struct kf_agent_run_args a = { .store = store, .config = cfg, .tasks = tasks, .n_tasks = p->n_tasks,
				       .judge = p->in_loop ? &judge : NULL, .observer = &obs };
	int64_t t0 = kf_now_ns();
	if (rc == KF_OK)
		rc = kf_agent_run(&a, &sum, err);
	memset(res, 0, sizeof *res);
	if (rc == KF_OK) {
		res->run_id = sum.run_id;
		res->wall_s = (double)(kf_now_ns() - t0) / SEC_NS;
		res->judged = w->verdicts;
		res->judge_span_s = (double)(w->last_verdict_ns - w->first_reply_ns) / SEC_NS;
		res->per_minute = res->judged / res->judge_span_s * SECONDS_PER_MINUTE;
		double filled_s = (double)(w->last_verdict_ns - w->first_verdict_ns) / SEC_NS;
		res->filled_per_minute = res->judged > 1 && filled_s > 0 ? (res->judged - 1) / filled_s * SECONDS_PER_MINUTE : NAN;
		double *d = kf_xcalloc(MAX_CANDIDATES, sizeof *d);
		int n = 0;
		for (int id = 0; id < MAX_CANDIDATES; id++)
			if (w->reply_ns[id] && w->verdict_ns[id])
				d[n++] = (double)(w->verdict_ns[id] - w->reply_ns[id]) / SEC_NS;
		qsort(d, (size_t)n, sizeof *d, compare_doubles);
		res->r2v_med_s = n ? d[n / 2] : NAN;
		res->r2v_max_s = n ? d[n - 1] : NAN;
		free(d);
		from_store(store, p, res, res->judge_span_s);
	}
	kf_judge_session_free(il.session);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
	kf_task_list_free(tasks, p->n_tasks);
	kf_llm_server_stop(srv);
	kf_store_close(store);
	free(w);
	return rc;
}

/* One run in a child process of its own; its result comes back over a pipe. */
static int run_child(const char *db, const struct plan *p, struct result *res, kf_err *err)
{
	static int runs;
	char salt[LABEL_MAX + 96];
	snprintf(salt, sizeof salt, "throughput %ld.%lld run %d (%s)", (long)getpid(), (long long)kf_now_ns(), ++runs,
		 p->label);
	const char *salted = p->distinct ? salt : NULL;
	int fds[2];
	if (pipe(fds) != 0)
		return kf_errno(err, KF_EINTERNAL, "pipe");
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return kf_errno(err, KF_EINTERNAL, "fork");
	if (pid == 0) {
		close(fds[0]);
		struct result r;
		kf_err e = { 0 };
		int rc = run_here(db, p, salted, &r, &e);
		if (rc != KF_OK)
			fprintf(stderr, "throughput: %s: %s\n", p->label, e.msg);
		bool ok = rc == KF_OK && write(fds[1], &r, sizeof r) == (ssize_t)sizeof r;
		_exit(ok ? 0 : 1);
	}
	close(fds[1]);
	ssize_t got = 0;
	for (ssize_t k; got < (ssize_t)sizeof *res; got += k) {
		k = read(fds[0], (char *)res + got, sizeof *res - (size_t)got);
		if (k < 0 && errno == EINTR)
			k = 0;
		else if (k <= 0)
			break;
	}
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof *res || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return kf_errf(err, KF_EINTERNAL, "the run '%s' failed", p->label);
	return KF_OK;
}

static void print_judging(const struct plan *p, const struct result *r)
{
	printf("  %s: %d tasks x %d samples, %d candidates judged in %.1f s (run wall %.1f s)\n", p->label, p->n_tasks,
	       p->samples, r->judged, r->judge_span_s, r->wall_s);
	printf("    candidates per minute %.1f (%.1f from the first verdict on)\n", r->per_minute, r->filled_per_minute);
	printf("    reply to verdict      median %.2f s, max %.2f s\n", r->r2v_med_s, r->r2v_max_s);
	printf("    compiled ahead        %d of %d (the judge found the compile done)\n", r->compiled_ahead, r->judged);
	printf("    judge phases, mean ms");
	for (int i = 0; i < N_PHASES; i++)
		printf(" %s %.0f", phases[i], r->phase_ms[i]);
	printf("\n");
	if (r->started_cold) {
		printf("    runner start, mean ms");
		for (int i = 0; i < N_START_STEPS; i++)
			printf(" %s %.1f", start_steps[i], r->step_ms[i]);
		printf(" (the %d candidates whose runner was not started ahead)\n", r->started_cold);
	}
	if (!r->n_shares)
		return;
	printf("    judging share        ");
	for (int i = 0; i < r->n_shares; i++)
		printf(" %s %d %.0f%%", p->backend == KF_BACKEND_CPU ? "worker" : "GPU", i, 100 * r->share[i]);
	printf("  (of the %.1f s from the first reply to the last verdict)\n", r->judge_span_s);
}

/* The request side, 64 in flight at 2 s while judges work; the ratio to the ideal span. */
static double print_request_side(const struct plan *p, const struct result *r)
{
	double ideal = ceil((double)LOAD_REQUESTS / LOAD_IN_FLIGHT) * LOAD_LATENCY_S;
	double ratio = r->request_span_s / ideal;
	printf("  %s: %d requests, %d in flight, %.0f s latency; %d candidates judged, judging %.0f%% of the requests' span\n",
	       p->label, LOAD_REQUESTS, LOAD_IN_FLIGHT, LOAD_LATENCY_S, r->judged, 100 * r->judges_busy);
	printf("    request span          %.2f s against %.2f s ideal: ratio %.3f (target <= %.2f)\n", r->request_span_s,
	       ideal, ratio, LOAD_TARGET);
	return ratio;
}

static struct plan load_plan(const char *label, int judges, bool in_loop)
{
	return (struct plan){ .label = label, .backend = KF_BACKEND_CPU, .tasks = cpu_tasks, .n_tasks = LOAD_TASKS,
			      .samples = LOAD_REQUESTS / LOAD_TASKS, .concurrency = LOAD_IN_FLIGHT,
			      .latency_s = LOAD_LATENCY_S, .judges = judges, .compile_jobs = -1, .in_loop = in_loop,
			      .script = cpu_script, .script_len = 4, .timing_budget = CPU_TIMING_BUDGET };
}

/* Measures and stores this machine's CPU peaks in a child process: measuring runs OpenMP. */
static int calibrate(const char *db, kf_err *err)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return kf_errno(err, KF_EINTERNAL, "fork");
	if (pid == 0) {
		struct kf_store *s = NULL;
		struct kf_peaks p = { 0 };
		kf_err e;
		int rc = kf_store_open(db, &s, &e);
		if (rc == KF_OK)
			rc = kf_sol_peaks(s, KF_BACKEND_CPU, 0, &p, &e);
		kf_sol_peaks_free(&p);
		kf_store_close(s);
		_exit(rc == KF_OK ? 0 : 1);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return kf_errf(err, KF_EINTERNAL, "measuring the CPU's peaks failed");
	return KF_OK;
}

static int bench_cpu(const char *db, int n_tasks, int samples, int workers, bool *pass, kf_err *err)
{
	const struct plan base = { .backend = KF_BACKEND_CPU, .tasks = cpu_tasks, .n_tasks = n_tasks, .samples = samples,
				   .concurrency = JUDGE_CONCURRENCY, .latency_s = JUDGE_LATENCY_S, .judges = workers,
				   .compile_jobs = -1, .script = cpu_script, .script_len = 4,
				   .timing_budget = CPU_TIMING_BUDGET, .distinct = true };
	struct plan pooled = base, alone = base, in_loop = base;
	pooled.label = "judge workers and the compile pool";
	alone.label = "judge workers, --compile-jobs 0";
	alone.compile_jobs = 0;
	in_loop.label = "judge in the loop's process (before the workers)";
	in_loop.in_loop = true;
	const struct plan *judging[] = { &pooled, &alone, &in_loop };
	struct result r[3];
	int rc = KF_OK;
	printf("part 1, judging\n");
	for (int i = 0; i < 3 && rc == KF_OK; i++)
		if ((rc = run_child(db, judging[i], &r[i], err)) == KF_OK)
			print_judging(judging[i], &r[i]);
	if (rc == KF_OK)
		printf("  speed-up over the judge in the loop: %.2fx with the compile pool, %.2fx without\n",
		       r[0].per_minute / r[2].per_minute, r[1].per_minute / r[2].per_minute);
	printf("part 2, the request side while judges are busy\n");
	struct plan lw = load_plan("judge workers", workers, false), ll = load_plan("judge in the loop", 1, true);
	struct result l;
	if (rc == KF_OK && (rc = run_child(db, &lw, &l, err)) == KF_OK)
		*pass = print_request_side(&lw, &l) <= LOAD_TARGET;
	if (rc == KF_OK && (rc = run_child(db, &ll, &l, err)) == KF_OK)
		print_request_side(&ll, &l);
	return rc;
}

static int bench_request_side(const char *db, bool *pass, kf_err *err)
{
	struct plan load = load_plan("64 in flight", DEFAULT_WORKERS, false);
	struct result r;
	int rc = run_child(db, &load, &r, err);
	if (rc != KF_OK)
		return rc;
	double ratio = print_request_side(&load, &r);
	enum kf_llm_fault faults[STALLED_REQUEST + 1] = { 0 };
	faults[STALLED_REQUEST] = KF_LLM_FAULT_STALL;
	struct plan stalled = load_plan("64 in flight, one stalls", DEFAULT_WORKERS, false);
	stalled.faults = faults;
	stalled.n_faults = STALLED_REQUEST + 1;
	stalled.stall_timeout_s = STALL_TIMEOUT_S;
	if ((rc = run_child(db, &stalled, &r, err)) != KF_OK)
		return rc;
	printf("  %s: --stall-timeout %.0f; %d candidates judged, judging %.0f%% of the requests' span\n",
	       stalled.label, STALL_TIMEOUT_S, r.judged, 100 * r.judges_busy);
	printf("    stall detected after  %.2f s (target <= %.0f s: the stall timeout + %.0f s), %s\n", r.stalled_s,
	       STALL_TIMEOUT_S + STALL_SLACK_S, STALL_SLACK_S,
	       r.stalled_while_judging ? "while a candidate was judged" : "with no candidate being judged");
	*pass = ratio <= LOAD_TARGET && r.stalled_s <= STALL_TIMEOUT_S + STALL_SLACK_S;
	return KF_OK;
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run `id`'s candidates as sorted "task verdict source" lines, the source as a hash of its text
 * after the salt's line, so two runs of the same replies compare. */
static char *leaderboard(struct kf_store *s, int64_t id)
{
	sqlite3_stmt *st;
	char **lines = kf_xcalloc(MAX_CANDIDATES, sizeof *lines);
	int n = 0;
	const char *sql = "SELECT c.task, e.verdict, substr(c.source, instr(c.source, char(10)) + 1)" RUN_EVALS;
	if (sqlite3_prepare_v2(kf_store_db(s), sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		while (n < MAX_CANDIDATES && sqlite3_step(st) == SQLITE_ROW) {
			const char *body = (const char *)sqlite3_column_text(st, 2);
			char hash[KF_SHA256_HEX_LEN];
			kf_sha256_hex(body, strlen(body), hash);
			kf_buf b = KF_BUF_INIT;
			kf_buf_addf(&b, "%s %s %.12s", (const char *)sqlite3_column_text(st, 0),
				    (const char *)sqlite3_column_text(st, 1), hash);
			lines[n++] = kf_buf_detach(&b);
		}
		sqlite3_finalize(st);
	}
	qsort(lines, (size_t)n, sizeof *lines, compare_lines);
	kf_buf out = KF_BUF_INIT;
	kf_buf_adds(&out, "");
	for (int i = 0; i < n; i++) {
		kf_buf_addf(&out, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	return kf_buf_detach(&out);
}

/* The largest relative difference between two runs' best time of a task; NAN when a task has a
 * best time in one run only. */
static double best_time_spread(struct kf_store *s, int64_t a, int64_t b)
{
	char sql[1024];
	snprintf(sql, sizeof sql,
		 "WITH best AS (SELECT c.run_id AS run, c.task AS task, e.time_ms AS t, ROW_NUMBER() OVER"
		 " (PARTITION BY c.run_id, c.task ORDER BY e.sol_fraction DESC) AS k FROM evaluations e JOIN candidates c"
		 " ON c.id = e.candidate_id WHERE c.run_id IN (?1, %lld) AND e.verdict = 'ok')"
		 " SELECT CASE WHEN COUNT(y.t) < COUNT(*) THEN NULL ELSE MAX(ABS(x.t - y.t) / x.t) END"
		 " FROM best x LEFT JOIN best y ON y.task = x.task AND y.run = %lld AND y.k = 1 WHERE x.run = ?1 AND x.k = 1",
		 (long long)b, (long long)b);
	return q1(s, sql, a);
}

static int bench_gpu(const char *db, int gpus, int samples, const char *timing_budget, bool with_serial, bool *pass,
		     kf_err *err)
{
	const struct plan base = { .backend = KF_BACKEND_CUDA, .tasks = cuda_tasks, .n_tasks = N_CUDA_TASKS,
				   .samples = samples, .concurrency = JUDGE_CONCURRENCY, .latency_s = JUDGE_LATENCY_S,
				   .judges = 1, .compile_jobs = -1, .script = gpu_script, .script_len = 4,
				   .timing_budget = timing_budget, .distinct = true };
	struct plan warm = base, serial = base, one = base, many = base;
	char many_label[LABEL_MAX];
	warm.label = "warm-up";
	warm.samples = 1;
	warm.judges = gpus;
	warm.script = good_only;
	warm.script_len = 1;
	serial.label = "serial: the judge in the loop's process, GPU 0";
	serial.in_loop = true;
	one.label = "1 GPU: a judge worker and the compile pool";
	snprintf(many_label, sizeof many_label, "%d GPUs: a judge worker each and the compile pool", gpus);
	many.label = many_label;
	many.judges = gpus;
	enum { SERIAL, ONE, MANY };
	struct result w, r[3];
	const struct plan *plans[] = { &serial, &one, &many };
	int rc = run_child(db, &warm, &w, err);
	if (rc == KF_OK)
		printf("warm-up: %d candidates in %.1f s (the trusted kernels compiled, the devices described)\n", w.judged,
		       w.wall_s);
	for (int i = with_serial ? SERIAL : ONE; i <= (gpus > 1 ? MANY : ONE) && rc == KF_OK; i++)
		if ((rc = run_child(db, plans[i], &r[i], err)) == KF_OK)
			print_judging(plans[i], &r[i]);
	if (rc != KF_OK)
		return rc;
	printf("candidates per minute: 1 GPU %.1f", r[ONE].per_minute);
	if (with_serial)
		printf(", serial %.1f", r[SERIAL].per_minute);
	if (gpus > 1)
		printf(", %d GPUs %.1f", gpus, r[MANY].per_minute);
	printf("\n");
	*pass = true;
	if (with_serial) {
		double up_one = r[ONE].per_minute / r[SERIAL].per_minute;
		printf("1 GPU against serial: %.2fx (target %.1fx)\n", up_one, GPU_TARGET_ONE);
		*pass = up_one >= GPU_TARGET_ONE;
	}
	if (gpus == 1)
		return KF_OK;
	double up_many = r[MANY].per_minute / r[ONE].per_minute;
	printf("%d GPUs against 1 GPU: %.2fx (target %.1fx); from the first verdict on: %.2fx\n", gpus, up_many,
	       GPU_TARGET_TWO, r[MANY].filled_per_minute / r[ONE].filled_per_minute);
	struct kf_store *s = NULL;
	if ((rc = kf_store_open(db, &s, err)) != KF_OK)
		return rc;
	char *a = leaderboard(s, r[ONE].run_id), *b = leaderboard(s, r[MANY].run_id);
	double spread = best_time_spread(s, r[ONE].run_id, r[MANY].run_id);
	bool same = !strcmp(a, b) && a[0], close_enough = !isnan(spread) && spread <= LEADERBOARD_TOLERANCE;
	printf("leaderboard 1 GPU vs %d GPUs: %s (candidates and verdicts %s; each task's best time within %.0f%%: %s, largest difference %.1f%%)\n",
	       gpus, same && close_enough ? "equal" : "DIFFERENT", same ? "the same" : "differ", 100 * LEADERBOARD_TOLERANCE,
	       close_enough ? "yes" : "no", 100 * spread);
	if (!same)
		printf("1 GPU:\n%s%d GPUs:\n%s", a, gpus, b);
	*pass = *pass && up_many >= GPU_TARGET_TWO && same && close_enough;
	free(a);
	free(b);
	kf_store_close(s);
	return KF_OK;
}

static int usage(void)
{
	fprintf(stderr, "usage: throughput [TASKS [SAMPLES [WORKERS]]]   (the CPU; TASKS 1..%d)\n"
			"       throughput --request-side\n"
			"       throughput --backend cuda --gpus N [--samples S] [--timing-budget T] [--no-serial]\n",
		N_CPU_TASKS);
	return 2;
}

int main(int argc, char **argv)
{
	enum { CPU, REQUEST_SIDE, GPU } mode = CPU;
	int n_tasks = DEFAULT_TASKS, samples = DEFAULT_SAMPLES, workers = DEFAULT_WORKERS, gpus = 0;
	bool with_serial = true;
	const char *timing_budget = GPU_TIMING_BUDGET;
	if (argc > 1 && !strcmp(argv[1], "--request-side")) {
		if (argc != 2)
			return usage();
		mode = REQUEST_SIDE;
	} else if (argc > 1 && argv[1][0] == '-') {
		mode = GPU;
		for (int i = 1; i < argc; i += 2) {
			if (!strcmp(argv[i], "--no-serial")) {
				with_serial = false;
				i--;
				continue;
			}
			if (i + 1 >= argc)
				return usage();
			if (!strcmp(argv[i], "--backend") && strcmp(argv[i + 1], "cuda"))
				return usage();
			else if (!strcmp(argv[i], "--gpus"))
				gpus = atoi(argv[i + 1]);
			else if (!strcmp(argv[i], "--samples"))
				samples = atoi(argv[i + 1]);
			else if (!strcmp(argv[i], "--timing-budget"))
				timing_budget = argv[i + 1];
			else if (strcmp(argv[i], "--backend"))
				return usage();
		}
		if (gpus < 1 || gpus > MAX_SHARES || samples < 1)
			return usage();
	} else {
		n_tasks = argc > 1 ? atoi(argv[1]) : DEFAULT_TASKS;
		samples = argc > 2 ? atoi(argv[2]) : DEFAULT_SAMPLES;
		workers = argc > 3 ? atoi(argv[3]) : DEFAULT_WORKERS;
		if (n_tasks < 1 || n_tasks > N_CPU_TASKS || samples < 1 || workers < 1 || workers > MAX_SHARES)
			return usage();
	}
	char dir[PATH_MAX], db[PATH_MAX];
	kf_err err;
	if (kf_mkdtemp("/tmp", "kforge-throughput-", dir, sizeof dir, &err) != KF_OK) {
		fprintf(stderr, "throughput: %s\n", err.msg);
		return 2;
	}
	snprintf(db, sizeof db, "%s/kforge.db", dir);
	bool pass = false;
	int rc = mode == GPU ? KF_OK : calibrate(db, &err);
	if (rc == KF_OK && mode == CPU)
		rc = bench_cpu(db, n_tasks, samples, workers, &pass, &err);
	else if (rc == KF_OK && mode == REQUEST_SIDE)
		rc = bench_request_side(db, &pass, &err);
	else if (rc == KF_OK)
		rc = bench_gpu(db, gpus, samples, timing_budget, with_serial, &pass, &err);
	if (rc != KF_OK)
		fprintf(stderr, "throughput: %s\n", err.msg);
	else
		printf("%s\n", pass ? "PASS" : "FAIL");
	kf_rm_rf(dir);
	return rc != KF_OK ? 2 : pass ? 0 : 1;
}
