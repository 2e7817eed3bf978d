/* Leaderboard tables (see leaderboard.h): loading the evaluated candidates with one query, grouping,
 * selecting a kernel per row, and the per-source summary. The only SQL here reads; the tables of the
 * agent (requests, for tokens and cost) are optional and detected through sqlite_master. */
#include "eval/report/leaderboard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "eval/rank/rank.h"
#include "sandbox/verdict.h"

const double kf_lb_fast_p_thresholds[KF_LB_N_FAST_P] = { 0.0, 0.5, 0.8, 1.0, 1.5, 2.0 };

const struct kf_lb_formula kf_lb_formulas[KF_LB_N_FORMULAS] = {
	{ "candidates", "each candidate counts once per device, with its latest evaluation there" },
	{ "groups", "one group per (backend, device), each ranked on its own; --merge pools them all into one "
		    "group whose tasks are (task, backend, device) triples" },
	{ "tasks_in_scope", "the tasks with at least one evaluated candidate in the group (after --run and --task), "
			    "and with --run every task of the runs, judged or not; every source is scored on all of them" },
	{ "selected", "per (source, task, backend, device): among the candidates with verdict ok, those that "
		      "kforge rank trusts (latest posterior P(correct) >= 0.5) first, then the lowest median time_ms; "
		      "ties by lower IQR, then shorter source, then lower submission id" },
	{ "speedup", "ref_time_ms / time_ms (reference kernel timed interleaved in the same session)" },
	{ "vendor_speedup", "vendor_time_ms / time_ms; null without a vendor baseline" },
	{ "sol_fraction", "t_sol_ms / time_ms, with t_sol = max(FLOPs / peak FLOP rate, bytes / peak bandwidth)" },
	{ "sol_score", "1 / (1 + (time_ms - t_sol_ms) / (ref_time_ms - t_sol_ms)) (SOL-ExecBench)" },
	{ "fast_p", "(tasks in scope whose selected kernel is correct and has speedup > p) / (tasks in scope), "
		    "p in {0, 0.5, 0.8, 1, 1.5, 2}; a task with no candidate or none correct counts as a failure" },
	{ "geomean_speedup", "exp(mean of ln(speedup) over the correct selected kernels)" },
	{ "mean_sol", "mean_sol_fraction and mean_sol_score: arithmetic means over the correct selected kernels "
		      "(a null sol_score is left out)" },
	{ "pass_at_k", "mean over tasks in scope of 1 - C(n-c, k) / C(n, k), n = evaluated candidates of the task, "
		       "c = correct ones (C(n-c, k) = 0 when n-c < k; a task with n = 0 scores 0); pass@1 = mean "
		       "of c/n; k = the fewest candidates of any task the source attempted" },
	{ "tokens_cost", "sums of tokens (in + out) and cost_usd over the agent requests of the source's runs; "
			 "null for manual submissions; cost is null when a finished request has no price" },
};

/* Verdicts by how far a candidate got through the judge, best first: a verdict reached later says
 * more about the kernel. A name this build does not know ranks after all of these. */
static const enum kf_verdict progress_order[] = {
	KF_V_OK,
	/* passed correctness, failed a later check */
	KF_V_FASTER_THAN_LIGHT, KF_V_NONDETERMINISTIC,
	/* ran to the end, wrong outputs */
	KF_V_WRONG_ANSWER, KF_V_UNWRITTEN_OUTPUT, KF_V_TRIVIAL_OUTPUT, KF_V_INPUTS_MODIFIED,
	KF_V_OUT_OF_BOUNDS,
	/* ran, did not finish */
	KF_V_TIMEOUT, KF_V_CPU_TIMEOUT, KF_V_MEMORY_LIMIT, KF_V_RUNTIME_ERROR, KF_V_CRASH, KF_V_SANDBOX_VIOLATION,
	/* never ran */
	KF_V_LINK_ERROR, KF_V_COMPILE_ERROR, KF_V_COMPILE_TIMEOUT, KF_V_POLICY_VIOLATION,
	KF_V_INTERNAL_ERROR,
};
#define N_PROGRESS ((int)(sizeof progress_order / sizeof progress_order[0]))
#define VERDICT_OK "ok"

/* Latest evaluation of each candidate on each device, with the candidate's identity. The stored result
 * is parsed once per evaluation (`facts`: device, CUDA driver and runtime versions, IQR). Lists arrive
 * as JSON arrays (?1 runs, ?2 tasks) so one statement serves any number of filters. */
static const char load_sql[] =
	"WITH ev AS ("
	"  SELECT e.*, json_extract(e.details, '$.machine.device', '$.machine.driver_version',"
	"   '$.machine.runtime_version', '$.timing.candidate.iqr_ms') AS facts"
	"  FROM evaluations e),"
	" dev AS ("
	"  SELECT ev.*, COALESCE(CAST(json_extract(ev.facts, '$[0]') AS TEXT), '" KF_LB_UNKNOWN_DEVICE "') AS device"
	"  FROM ev),"
	" latest AS ("
	"  SELECT dev.*, ROW_NUMBER() OVER (PARTITION BY dev.candidate_id, dev.device ORDER BY dev.id DESC) AS rn"
	"  FROM dev)"
	" SELECT c.id, l.id, c.run_id, c.submitter, c.task, c.backend, l.device, l.verdict, l.reason,"
	"  c.source_hash, c.task_hash, l.compile_key, l.compiler,"
	"  json_extract(l.facts, '$[1]'), json_extract(l.facts, '$[2]'),"
	"  l.time_ms, l.ref_time_ms, l.vendor_time_ms, json_extract(l.facts, '$[3]'),"
	"  l.t_sol_ms, l.sol_fraction, l.sol_score, length(CAST(c.source AS BLOB)),"
	"  (SELECT p.p_correct FROM posteriors p WHERE p.evaluation_id = l.id ORDER BY p.fit_id DESC LIMIT 1)"
	" FROM latest l JOIN candidates c ON c.id = l.candidate_id"
	" WHERE l.rn = 1"
	"  AND (?1 IS NULL OR c.run_id IN (SELECT value FROM json_each(?1)))"
	"  AND (?2 IS NULL OR c.task IN (SELECT value FROM json_each(?2)))"
	"  AND (?3 IS NULL OR c.backend = ?3)"
	"  AND (?4 IS NULL OR instr(lower(l.device), lower(?4)) > 0)"
	" ORDER BY c.id, l.id";

enum load_col {
	COL_SUBMISSION, COL_EVALUATION, COL_RUN, COL_SOURCE, COL_TASK, COL_BACKEND, COL_DEVICE, COL_VERDICT,
	COL_REASON, COL_SOURCE_HASH, COL_TASK_HASH, COL_COMPILE_KEY, COL_COMPILER, COL_DRIVER, COL_RUNTIME,
	COL_TIME, COL_REF_TIME, COL_VENDOR_TIME, COL_IQR, COL_T_SOL, COL_SOL_FRACTION, COL_SOL_SCORE,
	COL_SOURCE_BYTES, COL_P_CORRECT,
};

/* The agent's request log: tokens and cost per request, keyed by run. Absent before the agent ran. */
static const char usage_table_sql[] =
	"SELECT count(*) FROM sqlite_master m, pragma_table_info(m.name) p"
	" WHERE m.type = 'table' AND m.name = 'requests'"
	"  AND p.name IN ('run_id', 'status', 'tokens_in', 'tokens_out', 'cost_usd')";
#define USAGE_COLUMNS 5
/* A cost that leaves out an unpriced request would look complete: then there is no cost at all. */
static const char usage_sql[] =
	"SELECT sum(COALESCE(tokens_in, 0) + COALESCE(tokens_out, 0)),"
	"  CASE WHEN sum(status = 'done' AND cost_usd IS NULL) > 0 THEN NULL ELSE sum(cost_usd) END"
	" FROM requests WHERE run_id IN (SELECT value FROM json_each(?1))";

/* The tasks of the --run runs (in scope of ?2 tasks and ?3 backend), each with every source that the
 * run's candidates were recorded under (the run's model when it recorded none). */
static const char run_tasks_sql[] =
	"WITH src AS (SELECT DISTINCT run_id, submitter FROM candidates"
	"  WHERE run_id IN (SELECT value FROM json_each(?1)))"
	" SELECT r.id, COALESCE(s.submitter, r.model), rt.task, r.backend"
	" FROM runs r JOIN run_tasks rt ON rt.run_id = r.id LEFT JOIN src s ON s.run_id = r.id"
	" WHERE r.id IN (SELECT value FROM json_each(?1))"
	"  AND (?2 IS NULL OR rt.task IN (SELECT value FROM json_each(?2)))"
	"  AND (?3 IS NULL OR r.backend = ?3)"
	" ORDER BY r.id, rt.position, 2";

/* CUDA reports versions as one integer, 1000 * major + 10 * minor (13000 is 13.0); a string is kept. */
#define CUDA_VERSION_MAJOR 1000
#define CUDA_VERSION_MINOR 10
#define VERSION_TEXT_MAX 32

static char *version_text(sqlite3_stmt *st, int col)
{
	char text[VERSION_TEXT_MAX];
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return kf_store_column_text(st, col);
	int64_t v = sqlite3_column_int64(st, col);
	snprintf(text, sizeof text, "%lld.%lld", (long long)(v / CUDA_VERSION_MAJOR),
		 (long long)(v % CUDA_VERSION_MAJOR / CUDA_VERSION_MINOR));
	return kf_xstrdup(text);
}

static void eval_free(struct kf_lb_eval *e)
{
	char *strings[] = { e->source,	    e->task,	    e->backend,	    e->device,	 e->verdict,
			    e->reason,	    e->source_hash, e->task_hash,   e->compile_key, e->compiler,
			    e->driver_version, e->runtime_version };
	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
		free(strings[i]);
}

static void read_eval(sqlite3_stmt *st, struct kf_lb_eval *e)
{
	e->submission_id = sqlite3_column_int64(st, COL_SUBMISSION);
	e->evaluation_id = sqlite3_column_int64(st, COL_EVALUATION);
	e->run_id = sqlite3_column_int64(st, COL_RUN); /* NULL reads as 0 */
	e->source = kf_store_column_text(st, COL_SOURCE);
	e->task = kf_store_column_text(st, COL_TASK);
	e->backend = kf_store_column_text(st, COL_BACKEND);
	e->device = kf_store_column_text(st, COL_DEVICE);
	e->verdict = kf_store_column_text(st, COL_VERDICT);
	e->reason = kf_store_column_text(st, COL_REASON);
	e->source_hash = kf_store_column_text(st, COL_SOURCE_HASH);
	e->task_hash = kf_store_column_text(st, COL_TASK_HASH);
	e->compile_key = kf_store_column_text(st, COL_COMPILE_KEY);
	e->compiler = kf_store_column_text(st, COL_COMPILER);
	e->driver_version = version_text(st, COL_DRIVER);
	e->runtime_version = version_text(st, COL_RUNTIME);
	e->time_ms = kf_store_column_number(st, COL_TIME);
	e->ref_time_ms = kf_store_column_number(st, COL_REF_TIME);
	e->vendor_time_ms = kf_store_column_number(st, COL_VENDOR_TIME);
	e->iqr_ms = kf_store_column_number(st, COL_IQR);
	e->t_sol_ms = kf_store_column_number(st, COL_T_SOL);
	e->sol_fraction = kf_store_column_number(st, COL_SOL_FRACTION);
	e->sol_score = kf_store_column_number(st, COL_SOL_SCORE);
	e->source_bytes = sqlite3_column_int64(st, COL_SOURCE_BYTES);
	e->p_correct = kf_store_column_number(st, COL_P_CORRECT);
}

/* A JSON array of the filter values for json_each, or NULL when the filter is off. */
static char *ids_json(const int64_t *ids, int n)
{
	if (n == 0)
		return NULL;
	kf_buf b = KF_BUF_INIT;
	kf_buf_adds(&b, "[");
	for (int i = 0; i < n; i++)
		kf_buf_addf(&b, "%s%lld", i ? "," : "", (long long)ids[i]);
	kf_buf_adds(&b, "]");
	return kf_buf_detach(&b);
}

static char *names_json(const char *const *names, int n)
{
	if (n == 0)
		return NULL;
	cJSON *arr = cJSON_CreateStringArray(names, n);
	char *text = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	return text;
}

static int load_evals(struct kf_store *s, const struct kf_lb_query *q, struct kf_leaderboard *lb, kf_err *err)
{
	sqlite3 *db = kf_store_db(s);
	sqlite3_stmt *st = NULL;
	char *runs = ids_json(q->run_ids, q->n_run_ids);
	char *tasks = names_json(q->tasks, q->n_tasks);
	int rc, ret = KF_OK, cap = 0;
	if (sqlite3_prepare_v2(db, load_sql, -1, &st, NULL) != SQLITE_OK) {
		ret = kf_store_fail(db, err, "reading the evaluations");
		goto out;
	}
	sqlite3_bind_text(st, 1, runs, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, tasks, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, q->backend, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, q->device, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		lb->evals = kf_xgrow(lb->evals, lb->n_evals, &cap, sizeof *lb->evals);
		struct kf_lb_eval *e = &lb->evals[lb->n_evals++];
		memset(e, 0, sizeof *e);
		read_eval(st, e);
	}
	if (rc != SQLITE_DONE)
		ret = kf_store_fail(db, err, "reading the evaluations");
out:
	sqlite3_finalize(st);
	free(runs);
	cJSON_free(tasks);
	return ret;
}

static int load_run_tasks(struct kf_store *s, const struct kf_lb_query *q, struct kf_leaderboard *lb, kf_err *err)
{
	if (q->n_run_ids == 0)
		return KF_OK;
	sqlite3 *db = kf_store_db(s);
	sqlite3_stmt *st = NULL;
	char *runs = ids_json(q->run_ids, q->n_run_ids);
	char *tasks = names_json(q->tasks, q->n_tasks);
	int rc, ret = KF_OK, cap = 0;
	if (sqlite3_prepare_v2(db, run_tasks_sql, -1, &st, NULL) != SQLITE_OK) {
		ret = kf_store_fail(db, err, "reading the runs' tasks");
		goto out;
	}
	sqlite3_bind_text(st, 1, runs, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, tasks, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, q->backend, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		lb->run_tasks = kf_xgrow(lb->run_tasks, lb->n_run_tasks, &cap, sizeof *lb->run_tasks);
		struct kf_lb_run_task *t = &lb->run_tasks[lb->n_run_tasks++];
		t->run_id = sqlite3_column_int64(st, 0);
		t->source = kf_store_column_text(st, 1);
		t->task = kf_store_column_text(st, 2);
		t->backend = kf_store_column_text(st, 3);
	}
	if (rc != SQLITE_DONE)
		ret = kf_store_fail(db, err, "reading the runs' tasks");
out:
	sqlite3_finalize(st);
	free(runs);
	cJSON_free(tasks);
	return ret;
}

/* ---- ordering ---- */

static int cmp_id(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_cell(const struct kf_lb_eval *a, const struct kf_lb_eval *b)
{
	int d = strcmp(a->task, b->task);
	if (!d)
		d = strcmp(a->backend, b->backend);
	if (!d)
		d = strcmp(a->device, b->device);
	return d;
}

/* Rows order: source, then cell, then submission. */
static int cmp_source_cell(const void *pa, const void *pb)
{
	const struct kf_lb_eval *a = *(const struct kf_lb_eval *const *)pa, *b = *(const struct kf_lb_eval *const *)pb;
	int d = strcmp(a->source, b->source);
	if (!d)
		d = cmp_cell(a, b);
	return d ? d : cmp_id(a->submission_id, b->submission_id);
}

static int cmp_group(const struct kf_lb_eval *a, const struct kf_lb_eval *b)
{
	int d = strcmp(a->backend, b->backend);
	return d ? d : strcmp(a->device, b->device);
}

static int cmp_group_source_cell(const void *pa, const void *pb)
{
	const struct kf_lb_eval *a = *(const struct kf_lb_eval *const *)pa, *b = *(const struct kf_lb_eval *const *)pb;
	int d = cmp_group(a, b);
	return d ? d : cmp_source_cell(pa, pb);
}

static int cmp_cell_only(const void *pa, const void *pb)
{
	return cmp_cell(*(const struct kf_lb_eval *const *)pa, *(const struct kf_lb_eval *const *)pb);
}

static int cmp_string(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* ---- selection and per-row numbers ---- */

static bool is_ok(const struct kf_lb_eval *e)
{
	return e->verdict && !strcmp(e->verdict, VERDICT_OK);
}

/* NAN sorts after every number, so a correct kernel without a time never beats a timed one. */
static int cmp_nan_last(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

/* Trusted by the label model of kforge rank (eval/rank/rank.h): where no ranking has scored a candidate,
 * no candidate is trusted and the rule is time alone. */
static bool trusted(const struct kf_lb_eval *e)
{
	return e->p_correct >= KF_RANKING_DEFAULT_THETA; /* NAN compares false */
}

static bool better_kernel(const struct kf_lb_eval *a, const struct kf_lb_eval *b)
{
	if (trusted(a) != trusted(b))
		return trusted(a);
	int d = cmp_nan_last(a->time_ms, b->time_ms);
	if (!d)
		d = cmp_nan_last(a->iqr_ms, b->iqr_ms);
	if (!d)
		d = cmp_id(a->source_bytes, b->source_bytes);
	if (!d)
		d = cmp_id(a->submission_id, b->submission_id);
	return d < 0;
}

const struct kf_lb_eval *kf_lb_select(const struct kf_lb_eval *const *cands, int n)
{
	const struct kf_lb_eval *best = NULL;
	for (int i = 0; i < n; i++)
		if (is_ok(cands[i]) && (!best || better_kernel(cands[i], best)))
			best = cands[i];
	return best;
}

static int progress_rank(const char *verdict)
{
	enum kf_verdict v;
	if (verdict && kf_verdict_parse(verdict, &v) == 0)
		for (int i = 0; i < N_PROGRESS; i++)
			if (progress_order[i] == v)
				return i;
	return N_PROGRESS;
}

const char *kf_lb_best_verdict(const struct kf_lb_eval *const *cands, int n)
{
	const char *best = NULL;
	int best_rank = N_PROGRESS + 1;
	for (int i = 0; i < n; i++) {
		int r = progress_rank(cands[i]->verdict);
		if (r < best_rank) {
			best_rank = r;
			best = cands[i]->verdict;
		}
	}
	return best;
}

static double ratio(double num, double den)
{
	return isnan(num) || isnan(den) || !(den > 0) ? NAN : num / den;
}

double kf_lb_speedup(const struct kf_lb_eval *e)
{
	return ratio(e->ref_time_ms, e->time_ms);
}

double kf_lb_vendor_speedup(const struct kf_lb_eval *e)
{
	return ratio(e->vendor_time_ms, e->time_ms);
}

double kf_lb_pass_at_k(int n, int c, int k)
{
	if (k < 1 || k > n || c < 0 || c > n)
		return NAN;
	if (n - c < k)
		return 1.0;
	/* C(n-c, k) / C(n, k) = prod_{i<k} (n-c-i) / (n-i): no factorial ever overflows. */
	double miss = 1.0;
	for (int i = 0; i < k; i++)
		miss *= (double)(n - c - i) / (double)(n - i);
	return 1.0 - miss;
}

static void fill_row(struct kf_lb_row *row, const char *source, const struct kf_lb_cell *cell,
		     struct kf_lb_eval **cands, int n)
{
	const struct kf_lb_eval *const *cc = (const struct kf_lb_eval *const *)cands;
	memset(row, 0, sizeof *row);
	row->source = source;
	row->task = cell->task;
	row->backend = cell->backend;
	row->device = cell->device;
	row->n_candidates = n;
	for (int i = 0; i < n; i++)
		row->n_correct += is_ok(cands[i]);
	const struct kf_lb_eval *sel = kf_lb_select(cc, n);
	row->selected = sel;
	row->verdict = sel ? sel->verdict : kf_lb_best_verdict(cc, n);
	row->time_ms = row->ref_time_ms = row->vendor_time_ms = row->speedup = row->vendor_speedup = NAN;
	row->sol_fraction = row->sol_score = NAN;
	if (!sel)
		return;
	for (int i = 0; i < n; i++)
		if (cands[i] == sel)
			cands[i]->selected = true;
	row->time_ms = sel->time_ms;
	row->ref_time_ms = sel->ref_time_ms;
	row->vendor_time_ms = sel->vendor_time_ms;
	row->speedup = kf_lb_speedup(sel);
	row->vendor_speedup = kf_lb_vendor_speedup(sel);
	row->sol_fraction = sel->sol_fraction;
	row->sol_score = sel->sol_score;
}

/* ---- summaries ---- */

static void summarize(const struct kf_lb_row *rows, int n_rows, struct kf_lb_summary *sum)
{
	double log_sum = 0, frac_sum = 0, score_sum = 0;
	int n_speed = 0, n_frac = 0, n_score = 0, k = 0;
	memset(sum, 0, sizeof *sum);
	sum->source = rows[0].source;
	sum->n_tasks = n_rows;
	for (int i = 0; i < n_rows; i++) {
		const struct kf_lb_row *r = &rows[i];
		if (r->n_candidates > 0 && (k == 0 || r->n_candidates < k))
			k = r->n_candidates;
		if (!r->selected)
			continue;
		sum->n_correct++;
		for (int p = 0; p < KF_LB_N_FAST_P; p++)
			sum->fast_p[p] += r->speedup > kf_lb_fast_p_thresholds[p]; /* NAN compares false */
		if (r->speedup > 0) {
			log_sum += log(r->speedup);
			n_speed++;
		}
		if (!isnan(r->sol_fraction)) {
			frac_sum += r->sol_fraction;
			n_frac++;
		}
		if (!isnan(r->sol_score)) {
			score_sum += r->sol_score;
			n_score++;
		}
	}
	for (int p = 0; p < KF_LB_N_FAST_P; p++)
		sum->fast_p[p] /= n_rows;
	sum->geomean_speedup = n_speed ? exp(log_sum / n_speed) : NAN;
	sum->mean_sol_fraction = n_frac ? frac_sum / n_frac : NAN;
	sum->mean_sol_score = n_score ? score_sum / n_score : NAN;
	sum->k = k;
	for (int i = 0; i < n_rows; i++) {
		const struct kf_lb_row *r = &rows[i];
		if (r->n_candidates == 0)
			continue;
		sum->pass_at_1 += (double)r->n_correct / r->n_candidates;
		sum->pass_at_k += kf_lb_pass_at_k(r->n_candidates, r->n_correct, k);
	}
	sum->pass_at_1 /= n_rows;
	sum->pass_at_k /= n_rows;
	sum->tokens = sum->cost_usd = NAN;
}

static void add_run_id(int64_t *runs, int *n_runs, int64_t id)
{
	bool seen = id == 0;
	for (int j = 0; j < *n_runs && !seen; j++)
		seen = runs[j] == id;
	if (!seen)
		runs[(*n_runs)++] = id;
}

/* Tokens and cost of the runs behind evs, one source's candidates in the group, and of the runs of
 * lb's run tasks of that source. */
static int add_usage(sqlite3 *db, const struct kf_leaderboard *lb, struct kf_lb_eval *const *evs, int n,
		     struct kf_lb_summary *sum, kf_err *err)
{
	int64_t *runs = kf_xmalloc(sizeof *runs * (size_t)(n + lb->n_run_tasks + 1));
	int n_runs = 0, ret = KF_OK;
	for (int i = 0; i < n; i++)
		add_run_id(runs, &n_runs, evs[i]->run_id);
	for (int i = 0; i < lb->n_run_tasks; i++)
		if (!strcmp(lb->run_tasks[i].source, sum->source))
			add_run_id(runs, &n_runs, lb->run_tasks[i].run_id);
	char *list = ids_json(runs, n_runs);
	sqlite3_stmt *st = NULL;
	if (!list)
		goto out;
	if (sqlite3_prepare_v2(db, usage_sql, -1, &st, NULL) != SQLITE_OK) {
		ret = kf_store_fail(db, err, "reading the agent's requests");
		goto out;
	}
	sqlite3_bind_text(st, 1, list, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ret = kf_store_fail(db, err, "reading the agent's requests");
		goto out;
	}
	sum->tokens = kf_store_column_number(st, 0);
	sum->cost_usd = kf_store_column_number(st, 1);
out:
	sqlite3_finalize(st);
	free(list);
	free(runs);
	return ret;
}

static int has_usage_table(sqlite3 *db, bool *out, kf_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, usage_table_sql, -1, &st, NULL) != SQLITE_OK)
		return kf_store_fail(db, err, "looking for the agent's requests table");
	int rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW && sqlite3_column_int(st, 0) == USAGE_COLUMNS;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? KF_OK : kf_store_fail(db, err, "looking for the agent's requests table");
}

/* ---- groups ---- */

static void strings_add_distinct(struct kf_lb_strings *s, const char *v)
{
	if (!v)
		return;
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->items[i], v))
			return;
	s->items = kf_xrealloc(s->items, sizeof *s->items * (size_t)(s->n + 1));
	s->items[s->n++] = kf_xstrdup(v);
	qsort(s->items, (size_t)s->n, sizeof *s->items, cmp_string);
}

static void strings_free(struct kf_lb_strings *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->items[i]);
	free(s->items);
}

static char *join(const struct kf_lb_strings *s)
{
	kf_buf b = KF_BUF_INIT;
	for (int i = 0; i < s->n; i++)
		kf_buf_addf(&b, "%s%s", i ? ", " : "", s->items[i]);
	return kf_buf_detach(&b);
}

static void group_labels(struct kf_lb_group *g, struct kf_lb_eval *const *evs, int n)
{
	struct kf_lb_strings backends = { 0 }, devices = { 0 };
	for (int i = 0; i < n; i++) {
		strings_add_distinct(&backends, evs[i]->backend);
		strings_add_distinct(&devices, evs[i]->device);
		strings_add_distinct(&g->compilers, evs[i]->compiler);
		strings_add_distinct(&g->driver_versions, evs[i]->driver_version);
		strings_add_distinct(&g->runtime_versions, evs[i]->runtime_version);
	}
	g->backend = join(&backends);
	g->device = join(&devices);
	strings_free(&backends);
	strings_free(&devices);
}

static int cmp_cells(const void *pa, const void *pb)
{
	const struct kf_lb_cell *a = pa, *b = pb;
	int d = strcmp(a->task, b->task);
	if (!d)
		d = strcmp(a->backend, b->backend);
	return d ? d : strcmp(a->device, b->device);
}

static bool has_cell(const struct kf_lb_group *g, const char *task, const char *backend, const char *device)
{
	for (int i = 0; i < g->n_cells; i++)
		if (!strcmp(g->cells[i].task, task) && !strcmp(g->cells[i].backend, backend) &&
		    (!device || !strcmp(g->cells[i].device, device)))
			return true;
	return false;
}

/* Whether run task t belongs in group g: its backend is the group's (a merged group takes all). */
static bool run_task_in_group(const struct kf_leaderboard *lb, const struct kf_lb_group *g,
			      const struct kf_lb_run_task *t)
{
	return lb->merged || !strcmp(t->backend, g->backend);
}

/* The device a run task's cell gets: the group's; merged, the device of any candidate of its backend
 * in the group, else unknown. */
static const char *run_task_device(const struct kf_leaderboard *lb, const struct kf_lb_group *g,
				   const struct kf_lb_run_task *t, struct kf_lb_eval *const *evs, int n)
{
	if (!lb->merged)
		return g->device;
	for (int i = 0; i < n; i++)
		if (!strcmp(evs[i]->backend, t->backend))
			return evs[i]->device;
	return KF_LB_UNKNOWN_DEVICE;
}

/* The group's cells: those of its candidates, and those of the runs' tasks that none covers. */
static void group_cells(const struct kf_leaderboard *lb, struct kf_lb_group *g, struct kf_lb_eval *const *evs, int n)
{
	struct kf_lb_eval **by_cell = kf_xmalloc(sizeof *by_cell * (size_t)(n ? n : 1));
	memcpy(by_cell, evs, sizeof *by_cell * (size_t)n);
	qsort(by_cell, (size_t)n, sizeof *by_cell, cmp_cell_only);
	g->cells = kf_xmalloc(sizeof *g->cells * (size_t)(n + lb->n_run_tasks + 1));
	for (int i = 0; i < n; i++) {
		if (i && cmp_cell(by_cell[i - 1], by_cell[i]) == 0)
			continue;
		g->cells[g->n_cells++] = (struct kf_lb_cell){ by_cell[i]->task, by_cell[i]->backend, by_cell[i]->device };
	}
	free(by_cell);
	for (int i = 0; i < lb->n_run_tasks; i++) {
		const struct kf_lb_run_task *t = &lb->run_tasks[i];
		/* Merged, a task judged on some device of its backend already has its cell. */
		if (!run_task_in_group(lb, g, t) || has_cell(g, t->task, t->backend, lb->merged ? NULL : g->device))
			continue;
		g->cells[g->n_cells++] = (struct kf_lb_cell){ t->task, t->backend, run_task_device(lb, g, t, evs, n) };
	}
	qsort(g->cells, (size_t)g->n_cells, sizeof *g->cells, cmp_cells);
}

/* The group's sources in byte order: those of its candidates and those of the runs' tasks. */
static void group_sources(const struct kf_leaderboard *lb, const struct kf_lb_group *g, struct kf_lb_eval *const *evs,
			  int n, struct kf_lb_strings *out)
{
	for (int i = 0; i < n; i++)
		strings_add_distinct(out, evs[i]->source);
	for (int i = 0; i < lb->n_run_tasks; i++)
		if (run_task_in_group(lb, g, &lb->run_tasks[i]))
			strings_add_distinct(out, lb->run_tasks[i].source);
}

static bool in_cell(const struct kf_lb_eval *e, const struct kf_lb_cell *c)
{
	return !strcmp(e->task, c->task) && !strcmp(e->backend, c->backend) && !strcmp(e->device, c->device);
}

/* evs: the group's candidates by source, cell, submission (so each source's cells come in cell order). */
static int build_group(sqlite3 *db, bool usage, const struct kf_leaderboard *lb, struct kf_lb_group *g,
		       struct kf_lb_eval **evs, int n, kf_err *err)
{
	group_cells(lb, g, evs, n);
	struct kf_lb_strings sources = { 0 };
	group_sources(lb, g, evs, n, &sources);
	g->summaries = kf_xcalloc((size_t)sources.n + 1, sizeof *g->summaries);
	g->rows = kf_xcalloc((size_t)sources.n * (size_t)g->n_cells + 1, sizeof *g->rows);
	int at = 0, ret = KF_OK;
	for (int s = 0; s < sources.n && ret == KF_OK; s++) {
		/* Rows point at strings the leaderboard keeps: a candidate's, or a run task's. */
		const char *source = at < n && !strcmp(evs[at]->source, sources.items[s]) ? evs[at]->source : NULL;
		for (int i = 0; i < lb->n_run_tasks && !source; i++)
			if (!strcmp(lb->run_tasks[i].source, sources.items[s]))
				source = lb->run_tasks[i].source;
		int source_start = at;
		struct kf_lb_row *rows = &g->rows[g->n_rows];
		for (int c = 0; c < g->n_cells; c++) {
			int start = at;
			while (at < n && !strcmp(evs[at]->source, source) && in_cell(evs[at], &g->cells[c]))
				at++;
			fill_row(&g->rows[g->n_rows++], source, &g->cells[c], &evs[start], at - start);
		}
		struct kf_lb_summary *sum = &g->summaries[g->n_summaries++];
		summarize(rows, g->n_cells, sum);
		if (usage)
			ret = add_usage(db, lb, &evs[source_start], at - source_start, sum, err);
	}
	strings_free(&sources);
	return ret;
}

/* A group for the runs' tasks of a backend that no judged candidate stands for (none of them was
 * judged, or none on a device the filters keep). */
static void empty_group_label(const struct kf_leaderboard *lb, struct kf_lb_group *g, const char *backend)
{
	struct kf_lb_strings backends = { 0 }, devices = { 0 };
	for (int i = 0; i < lb->n_run_tasks; i++)
		if (lb->merged || !strcmp(lb->run_tasks[i].backend, backend))
			strings_add_distinct(&backends, lb->run_tasks[i].backend);
	strings_add_distinct(&devices, KF_LB_UNKNOWN_DEVICE);
	g->backend = join(&backends);
	g->device = join(&devices);
	strings_free(&backends);
	strings_free(&devices);
}

static bool backend_has_group(const struct kf_leaderboard *lb, const char *backend)
{
	for (int i = 0; i < lb->n_groups; i++)
		if (lb->merged || !strcmp(lb->groups[i].backend, backend))
			return true;
	return false;
}

static int build_groups(sqlite3 *db, const struct kf_lb_query *q, struct kf_leaderboard *lb, kf_err *err)
{
	bool usage;
	int ret = KF_OK;
	if (lb->n_evals == 0 && lb->n_run_tasks == 0)
		return KF_OK;
	if ((ret = has_usage_table(db, &usage, err)) != KF_OK)
		return ret;
	struct kf_lb_eval **evs = kf_xmalloc(sizeof *evs * (size_t)(lb->n_evals + 1));
	for (int i = 0; i < lb->n_evals; i++)
		evs[i] = &lb->evals[i];
	qsort(evs, (size_t)lb->n_evals, sizeof *evs, lb->merged ? cmp_source_cell : cmp_group_source_cell);
	lb->groups = kf_xcalloc((size_t)(lb->n_evals + lb->n_run_tasks + 1), sizeof *lb->groups);
	for (int start = 0, end; start < lb->n_evals && ret == KF_OK; start = end) {
		end = start + 1;
		while (end < lb->n_evals && (lb->merged || cmp_group(evs[start], evs[end]) == 0))
			end++;
		struct kf_lb_group *g = &lb->groups[lb->n_groups++];
		group_labels(g, &evs[start], end - start);
		ret = build_group(db, usage, lb, g, &evs[start], end - start, err);
	}
	/* An unknown device matches no --device filter: then such tasks have no group to go to. */
	for (int i = 0; i < lb->n_run_tasks && ret == KF_OK && !q->device; i++) {
		if (backend_has_group(lb, lb->run_tasks[i].backend))
			continue;
		struct kf_lb_group *g = &lb->groups[lb->n_groups++];
		empty_group_label(lb, g, lb->run_tasks[i].backend);
		ret = build_group(db, usage, lb, g, evs, 0, err);
	}
	free(evs);
	return ret;
}

int kf_leaderboard_build(struct kf_store *s, const struct kf_lb_query *q, struct kf_leaderboard **out, kf_err *err)
{
	struct kf_leaderboard *lb = kf_xcalloc(1, sizeof *lb);
	lb->merged = q->merge;
	*out = NULL;
	int ret = load_evals(s, q, lb, err);
	if (ret == KF_OK)
		ret = load_run_tasks(s, q, lb, err);
	if (ret == KF_OK)
		ret = build_groups(kf_store_db(s), q, lb, err);
	if (ret != KF_OK) {
		kf_leaderboard_free(lb);
		return kf_err_prefix(err, "building the leaderboard: ");
	}
	*out = lb;
	return KF_OK;
}

void kf_leaderboard_free(struct kf_leaderboard *lb)
{
	if (!lb)
		return;
	for (int i = 0; i < lb->n_groups; i++) {
		struct kf_lb_group *g = &lb->groups[i];
		free(g->backend);
		free(g->device);
		strings_free(&g->compilers);
		strings_free(&g->driver_versions);
		strings_free(&g->runtime_versions);
		free(g->cells);
		free(g->summaries);
		free(g->rows);
	}
	free(lb->groups);
	for (int i = 0; i < lb->n_evals; i++)
		eval_free(&lb->evals[i]);
	free(lb->evals);
	for (int i = 0; i < lb->n_run_tasks; i++) {
		free(lb->run_tasks[i].source);
		free(lb->run_tasks[i].task);
		free(lb->run_tasks[i].backend);
	}
	free(lb->run_tasks);
	free(lb);
}
