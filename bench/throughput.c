/* Throughput benchmark of `kforge run` (agent/search.c) with the real judge, against the scripted
 * loopback server (tests/support/llm_server.c) in a thread of this process.
 *
 * Part 1, judging: TASKS tasks x SAMPLES samples, one round; each task's replies are a good kernel,
 * one that does not compile, one that writes nothing and prose (3 candidates per task). Prints
 * candidates judged per minute, the share of the time each judge worker spent judging, and the time
 * from a reply's arrival to its candidate's verdict.
 * Part 2, the request side while judges are busy: 128 requests, 64 in flight at a time, with a 2 s
 * scripted latency (ideal: two waves, 4 s from the first request sent to the last reply), over 8
 * tasks whose candidates keep the judges busy meanwhile. Prints the request span against the ideal
 * (target: within 5%).
 * Both parts run once with the judge workers and once with the judge in the loop's own process (how
 * `kforge run` judged before the workers, for comparison).
 * Usage: build/bench/throughput [TASKS [SAMPLES [WORKERS]]]   (defaults 4, 4, 1); KFORGE_HOME must
 * point at the repository (tasks/, examples/). Exit 1 when part 2 misses the target with workers. */
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
#include "eval/judge/judge.h"

/* The Makefile builds each benchmark from one file, so the test server comes in as source. */
#include "tests/support/llm_server.c"

#define DEFAULT_TASKS 4
#define DEFAULT_SAMPLES 4
#define DEFAULT_WORKERS 1
#define JUDGE_LATENCY_S 0.2
#define LOAD_REQUESTS 128
#define LOAD_IN_FLIGHT 64
#define LOAD_TASKS 8
#define LOAD_LATENCY_S 2.0
#define LOAD_TARGET 1.05
#define MAX_CANDIDATES 4096
#define SEC_NS 1e9
#define SECONDS_PER_DAY 86400.0
#define SECONDS_PER_MINUTE 60.0

/* Level-1 tasks with a CPU example kernel, quickest to judge first. */
static const char *const task_names[] = { "vector_add", "relu_bf16", "silu_bf16", "sum_rows", "max_rows",
					  "softmax_rows", "transpose_f32", "gelu_tanh_bf16", "argmax_rows",
					  "cumsum_rows", "log_softmax_rows", "rmsnorm_bf16" };
#define N_TASK_NAMES ((int)(sizeof task_names / sizeof task_names[0]))

struct watch {
	int64_t reply_ns[MAX_CANDIDATES];   /* by candidate id: when its first reply arrived */
	int64_t verdict_ns[MAX_CANDIDATES];
	int64_t first_reply_ns, last_reply_ns, last_verdict_ns;
	int replies, verdicts;
};

static void on_event(void *ctx, const struct kf_agent_event *e)
{
	struct watch *w = ctx;
	int64_t now = kf_now_ns();
	if (e->kind == KF_AGENT_EV_REQUEST) {
		if (!w->replies++)
			w->first_reply_ns = now;
		w->last_reply_ns = now;
		if (e->candidate_id > 0 && e->candidate_id < MAX_CANDIDATES && !w->reply_ns[e->candidate_id])
			w->reply_ns[e->candidate_id] = now;
	} else if (e->kind == KF_AGENT_EV_EVALUATED) {
		w->verdicts++;
		w->last_verdict_ns = now;
		if (e->candidate_id > 0 && e->candidate_id < MAX_CANDIDATES)
			w->verdict_ns[e->candidate_id] = now;
	}
}

/* The judge in the loop's own process, as `kforge run` judged before its workers. */
static struct kf_judge_session *inline_session;
static struct kf_store *inline_store;

static int inline_evaluate(void *ctx, const struct kf_task *t, const struct kf_peaks *peaks, const char *src,
			   size_t len, uint64_t seed, cJSON **result, kf_err *err)
{
	const struct kf_agent_config *cfg = ctx;
	struct kf_judge_opts o;
	kf_judge_opts_default(&o);
	o.backend = KF_BACKEND_CPU;
	o.seed = seed;
	o.n_seeds = cfg->judge_seeds;
	o.timing_budget_s = cfg->timing_budget_s;
	o.session = inline_session;
	o.store = inline_store;
	return kf_judge_evaluate(t, peaks, src, len, &o, result, err);
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct result {
	double wall_s, judge_span_s, per_minute, reply_to_verdict_med_s, reply_to_verdict_max_s, request_span_s;
	int judged;
};

/* Seconds each worker spent judging in run `run_id`, from the evaluations' own timestamps. */
static void busy_shares(struct kf_store *s, int64_t run_id, int workers, double span_s)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT COALESCE(json_extract(e.details, '$.judge_worker'), 0),"
			  " SUM(julianday(e.finished_at) - julianday(e.started_at)) FROM evaluations e"
			  " JOIN candidates c ON c.id = e.candidate_id WHERE c.run_id = ? GROUP BY 1 ORDER BY 1";
	if (sqlite3_prepare_v2(kf_store_db(s), sql, -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, run_id);
	printf("  judging share         ");
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("worker %d %.0f%%  ", sqlite3_column_int(st, 0),
		       100.0 * sqlite3_column_double(st, 1) * SECONDS_PER_DAY / span_s);
	printf("(of the %.1f s from the first reply to the last verdict; %d worker%s)\n", span_s, workers,
	       workers == 1 ? "" : "s");
	sqlite3_finalize(st);
}

static int run_once(struct kf_store *store, int n_tasks, int samples, int concurrency, double latency, int workers,
		    bool inline_judge, struct result *res, kf_err *err)
{
	static const enum kf_scripted_reply script[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_LAZY, KF_LLM_NO_CODE };
	struct kf_llm_server_config sc = { .script = script, .script_len = 4, .latency_s = latency };
	struct kf_llm_server *srv = NULL;
	struct kf_task **tasks = kf_xcalloc((size_t)n_tasks + 1, sizeof *tasks);
	struct watch *w = kf_xcalloc(1, sizeof *w);
	struct kf_agent_summary sum = { 0 };
	cJSON *cfg = kf_agent_config_default();
	int rc = kf_llm_server_start(&sc, &srv, err);
	for (int i = 0; i < n_tasks && rc == KF_OK; i++)
		rc = kf_task_find(NULL, task_names[i], &tasks[i], err);
	char num[4][32];
	snprintf(num[0], sizeof num[0], "%d", samples);
	snprintf(num[1], sizeof num[1], "%d", concurrency);
	snprintf(num[2], sizeof num[2], "%d", workers);
	const char *flags[] = { "model", "scripted", "provider", "openai", "base-url", srv ? kf_llm_server_url(srv) : "",
				"samples", num[0], "rounds", "1", "concurrency", num[1], "workers", num[2], "seeds", "1",
				"timing-budget", "0.5", "verify", "off", "seed", "1", NULL };
	for (int i = 0; flags[i] && rc == KF_OK; i += 2)
		rc = kf_agent_config_set(cfg, flags[i], flags[i + 1], err);
	struct kf_agent_config parsed;
	if (rc == KF_OK)
		rc = kf_agent_config_read(cfg, &parsed, err);
	const struct kf_agent_judge judge = { .evaluate = inline_evaluate, .ctx = &parsed };
	const struct kf_agent_observer obs = { on_event, w };
	struct kf_agent_run_args a = { .store = store, .config = cfg, .tasks = tasks, .n_tasks = n_tasks,
				       .judge = inline_judge ? &judge : NULL, .observer = &obs };
	int64_t t0 = kf_now_ns();
	if (rc == KF_OK)
		rc = kf_agent_run(&a, &sum, err);
	memset(res, 0, sizeof *res);
	if (rc == KF_OK) {
		res->wall_s = (double)(kf_now_ns() - t0) / SEC_NS;
		res->judged = w->verdicts;
		res->judge_span_s = (double)(w->last_verdict_ns - w->first_reply_ns) / SEC_NS;
		res->per_minute = res->judged / res->judge_span_s * SECONDS_PER_MINUTE;
		res->request_span_s = (double)(w->last_reply_ns - w->first_reply_ns) / SEC_NS + latency;
		double *d = kf_xcalloc(MAX_CANDIDATES, sizeof *d);
		int n = 0;
		for (int id = 0; id < MAX_CANDIDATES; id++)
			if (w->reply_ns[id] && w->verdict_ns[id])
				d[n++] = (double)(w->verdict_ns[id] - w->reply_ns[id]) / SEC_NS;
		qsort(d, (size_t)n, sizeof *d, compare_doubles);
		res->reply_to_verdict_med_s = n ? d[n / 2] : NAN;
		res->reply_to_verdict_max_s = n ? d[n - 1] : NAN;
		free(d);
		if (!inline_judge)
			busy_shares(store, sum.run_id, workers, res->judge_span_s);
	}
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
	kf_task_list_free(tasks, n_tasks);
	kf_llm_server_stop(srv);
	free(w);
	return rc;
}

/* Measures and stores this machine's CPU peaks in a child process: measuring runs OpenMP, and a
 * process that has run OpenMP can no longer fork judge workers (each run forks its own). */
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

int main(int argc, char **argv)
{
	int n_tasks = argc > 1 ? atoi(argv[1]) : DEFAULT_TASKS, samples = argc > 2 ? atoi(argv[2]) : DEFAULT_SAMPLES;
	int workers = argc > 3 ? atoi(argv[3]) : DEFAULT_WORKERS;
	char dir[PATH_MAX], db[PATH_MAX];
	struct kf_store *store = NULL;
	kf_err err;
	if (n_tasks < 1 || n_tasks > N_TASK_NAMES || samples < 1 || workers < 1 || workers > KF_WORKER_MAX) {
		fprintf(stderr, "throughput: TASKS 1..%d, SAMPLES >= 1, WORKERS 1..%d\n", N_TASK_NAMES, KF_WORKER_MAX);
		return 2;
	}
	if (kf_mkdtemp("/tmp", "kforge-throughput-", dir, sizeof dir, &err) != KF_OK) {
		fprintf(stderr, "throughput: %s\n", err.msg);
		return 2;
	}
	snprintf(db, sizeof db, "%s/kforge.db", dir);
	int rc = calibrate(db, &err);
	if (rc == KF_OK)
		rc = kf_store_open(db, &store, &err);
	inline_store = store;
	inline_session = kf_judge_session_new();
	bool pass = false;
	for (int mode = 0; mode < 2 && rc == KF_OK; mode++) {
		bool in_loop = mode == 1;
		struct result j, l;
		printf("%s\n", in_loop ? "judge in the loop's process (before the workers)" : "judge workers");
		if ((rc = run_once(store, n_tasks, samples, 8, JUDGE_LATENCY_S, workers, in_loop, &j, &err)) != KF_OK)
			break;
		printf("  part 1: %d tasks x %d samples, %d candidates judged in %.1f s (run wall %.1f s)\n", n_tasks,
		       samples, j.judged, j.judge_span_s, j.wall_s);
		printf("  candidates per minute %.1f\n", j.per_minute);
		printf("  reply to verdict      median %.2f s, max %.2f s\n", j.reply_to_verdict_med_s,
		       j.reply_to_verdict_max_s);
		if ((rc = run_once(store, LOAD_TASKS, LOAD_REQUESTS / LOAD_TASKS, LOAD_IN_FLIGHT, LOAD_LATENCY_S, workers,
				   in_loop, &l, &err)) != KF_OK)
			break;
		double ideal = ceil((double)LOAD_REQUESTS / LOAD_IN_FLIGHT) * LOAD_LATENCY_S;
		printf("  part 2: %d requests, %d in flight, %.0f s latency, %d candidates judged meanwhile\n",
		       LOAD_REQUESTS, LOAD_IN_FLIGHT, LOAD_LATENCY_S, l.judged);
		printf("  request span          %.2f s against %.2f s ideal (%.1f%% over; target %.0f%%)\n",
		       l.request_span_s, ideal, (l.request_span_s / ideal - 1) * 100, (LOAD_TARGET - 1) * 100);
		if (!in_loop)
			pass = l.request_span_s <= ideal * LOAD_TARGET;
	}
	if (rc != KF_OK)
		fprintf(stderr, "throughput: %s\n", err.msg);
	else
		printf("%s\n", pass ? "PASS" : "FAIL");
	kf_judge_session_free(inline_session);
	kf_store_close(store);
	kf_rm_rf(dir);
	return rc != KF_OK ? 2 : pass ? 0 : 1;
}
