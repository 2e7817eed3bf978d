/* Tests for eval/leaderboard and the report writers: the selection rule, the summary formulas against
 * hand-computed values, grouping by backend and device, filters, golden files for every format
 * (tests/golden/leaderboard/; KFORGE_UPDATE_GOLDEN=1 rewrites them), and `kforge leaderboard` /
 * `kforge export` through the command line. The database is filled here, by hand, with no judge. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "db/store.h"
#include "eval/report/leaderboard.h"
#include "eval/report/report.h"
#include "tests/support/cli.h"

#define GOLDEN_DIR "tests/golden/leaderboard"
#define UPDATE_GOLDEN_ENV "KFORGE_UPDATE_GOLDEN"
#define GOLDEN_MAX_BYTES (4u << 20)
#define CLI_TIMEOUT_S 30.0
#define EPS 1e-9
#define EXCERPT "%.400s"

#define CPU_A "Test CPU A (8 cores)"
#define CPU_B "Test CPU B (2 cores)"
#define GPU "NVIDIA H100 80GB HBM3"
#define GCC "gcc (Debian 12.2.0-14) 12.2.0"
#define NVCC "nvcc 13.0.48"
#define ALICE "alice"
#define MODEL "model-x/best-of-4"
/* A name that needs CSV quoting, a Markdown pipe escape and HTML escaping, all at once. */
#define ODD "o'brien, \"the <b>fast</b> | kernel\""
#define RUN_CPU 1
#define RUN_GPU 2

/* One candidate and its evaluation, as a judge would have recorded it. NAN: not recorded. */
struct fx {
	const char *source;
	int64_t run_id;
	const char *task, *backend, *device, *compiler;
	int driver_version, runtime_version; /* CUDA's encoding (13000 is 13.0); 0: not recorded */
	const char *verdict;
	double time_ms, ref_time_ms, vendor_time_ms, iqr_ms, t_sol_ms;
	double earlier_time_ms; /* an older evaluation on the same device, superseded; NAN: none */
	const char *code;
};

#define NO_TIMES NAN, NAN, NAN, NAN, NAN, NAN
#define NO_CUDA 0, 0
#define CUDA_VERSIONS 13000, 12080 /* driver 13.0, runtime 12.8 */

static const struct fx fixture[] = {
	/* alice, CPU A: vector_add goes to #2 (fastest); #1 was once faster, but its latest evaluation is not. */
	{ ALICE, 0, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "ok", 1.0, 2.0, NAN, 0.10, 0.25, 0.1, "/* a1 */" },
	{ ALICE, 0, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "ok", 0.5, 2.0, NAN, 0.05, 0.25, NAN, "/* a2 */" },
	{ ALICE, 0, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "wrong_answer", NO_TIMES, "/* a3 */" },
	{ ALICE, 0, "softmax_rows", "cpu", CPU_A, GCC, NO_CUDA, "compile_error", NO_TIMES, "/* a4 */" },
	/* model-x, CPU A (run 1): one correct kernel per task; matmul ties on time, then on IQR, then on length. */
	{ MODEL, RUN_CPU, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "ok", 4.0, 2.0, NAN, 0.2, 0.25, NAN, "/* m1 */" },
	{ MODEL, RUN_CPU, "softmax_rows", "cpu", CPU_A, GCC, NO_CUDA, "ok", 0.4, 1.0, NAN, 0.01, 0.1, NAN, "/* m2 */" },
	{ MODEL, RUN_CPU, "softmax_rows", "cpu", CPU_A, GCC, NO_CUDA, "timeout", NO_TIMES, "/* m3 */" },
	{ MODEL, RUN_CPU, "matmul_bf16", "cpu", CPU_A, GCC, NO_CUDA, "ok", 1.0, 1.2, NAN, 0.02, 0.3, NAN,
	  "/* m4: the longer one */" },
	{ MODEL, RUN_CPU, "matmul_bf16", "cpu", CPU_A, GCC, NO_CUDA, "ok", 1.0, 1.2, NAN, 0.02, 0.3, NAN, "/* m5 */" },
	{ MODEL, RUN_CPU, "matmul_bf16", "cpu", CPU_A, GCC, NO_CUDA, "ok", 1.0, 1.2, NAN, 0.03, 0.3, NAN, "/*m*/" },
	/* A timed kernel that is not correct: its numbers never reach the table. */
	{ ODD, 0, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "faster_than_light", 0.01, 2.0, NAN, 0.001, 0.25, NAN,
	  "/* o1 */" },
	/* Another CPU, and a GPU with a vendor baseline, driver and CUDA versions. */
	{ ALICE, 0, "vector_add", "cpu", CPU_B, GCC, NO_CUDA, "ok", 3.0, 2.5, NAN, 0.3, 0.5, NAN, "/* a5 */" },
	{ ALICE, 0, "vector_add", "cuda", GPU, NVCC, CUDA_VERSIONS, "ok", 0.01, 0.02, 0.012, 0.0005, 0.008,
	  NAN, "/* a6 */" },
	{ MODEL, RUN_GPU, "vector_add", "cuda", GPU, NVCC, CUDA_VERSIONS, "wrong_answer", NO_TIMES, "/* m6 */" },
};
#define N_FIXTURE (sizeof fixture / sizeof fixture[0])

/* Submission ids follow the fixture order (1-based); these are the ones tests name. */
#define ID_ALICE_VA_FAST 2
#define ID_MODEL_MATMUL_SHORT 9

static char dir[PATH_MAX], db_path[PATH_MAX + 16];

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(dir, &err), KF_OK, "%s", err.msg);
	snprintf(db_path, sizeof db_path, "%s/kforge.db", dir);
}

static void teardown(void)
{
	if (dir[0])
		kf_rm_rf(dir);
}

TestSuite(leaderboard, .init = setup, .fini = teardown);

static struct kf_store *open_store(void)
{
	struct kf_store *s;
	kf_err err;
	cr_assert_eq(kf_store_open(db_path, &s, &err), KF_OK, "%s", err.msg);
	return s;
}

static void exec_sql(struct kf_store *s, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(kf_store_db(s), sql, NULL, NULL, &msg);
	cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, msg ? msg : "");
}

static void put_task(struct kf_store *s, const char *name, char hash[KF_SHA256_HEX_LEN])
{
	char spec[128];
	kf_err err;
	snprintf(spec, sizeof spec, "{\"name\": \"%s\"}\n", name);
	kf_sha256_hex(spec, strlen(spec), hash);
	cr_assert_eq(kf_store_put_task(s, name, hash, spec, &err), KF_OK, "%s", err.msg);
}

static void add_number(cJSON *o, const char *name, double x)
{
	if (isnan(x))
		cJSON_AddNullToObject(o, name);
	else
		cJSON_AddNumberToObject(o, name, x);
}

/* The result JSON a judge would store for f, with time_ms replaced by time_ms. */
static cJSON *result_of(const struct fx *f, double time_ms)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "verdict", f->verdict);
	cJSON_AddStringToObject(r, "reason", strcmp(f->verdict, "ok") ? "rejected by the fixture" : "passed every check");
	add_number(r, "time_ms", time_ms);
	add_number(r, "ref_time_ms", f->ref_time_ms);
	add_number(r, "vendor_time_ms", f->vendor_time_ms);
	add_number(r, "speedup", f->ref_time_ms / time_ms);
	add_number(r, "t_sol_ms", f->t_sol_ms);
	add_number(r, "sol_fraction", f->t_sol_ms / time_ms);
	add_number(r, "sol_score", 1.0 / (1.0 + (time_ms - f->t_sol_ms) / (f->ref_time_ms - f->t_sol_ms)));
	cJSON *m = cJSON_AddObjectToObject(r, "machine");
	char key[128];
	snprintf(key, sizeof key, "test:%s", f->device);
	cJSON_AddStringToObject(m, "key", key);
	cJSON_AddStringToObject(m, "device", f->device);
	if (f->driver_version)
		cJSON_AddNumberToObject(m, "driver_version", f->driver_version);
	if (f->runtime_version)
		cJSON_AddNumberToObject(m, "runtime_version", f->runtime_version);
	cJSON *c = cJSON_AddObjectToObject(r, "compile");
	cJSON_AddStringToObject(c, "compiler", f->compiler);
	cJSON_AddStringToObject(c, "key", f->code);
	cJSON *t = cJSON_AddObjectToObject(cJSON_AddObjectToObject(r, "timing"), "candidate");
	add_number(t, "median_ms", time_ms);
	add_number(t, "iqr_ms", f->iqr_ms);
	return r;
}

static int64_t add_fx(struct kf_store *s, const struct fx *f)
{
	char task_hash[KF_SHA256_HEX_LEN], code_hash[KF_SHA256_HEX_LEN];
	int64_t id = 0, eval_id = 0;
	kf_err err;
	put_task(s, f->task, task_hash);
	kf_sha256_hex(f->code, strlen(f->code), code_hash);
	struct kf_candidate_rec rec = { f->task, task_hash, f->backend, f->run_id ? "agent" : "submit", f->source, NULL,
					f->code, code_hash, f->run_id };
	cr_assert_eq(kf_store_add_candidate(s, &rec, &id, &err), KF_OK, "%s", err.msg);
	for (int pass = isnan(f->earlier_time_ms) ? 1 : 0; pass < 2; pass++) {
		cJSON *r = result_of(f, pass == 0 ? f->earlier_time_ms : f->time_ms);
		cr_assert_eq(kf_store_add_evaluation(s, id, r, &eval_id, &err), KF_OK, "%s", err.msg);
		cJSON_Delete(r);
	}
	return id;
}

/* Two agent runs and their requests in the agent's tables (run 3 has no candidate: never counted). */
static void add_requests(struct kf_store *s)
{
	exec_sql(s, "INSERT INTO runs (id, provider, model, base_url, backend, config, status, kforge_version) VALUES"
		    " (1, 'openai', 'model-x', 'loopback', 'cpu', '{}', 'done', 'test'),"
		    " (2, 'openai', 'model-x', 'loopback', 'cuda', '{}', 'done', 'test'),"
		    " (3, 'openai', 'model-y', 'loopback', 'cpu', '{}', 'done', 'test');"
		    "INSERT INTO requests (run_id, task, round, slot, model, params, messages, prompt_hash, status,"
		    " tokens_in, tokens_out, cost_usd) VALUES"
		    " (1, 'vector_add', 1, 0, 'model-x', '{}', '[]', 'h', 'done', 1000, 500, 0.01),"
		    " (1, 'softmax_rows', 1, 0, 'model-x', '{}', '[]', 'h', 'done', 2000, 700, 0.02),"
		    " (2, 'vector_add', 1, 0, 'model-x', '{}', '[]', 'h', 'done', 100, 50, 0.001),"
		    " (3, 'vector_add', 1, 0, 'model-y', '{}', '[]', 'h', 'done', 9999, 9999, 9.0);");
}

static void fill_fixture(void)
{
	struct kf_store *s = open_store();
	for (size_t i = 0; i < N_FIXTURE; i++)
		cr_assert_eq(add_fx(s, &fixture[i]), (int64_t)i + 1, "submission ids must follow the fixture order");
	add_requests(s);
	kf_store_close(s);
}

static struct kf_leaderboard *build(const struct kf_lb_query *q)
{
	struct kf_store *s = open_store();
	struct kf_leaderboard *lb = NULL;
	kf_err err;
	cr_assert_eq(kf_leaderboard_build(s, q, &lb, &err), KF_OK, "%s", err.msg);
	kf_store_close(s);
	return lb;
}

static const struct kf_lb_group *group_on(const struct kf_leaderboard *lb, const char *device)
{
	for (int i = 0; i < lb->n_groups; i++)
		if (!strcmp(lb->groups[i].device, device))
			return &lb->groups[i];
	cr_assert_fail("no group on %s", device);
	return NULL;
}

static const struct kf_lb_row *row_of(const struct kf_lb_group *g, const char *source, const char *task)
{
	for (int i = 0; i < g->n_rows; i++)
		if (!strcmp(g->rows[i].source, source) && !strcmp(g->rows[i].task, task))
			return &g->rows[i];
	cr_assert_fail("no row for %s / %s", source, task);
	return NULL;
}

static const struct kf_lb_summary *summary_of(const struct kf_lb_group *g, const char *source)
{
	for (int i = 0; i < g->n_summaries; i++)
		if (!strcmp(g->summaries[i].source, source))
			return &g->summaries[i];
	cr_assert_fail("no summary for %s", source);
	return NULL;
}

static char *render(const char *format, const struct kf_lb_query *q, enum kf_report_table table)
{
	struct kf_leaderboard *lb = build(q);
	struct kf_report_opts o = { table };
	kf_buf b = KF_BUF_INIT;
	kf_report_writer w = kf_report_find(format);
	cr_assert_not_null(w, "no writer for %s", format);
	w(lb, &o, &b);
	kf_leaderboard_free(lb);
	return kf_buf_detach(&b);
}

static char *golden_path(const char *name)
{
	kf_buf b = KF_BUF_INIT;
	kf_buf_addf(&b, "%s/%s/%s", kf_home(), GOLDEN_DIR, name);
	return kf_buf_detach(&b);
}

static char *read_text(const char *path)
{
	char *text = NULL;
	kf_err err;
	cr_assert_eq(kf_read_file(path, GOLDEN_MAX_BYTES, &text, NULL, &err), KF_OK, "%s", err.msg);
	return text;
}

/* Compares actual with the golden file `name`, naming the first line that differs. */
static void expect_golden(const char *name, const char *actual)
{
	char *path = golden_path(name);
	kf_err err;
	const char *update = getenv(UPDATE_GOLDEN_ENV);
	if (update && *update)
		cr_assert_eq(kf_write_file(path, actual, strlen(actual), &err), KF_OK, "%s", err.msg);
	char *want = read_text(path);
	if (strcmp(want, actual) != 0) {
		const char *w = want, *a = actual;
		int line = 1;
		for (; *w && *w == *a; w++, a++)
			line += *w == '\n';
		char out[PATH_MAX + 64];
		snprintf(out, sizeof out, "%s/%s.actual", dir, name);
		dir[0] = '\0'; /* keep the temporary directory, so the new output can be read */
		kf_write_file(out, actual, strlen(actual), &err);
		cr_assert_fail("%s differs from its golden file at line %d; new output in %s (%s=1 rewrites the golden "
			       "files)\n  expected: %.120s\n  actual:   %.120s",
			       name, line, out, UPDATE_GOLDEN_ENV, w, a);
	}
	free(want);
	free(path);
}

static int count(const char *haystack, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* ---- formulas ---- */

Test(leaderboard, pass_at_k_matches_hand_computed_values)
{
	cr_expect_float_eq(kf_lb_pass_at_k(5, 2, 1), 0.4, EPS);
	cr_expect_float_eq(kf_lb_pass_at_k(5, 2, 2), 0.7, EPS, "1 - C(3,2)/C(5,2) = 1 - 3/10");
	cr_expect_float_eq(kf_lb_pass_at_k(10, 3, 4), 1.0 - 35.0 / 210.0, EPS, "1 - C(7,4)/C(10,4)");
	cr_expect_float_eq(kf_lb_pass_at_k(4, 3, 2), 1.0, EPS, "n - c < k: every k-subset holds a correct one");
	cr_expect_float_eq(kf_lb_pass_at_k(3, 3, 3), 1.0, EPS);
	cr_expect_float_eq(kf_lb_pass_at_k(6, 0, 3), 0.0, EPS);
	cr_expect(isnan(kf_lb_pass_at_k(2, 1, 3)), "k > n has no estimate");
	cr_expect(isnan(kf_lb_pass_at_k(0, 0, 1)), "no sample has no estimate");
	cr_expect(isnan(kf_lb_pass_at_k(3, 4, 1)), "c > n is impossible");
}

Test(leaderboard, without_posteriors_selects_the_fastest_correct_kernel_then_lower_iqr_then_shorter_source)
{
	fill_fixture();
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	const struct kf_lb_group *g = group_on(lb, CPU_A);
	const struct kf_lb_row *va = row_of(g, ALICE, "vector_add");
	cr_assert_not_null(va->selected);
	cr_expect_eq(va->selected->submission_id, ID_ALICE_VA_FAST, "the 0.5 ms kernel is the fastest correct one");
	cr_expect_float_eq(va->speedup, 4.0, EPS);
	cr_expect_float_eq(va->sol_fraction, 0.5, EPS);
	cr_expect_eq(va->n_candidates, 3);
	cr_expect_eq(va->n_correct, 2);
	const struct kf_lb_row *mm = row_of(g, MODEL, "matmul_bf16");
	cr_assert_not_null(mm->selected);
	cr_expect_eq(mm->selected->submission_id, ID_MODEL_MATMUL_SHORT,
		     "equal times: the lower IQR wins over the shortest source, then the shorter source wins");
	kf_leaderboard_free(lb);
}

/* A posterior for every evaluation of candidates 1 and 2 (alice's correct vector_add kernels on CPU A). */
static void add_fit(int64_t fit_id, double p_first, double p_second)
{
	char sql[512];
	snprintf(sql, sizeof sql,
		 "INSERT INTO label_fits (id, scope, model, kforge_version) VALUES (%lld, 'all', '{}', 'test');"
		 "INSERT INTO posteriors (fit_id, evaluation_id, p_correct) SELECT %lld, id,"
		 " CASE candidate_id WHEN 1 THEN %g ELSE %g END FROM evaluations WHERE candidate_id IN (1, 2);",
		 (long long)fit_id, (long long)fit_id, p_first, p_second);
	struct kf_store *s = open_store();
	exec_sql(s, sql);
	kf_store_close(s);
}

Test(leaderboard, selects_a_kernel_the_label_model_trusts_before_a_faster_one_it_doubts)
{
	fill_fixture();
	add_fit(1, 0.9, 0.1);
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	const struct kf_lb_row *va = row_of(group_on(lb, CPU_A), ALICE, "vector_add");
	cr_assert_not_null(va->selected);
	cr_expect_eq(va->selected->submission_id, 1, "the 0.5 ms kernel has P(correct) 0.1: the 1 ms one is selected");
	cr_expect_float_eq(va->time_ms, 1.0, EPS);
	cr_expect_float_eq(va->selected->p_correct, 0.9, EPS);
	kf_leaderboard_free(lb);
	/* A later ranking trusts both: the faster one is selected again. */
	add_fit(2, 0.9, 0.95);
	lb = build(&q);
	va = row_of(group_on(lb, CPU_A), ALICE, "vector_add");
	cr_expect_eq(va->selected->submission_id, ID_ALICE_VA_FAST, "the latest fit counts");
	cr_expect(isnan(row_of(group_on(lb, CPU_A), MODEL, "vector_add")->selected->p_correct),
		  "a candidate no ranking scored has no posterior");
	kf_leaderboard_free(lb);
}

Test(leaderboard, counts_only_the_latest_evaluation_of_a_candidate_on_a_device)
{
	fill_fixture();
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	const struct kf_lb_row *va = row_of(group_on(lb, CPU_A), ALICE, "vector_add");
	cr_expect_float_eq(va->time_ms, 0.5, EPS, "the superseded 0.1 ms evaluation must not count");
	cr_expect_eq(va->n_candidates, 3, "a re-evaluated candidate is still one candidate");
	cr_expect_eq(lb->n_evals, (int)N_FIXTURE);
	kf_leaderboard_free(lb);
}

Test(leaderboard, reports_the_best_verdict_seen_when_no_kernel_is_correct)
{
	fill_fixture();
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	const struct kf_lb_group *g = group_on(lb, CPU_A);
	const struct kf_lb_row *odd = row_of(g, ODD, "vector_add");
	cr_expect_null(odd->selected);
	cr_expect_str_eq(odd->verdict, "faster_than_light");
	cr_expect(isnan(odd->time_ms) && isnan(odd->speedup), "an incorrect kernel's time is not the row's");
	cr_expect_str_eq(row_of(g, ALICE, "softmax_rows")->verdict, "compile_error");
	cr_expect_null(row_of(g, ALICE, "matmul_bf16")->verdict, "no candidate at all: no verdict");
	cr_expect_str_eq(row_of(group_on(lb, GPU), MODEL, "vector_add")->verdict, "wrong_answer");
	kf_leaderboard_free(lb);
}

Test(leaderboard, summary_matches_hand_computed_fast_p_geomean_sol_and_pass_at_k)
{
	fill_fixture();
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	const struct kf_lb_group *g = group_on(lb, CPU_A);
	cr_assert_eq(g->n_cells, 3, "matmul_bf16, softmax_rows, vector_add");
	/* alice: vector_add at 4x (n=3, c=2); softmax_rows compile_error (n=1); matmul_bf16 never tried. */
	const struct kf_lb_summary *a = summary_of(g, ALICE);
	cr_expect_eq(a->n_correct, 1);
	for (int p = 0; p < KF_LB_N_FAST_P; p++)
		cr_expect_float_eq(a->fast_p[p], 1.0 / 3, EPS, "fast_%g", kf_lb_fast_p_thresholds[p]);
	cr_expect_float_eq(a->geomean_speedup, 4.0, EPS);
	cr_expect_float_eq(a->mean_sol_fraction, 0.5, EPS);
	cr_expect_float_eq(a->mean_sol_score, 1.0 / (1.0 + 0.25 / 1.75), EPS);
	cr_expect_eq(a->k, 1);
	cr_expect_float_eq(a->pass_at_1, (0 + 0 + 2.0 / 3) / 3, EPS);
	cr_expect_float_eq(a->pass_at_k, a->pass_at_1, EPS, "k = 1");
	cr_expect(isnan(a->tokens) && isnan(a->cost_usd), "manual submissions have no tokens or cost");
	/* model-x: speedups 1.2 (matmul), 2.5 (softmax), 0.5 (vector_add, not > 0.5). */
	const struct kf_lb_summary *m = summary_of(g, MODEL);
	const double want[KF_LB_N_FAST_P] = { 1.0, 2.0 / 3, 2.0 / 3, 2.0 / 3, 1.0 / 3, 1.0 / 3 };
	for (int p = 0; p < KF_LB_N_FAST_P; p++)
		cr_expect_float_eq(m->fast_p[p], want[p], EPS, "fast_%g", kf_lb_fast_p_thresholds[p]);
	cr_expect_float_eq(m->geomean_speedup, cbrt(1.2 * 2.5 * 0.5), EPS);
	cr_expect_float_eq(m->mean_sol_fraction, (0.3 + 0.25 + 0.0625) / 3, EPS);
	cr_expect_float_eq(m->pass_at_1, (1.0 + 0.5 + 1.0) / 3, EPS);
	cr_expect_float_eq(m->tokens, 4200, EPS, "run 1: 1000+500 + 2000+700");
	cr_expect_float_eq(m->cost_usd, 0.03, EPS);
	/* The incorrect-only source fails everything but is still ranked. */
	const struct kf_lb_summary *o = summary_of(g, ODD);
	cr_expect_eq(o->n_correct, 0);
	cr_expect_float_eq(o->fast_p[0], 0.0, EPS);
	cr_expect(isnan(o->geomean_speedup) && isnan(o->mean_sol_fraction));
	cr_expect_float_eq(o->pass_at_1, 0.0, EPS);
	kf_leaderboard_free(lb);
}

Test(leaderboard, pass_at_k_takes_k_from_the_task_with_the_fewest_candidates)
{
	/* bob: task A n=4, c=1; task B n=2, c=2 -> k = 2. */
	static const struct fx bob[] = {
		{ "bob", 0, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "ok", 1.0, 1.0, NAN, 0.1, 0.1, NAN, "/* b1 */" },
		{ "bob", 0, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "wrong_answer", NO_TIMES, "/* b2 */" },
		{ "bob", 0, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "crash", NO_TIMES, "/* b3 */" },
		{ "bob", 0, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "timeout", NO_TIMES, "/* b4 */" },
		{ "bob", 0, "softmax_rows", "cpu", CPU_A, GCC, NO_CUDA, "ok", 1.0, 1.0, NAN, 0.1, 0.1, NAN, "/* b5 */" },
		{ "bob", 0, "softmax_rows", "cpu", CPU_A, GCC, NO_CUDA, "ok", 2.0, 1.0, NAN, 0.1, 0.1, NAN, "/* b6 */" },
	};
	struct kf_store *s = open_store();
	for (size_t i = 0; i < sizeof bob / sizeof bob[0]; i++)
		add_fx(s, &bob[i]);
	kf_store_close(s);
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	const struct kf_lb_summary *b = summary_of(group_on(lb, CPU_A), "bob");
	cr_expect_eq(b->k, 2);
	cr_expect_float_eq(b->pass_at_1, (0.25 + 1.0) / 2, EPS);
	cr_expect_float_eq(b->pass_at_k, ((1.0 - 3.0 / 6.0) + 1.0) / 2, EPS, "(1 - C(3,2)/C(4,2) + 1) / 2");
	kf_leaderboard_free(lb);
}

/* ---- groups and filters ---- */

Test(leaderboard, never_merges_backends_or_devices_unless_asked)
{
	fill_fixture();
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	cr_assert_eq(lb->n_groups, 3, "cpu on two CPUs and cuda on one GPU are three rankings");
	cr_expect_str_eq(lb->groups[0].backend, "cpu");
	cr_expect_str_eq(lb->groups[0].device, CPU_A);
	cr_expect_str_eq(lb->groups[1].device, CPU_B);
	cr_expect_str_eq(lb->groups[2].backend, "cuda");
	const struct kf_lb_group *gpu = group_on(lb, GPU);
	cr_expect_eq(gpu->n_cells, 1);
	cr_expect_float_eq(row_of(gpu, ALICE, "vector_add")->vendor_speedup, 1.2, EPS);
	cr_assert_eq(gpu->driver_versions.n, 1);
	cr_expect_str_eq(gpu->driver_versions.items[0], "13.0");
	cr_expect_str_eq(gpu->runtime_versions.items[0], "12.8");
	cr_expect_str_eq(gpu->compilers.items[0], NVCC);
	cr_expect_float_eq(summary_of(gpu, MODEL)->tokens, 150, EPS, "run 2 only");
	cr_expect_eq(group_on(lb, CPU_B)->n_summaries, 1, "a source appears only where it has candidates");
	kf_leaderboard_free(lb);
}

Test(leaderboard, merged_leaderboard_scores_every_task_backend_device_triple)
{
	fill_fixture();
	struct kf_lb_query q = { .merge = true };
	struct kf_leaderboard *lb = build(&q);
	cr_assert_eq(lb->n_groups, 1);
	const struct kf_lb_group *g = &lb->groups[0];
	cr_expect_str_eq(g->backend, "cpu, cuda");
	cr_expect_eq(g->n_cells, 5, "3 tasks on CPU A, vector_add on CPU B and on the GPU");
	const struct kf_lb_summary *a = summary_of(g, ALICE);
	cr_expect_eq(a->n_correct, 3);
	cr_expect_float_eq(a->fast_p[3], 2.0 / 5, EPS, "fast_1: 4x on CPU A and 2x on the GPU");
	cr_expect_float_eq(a->geomean_speedup, cbrt(4.0 * (2.5 / 3.0) * 2.0), EPS);
	kf_leaderboard_free(lb);
}

/* Run 1 was asked for four tasks: layernorm_bf16 got no judged candidate (a stopped run's unsolved task);
 * run 3 (model-y) recorded no candidate at all. */
static void add_run_tasks(void)
{
	struct kf_store *s = open_store();
	char h[KF_SHA256_HEX_LEN];
	const char *const tasks[] = { "vector_add", "softmax_rows", "matmul_bf16", "layernorm_bf16" };
	for (int i = 0; i < 4; i++) {
		put_task(s, tasks[i], h);
		char sql[512];
		snprintf(sql, sizeof sql, "INSERT INTO run_tasks (run_id, position, task, task_hash) VALUES (%d, %d, '%s', '%s')",
			 RUN_CPU, i, tasks[i], h);
		exec_sql(s, sql);
		if (i < 2) {
			snprintf(sql, sizeof sql,
				 "INSERT INTO run_tasks (run_id, position, task, task_hash) VALUES (3, %d, '%s', '%s')", i,
				 tasks[i], h);
			exec_sql(s, sql);
		}
	}
	kf_store_close(s);
}

Test(leaderboard, a_run_task_with_no_judged_candidate_is_a_row_with_no_result)
{
	fill_fixture();
	add_run_tasks();
	const int64_t run[] = { RUN_CPU };
	struct kf_lb_query q = { .run_ids = run, .n_run_ids = 1 };
	struct kf_leaderboard *lb = build(&q);
	cr_assert_eq(lb->n_groups, 1);
	const struct kf_lb_group *g = group_on(lb, CPU_A);
	cr_expect_eq(g->n_cells, 4, "every task of the run is in scope, judged or not");
	const struct kf_lb_row *r = row_of(g, MODEL, "layernorm_bf16");
	cr_expect_null(r->selected);
	cr_expect_null(r->verdict, "no candidate: no verdict");
	cr_expect_eq(r->n_candidates, 0);
	cr_expect(isnan(r->time_ms) && isnan(r->speedup));
	const struct kf_lb_summary *m = summary_of(g, MODEL);
	cr_expect_eq(m->n_tasks, 4);
	cr_expect_eq(m->n_correct, 3);
	cr_expect_float_eq(m->fast_p[0], 3.0 / 4, EPS, "the unjudged task counts as a failure");
	cr_expect_float_eq(m->tokens, 1000 + 500 + 2000 + 700, EPS);
	kf_leaderboard_free(lb);

	const char *tasks[] = { "layernorm_bf16" };
	struct kf_lb_query one = { .run_ids = run, .n_run_ids = 1, .tasks = tasks, .n_tasks = 1 };
	lb = build(&one);
	cr_assert_eq(lb->n_groups, 1, "--task keeps the run's task that nothing was judged for");
	cr_expect_eq(lb->n_evals, 0);
	cr_expect_eq(lb->groups[0].n_rows, 1);
	kf_leaderboard_free(lb);
}

Test(leaderboard, a_run_with_nothing_judged_still_has_its_rows)
{
	fill_fixture();
	add_run_tasks();
	const int64_t run[] = { 3 };
	struct kf_lb_query q = { .run_ids = run, .n_run_ids = 1 };
	struct kf_leaderboard *lb = build(&q);
	cr_assert_eq(lb->n_groups, 1);
	cr_expect_str_eq(lb->groups[0].backend, "cpu");
	cr_expect_str_eq(lb->groups[0].device, KF_LB_UNKNOWN_DEVICE);
	cr_expect_eq(lb->groups[0].n_rows, 2);
	const struct kf_lb_summary *y = summary_of(&lb->groups[0], "model-y");
	cr_expect_eq(y->n_correct, 0);
	cr_expect_float_eq(y->pass_at_1, 0.0, EPS);
	cr_expect_float_eq(y->tokens, 9999 + 9999, EPS, "the run's requests still count");
	kf_leaderboard_free(lb);

	struct kf_lb_query merged = { .run_ids = run, .n_run_ids = 1, .merge = true };
	lb = build(&merged);
	cr_assert_eq(lb->n_groups, 1);
	cr_expect_eq(lb->groups[0].n_cells, 2);
	kf_leaderboard_free(lb);
}

Test(leaderboard, filters_by_run_task_backend_and_device)
{
	fill_fixture();
	const int64_t run[] = { RUN_CPU };
	struct kf_lb_query by_run = { .run_ids = run, .n_run_ids = 1 };
	struct kf_leaderboard *lb = build(&by_run);
	cr_expect_eq(lb->n_evals, 6);
	cr_expect_eq(lb->n_groups, 1);
	cr_expect_eq(lb->groups[0].n_summaries, 1);
	kf_leaderboard_free(lb);

	const char *tasks[] = { "softmax_rows" };
	struct kf_lb_query by_task = { .tasks = tasks, .n_tasks = 1 };
	lb = build(&by_task);
	cr_expect_eq(lb->n_groups, 1, "softmax_rows was only tried on CPU A");
	cr_expect_eq(lb->groups[0].n_cells, 1);
	kf_leaderboard_free(lb);

	struct kf_lb_query by_backend = { .backend = "cuda" };
	lb = build(&by_backend);
	cr_expect_eq(lb->n_groups, 1);
	cr_expect_str_eq(lb->groups[0].device, GPU);
	kf_leaderboard_free(lb);

	struct kf_lb_query by_device = { .device = "cpu b" };
	lb = build(&by_device);
	cr_expect_eq(lb->n_groups, 1, "the device filter is a case-insensitive substring");
	cr_expect_str_eq(lb->groups[0].device, CPU_B);
	kf_leaderboard_free(lb);

	struct kf_lb_query none = { .device = "TPU" };
	lb = build(&none);
	cr_expect_eq(lb->n_groups, 0);
	cr_expect_eq(lb->n_evals, 0);
	kf_leaderboard_free(lb);
}

Test(leaderboard, tokens_and_cost_are_null_when_no_request_is_on_record)
{
	struct kf_store *s = open_store();
	for (size_t i = 0; i < N_FIXTURE; i++)
		add_fx(s, &fixture[i]);
	kf_store_close(s);
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	const struct kf_lb_summary *m = summary_of(group_on(lb, CPU_A), MODEL);
	cr_expect(isnan(m->tokens) && isnan(m->cost_usd), "run 1 made no request on record");
	kf_leaderboard_free(lb);
}

Test(leaderboard, cost_is_null_when_a_finished_request_has_no_price)
{
	fill_fixture();
	struct kf_store *s = open_store();
	exec_sql(s, "INSERT INTO requests (run_id, task, round, slot, model, params, messages, prompt_hash, status,"
		    " tokens_in, tokens_out, cost_usd) VALUES (1, 'matmul_bf16', 1, 0, 'model-x', '{}', '[]', 'h', 'done',"
		    " 10, 10, NULL)");
	kf_store_close(s);
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	const struct kf_lb_summary *m = summary_of(group_on(lb, CPU_A), MODEL);
	cr_expect_float_eq(m->tokens, 4220, EPS);
	cr_expect(isnan(m->cost_usd), "a partial sum would understate the cost: %g", m->cost_usd);
	kf_leaderboard_free(lb);
}

Test(leaderboard, builds_without_the_agent_tables)
{
	fill_fixture();
	struct kf_store *s = open_store();
	exec_sql(s, "DROP TABLE request_attempts; DROP TABLE requests;");
	kf_store_close(s);
	struct kf_lb_query q = { 0 };
	struct kf_leaderboard *lb = build(&q);
	const struct kf_lb_summary *m = summary_of(group_on(lb, CPU_A), MODEL);
	cr_expect(isnan(m->tokens) && isnan(m->cost_usd));
	cr_expect_float_eq(m->pass_at_1, (1.0 + 0.5 + 1.0) / 3, EPS, "everything else is still there");
	kf_leaderboard_free(lb);
}

/* ---- formats ---- */

Test(leaderboard, every_format_matches_its_golden_file)
{
	fill_fixture();
	static const struct {
		const char *format, *golden;
		enum kf_report_table table;
		bool merge;
	} cases[] = {
		{ "csv", "rows.csv", KF_REPORT_ROWS, false },
		{ "csv", "summaries.csv", KF_REPORT_SUMMARIES, false },
		{ "json", "leaderboard.json", KF_REPORT_ROWS, false },
		{ "md", "leaderboard.md", KF_REPORT_ROWS, false },
		{ "html", "leaderboard.html", KF_REPORT_ROWS, false },
		{ "md", "merged.md", KF_REPORT_ROWS, true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct kf_lb_query q = { .merge = cases[i].merge };
		char *out = render(cases[i].format, &q, cases[i].table);
		expect_golden(cases[i].golden, out);
		free(out);
	}
}

Test(leaderboard, changing_one_time_changes_every_format)
{
	fill_fixture();
	struct kf_lb_query q = { 0 };
	static const char *const formats[] = { "csv", "json", "md", "html" };
	char *before[4];
	for (int i = 0; i < 4; i++)
		before[i] = render(formats[i], &q, KF_REPORT_ROWS);
	struct kf_store *s = open_store();
	exec_sql(s, "UPDATE evaluations SET time_ms = 0.25 WHERE candidate_id = 2");
	kf_store_close(s);
	for (int i = 0; i < 4; i++) {
		char *after = render(formats[i], &q, KF_REPORT_ROWS);
		cr_expect_str_neq(after, before[i], "%s output did not change with the selected kernel's time", formats[i]);
		free(after);
		free(before[i]);
	}
	char *json = render("json", &q, KF_REPORT_ROWS);
	cr_expect(strstr(json, "\"speedup\":\t8,"), "2.0 / 0.25 must show as speedup 8: " EXCERPT, json);
	free(json);
}

Test(leaderboard, json_keeps_rows_and_summaries_side_by_side_with_every_contract_field)
{
	fill_fixture();
	struct kf_lb_query q = { 0 };
	char *text = render("json", &q, KF_REPORT_ROWS);
	cJSON *j = cJSON_Parse(text);
	cr_assert(cJSON_IsObject(j), "not JSON: " EXCERPT, text);
	cr_expect(cJSON_IsObject(cJSON_GetObjectItem(j, "formulas")));
	cJSON *groups = cJSON_GetObjectItem(j, "groups");
	cr_assert_eq(cJSON_GetArraySize(groups), 3);
	static const char *const fields[] = { "source", "task", "verdict", "time_ms", "speedup", "vendor_speedup",
					      "sol_fraction", "sol_score" };
	const cJSON *g;
	cJSON_ArrayForEach(g, groups) {
		cr_expect(cJSON_IsString(cJSON_GetObjectItem(g, "backend")));
		cr_expect(cJSON_IsString(cJSON_GetObjectItem(g, "device")));
		cJSON *tc = cJSON_GetObjectItem(g, "toolchain");
		static const char *const lists[] = { "compilers", "driver_versions", "runtime_versions" };
		for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
			cr_expect(cJSON_IsArray(cJSON_GetObjectItem(tc, lists[i])), "toolchain.%s is not a list", lists[i]);
		cJSON *rows = cJSON_GetObjectItem(g, "rows"), *sums = cJSON_GetObjectItem(g, "summaries");
		cr_assert(cJSON_IsArray(rows) && cJSON_IsArray(sums));
		const cJSON *r;
		cJSON_ArrayForEach(r, rows) {
			for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
				cr_expect(cJSON_HasObjectItem(r, fields[i]), "a row lacks %s", fields[i]);
			cr_expect_not(cJSON_HasObjectItem(r, "fast_p"), "summaries sit beside rows, not inside");
		}
		cJSON_ArrayForEach(r, sums)
			cr_expect(cJSON_IsObject(cJSON_GetObjectItem(r, "fast_p")));
	}
	cJSON_Delete(j);
	free(text);
}

Test(leaderboard, html_is_one_self_contained_page_with_a_bar_per_correct_kernel_and_six_points_per_source)
{
	fill_fixture();
	struct kf_lb_query q = { 0 };
	char *html = render("html", &q, KF_REPORT_ROWS);
	/* Bars: CPU A 1 (alice) + 3 (model-x), CPU B 1, GPU 1. Points: (3 + 1 + 2) sources x 6 thresholds. */
	cr_expect_eq(count(html, "class=\"kf-bar\""), 6);
	cr_expect_eq(count(html, "class=\"kf-point\""), 6 * KF_LB_N_FAST_P);
	cr_expect_eq(count(html, "<svg class=\"kf-chart kf-fastp\""), 3);
	cr_expect_eq(count(html, "<svg class=\"kf-chart kf-sol\""), 3);
	cr_expect_eq(count(html, "<table class=\"sortable"), 6);
	cr_expect_eq(count(html, "http"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""),
		     "the only URL is the SVG namespace: nothing is fetched");
	cr_expect_null(strstr(html, " src="));
	cr_expect(strstr(html, "CUDA driver 13.0; CUDA runtime 12.8") && strstr(html, NVCC), "toolchain missing");
	cr_expect(strstr(html, "never merged unless --merge"), "the page must say the groups are separate");
	cr_expect_null(strstr(html, "<b>fast</b>"), "a source name reached the page unescaped");
	cr_expect(strstr(html, "o&#39;brien, &quot;the &lt;b&gt;fast&lt;/b&gt; | kernel&quot;"));
	free(html);
}

Test(leaderboard, csv_and_markdown_escape_names)
{
	fill_fixture();
	struct kf_lb_query q = { 0 };
	char *csv = render("csv", &q, KF_REPORT_ROWS);
	cr_expect(strstr(csv, ",\"o'brien, \"\"the <b>fast</b> | kernel\"\"\",vector_add,"), EXCERPT, csv);
	char *md = render("md", &q, KF_REPORT_ROWS);
	cr_expect(strstr(md, "| o'brien, \"the \\<b>fast\\</b> \\| kernel\" | vector_add |"), EXCERPT, md);
	cr_expect(strstr(md, "P(correct) >= 0.5"), "Markdown prints >= as written: " EXCERPT, md);
	free(csv);
	free(md);
}

Test(leaderboard, docs_state_every_formula_exactly_as_the_code_does)
{
	char *path = NULL;
	kf_buf b = KF_BUF_INIT;
	kf_buf_addf(&b, "%s/docs/leaderboard.md", kf_home());
	path = kf_buf_detach(&b);
	char *doc = read_text(path);
	for (int i = 0; i < KF_LB_N_FORMULAS; i++)
		cr_expect(strstr(doc, kf_lb_formulas[i].text), "docs/leaderboard.md lacks the %s formula: %s",
			  kf_lb_formulas[i].name, kf_lb_formulas[i].text);
	free(doc);
	free(path);
}

/* ---- the command line ---- */

static void run_cli(const char *const *args, struct kf_cli_result *r)
{
	kf_err err;
	cr_assert_eq(kf_cli_run(args, NULL, CLI_TIMEOUT_S, r, &err), KF_OK, "%s", err.msg);
	cr_assert_not(r->timed_out, "`kforge %s` hung", args[0]);
	cr_assert_eq(r->term_signal, 0, "`kforge %s` died of signal %d: " EXCERPT, args[0], r->term_signal, r->err);
}

static void expect_usage_error(const char *const *args, const char *mention)
{
	struct kf_cli_result r;
	run_cli(args, &r);
	cr_expect_eq(r.exit_code, KF_EINPUT, "exit %d, expected 2: " EXCERPT, r.exit_code, r.err);
	cr_expect(kf_cli_is_one_error_line(&r), "not one error line: " EXCERPT, r.err);
	cr_expect(strcasestr(r.err, mention), "the error does not mention %s: " EXCERPT, mention, r.err);
	kf_cli_result_free(&r);
}

Test(leaderboard, cli_help_lists_the_flags_and_the_formulas)
{
	const char *args[] = { "leaderboard", "--help", NULL };
	struct kf_cli_result r;
	run_cli(args, &r);
	cr_expect_eq(r.exit_code, 0);
	static const char *const mentions[] = { "--run", "--task", "--backend", "--device", "--merge", "--format",
						"--table", "-o", "--db", "csv", "json", "md", "html" };
	for (size_t i = 0; i < sizeof mentions / sizeof mentions[0]; i++)
		cr_expect(strstr(r.out, mentions[i]), "--help does not mention %s", mentions[i]);
	for (int i = 0; i < KF_LB_N_FORMULAS; i++)
		cr_expect(strstr(r.out, kf_lb_formulas[i].text), "--help lacks the %s formula", kf_lb_formulas[i].name);
	kf_cli_result_free(&r);
	const char *export[] = { "export", "--help", NULL };
	run_cli(export, &r);
	cr_expect_eq(r.exit_code, 0);
	cr_expect(strstr(r.out, "--out") && strstr(r.out, "candidates.jsonl") && strstr(r.out, "all"));
	kf_cli_result_free(&r);
}

Test(leaderboard, cli_writes_what_the_library_builds_and_takes_repeated_runs)
{
	fill_fixture();
	char out[PATH_MAX + 16];
	snprintf(out, sizeof out, "%s/lb.json", dir);
	const char *args[] = { "leaderboard", "--db", db_path, "--format", "json", "-o", out, NULL };
	struct kf_cli_result r;
	run_cli(args, &r);
	cr_assert_eq(r.exit_code, 0, EXCERPT, r.err);
	cr_expect_eq(r.out_len, 0, "-o FILE leaves standard output empty");
	char *file = read_text(out);
	struct kf_lb_query q = { 0 };
	char *lib = render("json", &q, KF_REPORT_ROWS);
	cr_expect_str_eq(file, lib);
	free(file);
	free(lib);
	kf_cli_result_free(&r);

	const char *runs[] = { "leaderboard", "--db", db_path, "--format=csv", "--run", "1", "--run=2", NULL };
	run_cli(runs, &r);
	cr_assert_eq(r.exit_code, 0, EXCERPT, r.err);
	cr_expect_eq(count(r.out, "\n"), 1 + 3 + 1, "header, model-x's three CPU rows and its GPU row: " EXCERPT, r.out);
	kf_cli_result_free(&r);
	const char *listed[] = { "leaderboard", "--db", db_path, "--format", "csv", "--run", "1,2", NULL };
	run_cli(listed, &r);
	cr_expect_eq(count(r.out, "\n"), 1 + 3 + 1);
	kf_cli_result_free(&r);
}

Test(leaderboard, cli_rejects_bad_usage_with_one_line_and_exit_2)
{
	fill_fixture();
	const char *format[] = { "leaderboard", "--db", db_path, "--format", "xlsx", NULL };
	expect_usage_error(format, "xlsx");
	const char *table[] = { "leaderboard", "--db", db_path, "--format", "json", "--table", "summaries", NULL };
	expect_usage_error(table, "--table");
	const char *backend[] = { "leaderboard", "--db", db_path, "--backend", "tpu", NULL };
	expect_usage_error(backend, "tpu");
	const char *run[] = { "leaderboard", "--db", db_path, "--run", "x1", NULL };
	expect_usage_error(run, "x1");
	const char *missing[] = { "leaderboard", "--db", db_path, "--task", NULL };
	expect_usage_error(missing, "--task");
	const char *nothing[] = { "leaderboard", "--db", db_path, "--device", "TPU", NULL };
	expect_usage_error(nothing, "matches");
	char empty[PATH_MAX + 16];
	snprintf(empty, sizeof empty, "%s/empty.db", dir);
	const char *missing_db[] = { "leaderboard", "--db", empty, NULL };
	expect_usage_error(missing_db, "no database");
	cr_expect_neq(access(empty, F_OK), 0, "a read-only command created the database %s", empty);
	struct kf_store *s;
	kf_err err;
	cr_assert_eq(kf_store_open(empty, &s, &err), KF_OK, "%s", err.msg);
	kf_store_close(s);
	const char *fresh[] = { "leaderboard", "--db", empty, NULL };
	expect_usage_error(fresh, "no evaluation");
	const char *export_run[] = { "export", "7", "--db", db_path, "--out", dir, NULL };
	expect_usage_error(export_run, "run 7");
	const char *export_out[] = { "export", "1", "--db", db_path, NULL };
	expect_usage_error(export_out, "--out");
	const char *export_id[] = { "export", "first", "--db", db_path, "--out", dir, NULL };
	expect_usage_error(export_id, "first");
}

static cJSON *read_jsonl(const char *path, int *n_lines)
{
	char *text = read_text(path);
	cJSON *all = cJSON_CreateArray();
	*n_lines = 0;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *o = cJSON_Parse(line);
		cr_assert(cJSON_IsObject(o), "line %d of %s is not a JSON object: %.200s", *n_lines + 1, path, line);
		cJSON_AddItemToArray(all, o);
		(*n_lines)++;
	}
	free(text);
	return all;
}

Test(leaderboard, export_writes_the_selected_kernels_and_one_record_per_candidate)
{
	fill_fixture();
	char out[PATH_MAX + 16], path[2 * PATH_MAX];
	snprintf(out, sizeof out, "%s/run1", dir);
	const char *args[] = { "export", "1", "--db", db_path, "--out", out, NULL };
	struct kf_cli_result r;
	run_cli(args, &r);
	cr_assert_eq(r.exit_code, 0, EXCERPT, r.err);
	kf_cli_result_free(&r);
	static const struct {
		const char *file, *code;
	} kernels[] = { { "vector_add.c", "/* m1 */" }, { "softmax_rows.c", "/* m2 */" }, { "matmul_bf16.c", "/* m5 */" } };
	for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", out, kernels[i].file);
		char *code = read_text(path);
		cr_expect_str_eq(code, kernels[i].code, "%s holds the wrong kernel", kernels[i].file);
		free(code);
	}
	snprintf(path, sizeof path, "%s/candidates.jsonl", out);
	int n = 0, n_selected = 0;
	cJSON *recs = read_jsonl(path, &n);
	cr_expect_eq(n, 6, "run 1 has six evaluated candidates");
	const cJSON *rec;
	cJSON_ArrayForEach(rec, recs) {
		static const char *const fields[] = { "task", "source", "verdict", "time_ms", "ref_time_ms", "sol_fraction",
						      "sol_score", "source_hash", "task_hash", "run_id" };
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
			cr_expect(cJSON_HasObjectItem(rec, fields[i]), "a record lacks %s", fields[i]);
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(rec, "source")), MODEL);
		if (cJSON_IsTrue(cJSON_GetObjectItem(rec, "selected"))) {
			n_selected++;
			cr_expect(cJSON_IsString(cJSON_GetObjectItem(rec, "file")));
		}
	}
	cr_expect_eq(n_selected, 3);
	cJSON_Delete(recs);
}

Test(leaderboard, export_all_nests_colliding_names_and_never_leaves_the_directory)
{
	static const struct fx escape = { "../../escape", 0, "vector_add", "cpu", CPU_A, GCC, NO_CUDA, "ok", 2.0,
					  2.0, NAN, 0.1, 0.25, NAN, "/* e1 */" };
	fill_fixture();
	struct kf_store *s = open_store();
	add_fx(s, &escape);
	kf_store_close(s);
	char out[PATH_MAX + 16], path[2 * PATH_MAX];
	snprintf(out, sizeof out, "%s/all", dir);
	const char *args[] = { "export", "all", "--db", db_path, "--out", out, NULL };
	struct kf_cli_result r;
	run_cli(args, &r);
	cr_assert_eq(r.exit_code, 0, EXCERPT, r.err);
	cr_expect(strstr(r.out, "7 selected kernels"), EXCERPT, r.out);
	kf_cli_result_free(&r);
	/* vector_add.c is selected for several sources and CPUs: those names nest by source and device;
	 * every name no other kernel shares stays flat. */
	snprintf(path, sizeof path, "%s/alice/Test_CPU_B__2_cores_/vector_add.c", out);
	char *code = read_text(path);
	cr_expect_str_eq(code, "/* a5 */");
	free(code);
	snprintf(path, sizeof path, "%s/vector_add.cu", out);
	code = read_text(path);
	cr_expect_str_eq(code, "/* a6 */", "the only vector_add.cu stays flat");
	free(code);
	snprintf(path, sizeof path, "%s/softmax_rows.c", out);
	code = read_text(path);
	cr_expect_str_eq(code, "/* m2 */", "a name no other kernel shares stays flat");
	free(code);
	snprintf(path, sizeof path, "%s/candidates.jsonl", out);
	int n = 0;
	cJSON *recs = read_jsonl(path, &n);
	cr_expect_eq(n, (int)N_FIXTURE + 1);
	const cJSON *rec;
	cJSON_ArrayForEach(rec, recs) {
		const char *file = cJSON_GetStringValue(cJSON_GetObjectItem(rec, "file"));
		if (!file)
			continue;
		cr_expect(file[0] != '/' && !strstr(file, ".."), "%s escapes the export directory", file);
		snprintf(path, sizeof path, "%s/%s", out, file);
		struct stat st;
		cr_expect_eq(stat(path, &st), 0, "%s was named but not written", file);
	}
	cJSON_Delete(recs);
	snprintf(path, sizeof path, "%s/______escape/Test_CPU_A__8_cores_/vector_add.c", out);
	code = read_text(path);
	cr_expect_str_eq(code, "/* e1 */", "a source named ../../escape stays inside the export directory");
	free(code);
}

Test(leaderboard, cli_shows_the_unjudged_tasks_of_a_run)
{
	fill_fixture();
	add_run_tasks();
	const char *args[] = { "leaderboard", "--run", "3", "--format", "csv", "--db", db_path, NULL };
	struct kf_cli_result r;
	run_cli(args, &r);
	cr_expect_eq(r.exit_code, 0, "exit %d: " EXCERPT, r.exit_code, r.err);
	cr_expect(strstr(r.out, ",model-y,vector_add,cpu,unknown,,") && strstr(r.out, ",model-y,softmax_rows,cpu,unknown,,"),
		  "a row with no result per task: " EXCERPT, r.out);
	kf_cli_result_free(&r);
}
