/* Ranking (eval/rank/rank.c) and `kforge rank`: the order (hard gates, then trust, then SOL fraction, then
 * variance, then length), and a small store judged for real and ranked end to end: votes verified
 * once and reused, the fit and posteriors stored, a run's scope, the JSON, and usage errors. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/sha256.h"
#include "db/store.h"
#include "eval/judge/judge.h"
#include "eval/report/leaderboard.h"
#include "eval/rank/rank.h"
#include "tests/support/cli.h"
#include "tests/support/llm_server.h"

#define CLI_TIMEOUT_S 120.0
#define RUN_ID 7
#define JUDGE_TIMING_BUDGET_S 0.2
#define EXCERPT "%.600s"

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

TestSuite(rank, .init = setup, .fini = teardown, .timeout = 240);

static struct kf_ranked ranked(int64_t id, bool gates, double p, double sol, double iqr, int64_t bytes)
{
	struct kf_ranked r = { .submission_id = id, .gates_passed = gates, .p_correct = p, .sol_fraction = sol,
			       .iqr_ms = iqr, .source_bytes = bytes };
	r.trusted = p >= KF_RANKING_DEFAULT_THETA;
	return r;
}

static int cmp(const void *a, const void *b)
{
	return kf_ranking_compare(a, b);
}

Test(rank, orders_by_gates_then_trust_then_sol_fraction_then_variance_then_length)
{
	struct kf_ranked r[] = {
		ranked(1, false, 0.99, 0.9, 0.1, 100), /* fast and trusted, but the judge rejected it */
		ranked(2, true, 0.2, 0.8, 0.1, 100),   /* fast, not trusted */
		ranked(3, true, 0.9, 0.3, 0.1, 100),
		ranked(4, true, 0.95, 0.5, 0.2, 100),
		ranked(5, true, 0.95, 0.5, 0.1, 300), /* same speed as 4, lower variance */
		ranked(6, true, 0.95, 0.5, 0.1, 200), /* same as 5, shorter */
		ranked(7, true, NAN, 0.9, 0.1, 100),  /* never scored: not trusted */
		ranked(8, true, 0.9, NAN, NAN, 100),  /* trusted, not timed */
	};
	qsort(r, sizeof r / sizeof r[0], sizeof r[0], cmp);
	const int64_t want[] = { 6, 5, 4, 3, 8, 7, 2, 1 };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_expect_eq(r[i].submission_id, want[i], "position %zu: %lld, expected %lld", i + 1,
			     (long long)r[i].submission_id, (long long)want[i]);
}

Test(rank, the_leaderboards_selection_rule_names_the_default_theta)
{
	char theta[32];
	snprintf(theta, sizeof theta, ">= %g", KF_RANKING_DEFAULT_THETA);
	for (int i = 0; i < KF_LB_N_FORMULAS; i++)
		if (!strcmp(kf_lb_formulas[i].name, "selected"))
			cr_expect(strstr(kf_lb_formulas[i].text, theta), "%s", kf_lb_formulas[i].text);
}

/* ---- end to end ---- */

static const struct {
	const char *file, *task;
	int64_t run_id;
} kernels[] = {
	{ "examples/cpu/vector_add.c", "vector_add", RUN_ID },
	{ "tests/corpus/vector_add/c01_plain_loop.c", "vector_add", RUN_ID },
	{ "tests/corpus/vector_add/c03_unroll4.c", "vector_add", RUN_ID },
	{ "tests/corpus/vector_add/b01_unroll32_tail_mask.c", "vector_add", RUN_ID },
	{ "tests/kernels/cpu/has_a_syntax_error.c", "vector_add", RUN_ID },
	{ "examples/cpu/softmax_rows.c", "softmax_rows", 0 },
};
#define N_KERNELS (sizeof kernels / sizeof kernels[0])
#define N_IN_RUN 5
#define HIDDEN_BUG 4  /* submission id of the tail-mask kernel */
#define NEVER_RAN 5   /* submission id of the kernel that does not compile */

static void judge_all(void)
{
	struct kf_store *s;
	kf_err err;
	cr_assert_eq(kf_store_open(db_path, &s, &err), KF_OK, "%s", err.msg);
	struct kf_peaks peaks = { 0 };
	cr_assert_eq(kf_sol_peaks(s, KF_BACKEND_CPU, 0, &peaks, &err), KF_OK, "%s", err.msg);
	for (size_t i = 0; i < N_KERNELS; i++) {
		char path[PATH_MAX], hash[KF_SHA256_HEX_LEN], *src;
		size_t len;
		snprintf(path, sizeof path, "%s/%s", kf_home(), kernels[i].file);
		cr_assert_eq(kf_read_file(path, 1u << 20, &src, &len, &err), KF_OK, "%s", err.msg);
		struct kf_task *t;
		cr_assert_eq(kf_task_find(NULL, kernels[i].task, &t, &err), KF_OK, "%s", err.msg);
		cr_assert_eq(kf_store_put_task(s, t->name, t->spec_hash, t->spec_text, &err), KF_OK, "%s", err.msg);
		kf_sha256_hex(src, len, hash);
		struct kf_candidate_rec rec = { t->name, t->spec_hash, "cpu", "submit", kernels[i].file, kernels[i].file,
						src, hash, kernels[i].run_id };
		int64_t id, eval_id;
		cr_assert_eq(kf_store_add_candidate(s, &rec, &id, &err), KF_OK, "%s", err.msg);
		struct kf_judge_opts jo;
		kf_judge_opts_default(&jo);
		jo.seed = 1000 + i;
		jo.timing_budget_s = JUDGE_TIMING_BUDGET_S;
		cJSON *res;
		cr_assert_eq(kf_judge_evaluate(t, &peaks, src, len, &jo, &res, &err), KF_OK, "%s", err.msg);
		cr_assert_eq(kf_store_add_evaluation(s, id, res, &eval_id, &err), KF_OK, "%s", err.msg);
		cJSON_Delete(res);
		kf_task_free(t);
		free(src);
	}
	kf_sol_peaks_free(&peaks);
	kf_store_close(s);
}

static int count_rows(struct kf_store *s, const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(kf_store_db(s), sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	int n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Consensus probes of every kernel that ran: the bench shape, each hidden shape, each ragged and hidden
 * shape under each stress variant. */
static int expected_probes(void)
{
	int n = 0;
	for (size_t i = 0; i < N_KERNELS; i++) {
		if (i + 1 == NEVER_RAN)
			continue;
		struct kf_task *t;
		kf_err err;
		cr_assert_eq(kf_task_find(NULL, kernels[i].task, &t, &err), KF_OK, "%s", err.msg);
		n += 1 + t->n_shapes[KF_SET_HIDDEN] + t->n_stress * (t->n_shapes[KF_SET_RAGGED] + t->n_shapes[KF_SET_HIDDEN]);
		kf_task_free(t);
	}
	return n;
}

static const struct kf_ranked *find(const struct kf_ranking *r, int64_t id)
{
	for (int i = 0; i < r->n; i++)
		if (r->c[i].submission_id == id)
			return &r->c[i];
	cr_assert_fail("candidate %lld is not in the ranking", (long long)id);
	return NULL;
}

static struct kf_ranking *rank_store(struct kf_store *s, const int64_t *runs, int n_runs, bool reverify)
{
	struct kf_ranking_opts o;
	kf_ranking_opts_default(&o);
	o.run_ids = runs;
	o.n_run_ids = n_runs;
	o.reverify = reverify;
	struct kf_ranking *r;
	kf_err err;
	cr_assert_eq(kf_ranking_build(s, &o, &r, &err), KF_OK, "%s", err.msg);
	return r;
}

Test(rank, ranks_a_judged_store_and_keeps_votes_fit_and_posteriors)
{
	judge_all();
	struct kf_store *s;
	kf_err err;
	cr_assert_eq(kf_store_open(db_path, &s, &err), KF_OK, "%s", err.msg);
	struct kf_ranking *r = rank_store(s, NULL, 0, false);
	cr_expect_str_eq(r->scope, "all");
	cr_expect_eq(r->n, (int)N_KERNELS);
	cr_expect_eq(r->n_verified, (int)N_KERNELS);
	cr_expect_eq(r->n_fitted, (int)N_KERNELS - 1, "the fit holds the candidates that passed the hard gates");
	cr_expect_eq(count_rows(s, "SELECT count(*) FROM verifier_votes"), (int)N_KERNELS * KF_VER_COUNT);
	cr_expect_eq(count_rows(s, "SELECT count(*) FROM verifier_probes"), expected_probes(),
		     "the kernel that never compiled has no probe");
	cr_expect_eq(count_rows(s, "SELECT count(*) FROM label_fits"), 1);
	cr_expect_eq(count_rows(s, "SELECT count(*) FROM posteriors"), (int)N_KERNELS);
	const struct kf_ranked *bug = find(r, HIDDEN_BUG), *never = find(r, NEVER_RAN);
	cr_expect_eq(bug->votes[KF_VER_HIDDEN].vote, KF_VOTE_FAIL, "the hidden shape n=77777 catches the tail bug");
	cr_expect(bug->gates_passed, "the judge's default tests miss it");
	cr_expect(isnan(never->p_correct) && !never->gates_passed);
	cr_expect_eq(never->position, N_IN_RUN, "a candidate that failed the gates ranks after every one that passed");
	for (int i = 0; i < r->n; i++) {
		const struct kf_ranked *c = &r->c[i];
		cr_expect_eq(c->trusted, c->p_correct >= r->theta);
		cr_expect(!strcmp(c->task, "softmax_rows") ? c->position == 1 : c->position >= 1 && c->position <= N_IN_RUN);
		if (c->gates_passed && c->submission_id != HIDDEN_BUG && !strcmp(c->task, "vector_add"))
			cr_expect_gt(c->p_correct, bug->p_correct, "correct kernel %lld should score above the hidden bug",
				     (long long)c->submission_id);
		if (i > 0 && !strcmp(c->task, r->c[i - 1].task))
			cr_expect_geq(kf_ranking_compare(c, &r->c[i - 1]), 0, "positions follow the order");
	}
	kf_ranking_free(r);

	/* Ranking again reuses the stored votes; --reverify runs the verifiers again. */
	r = rank_store(s, NULL, 0, false);
	cr_expect_eq(r->n_verified, 0);
	cr_expect_eq(find(r, HIDDEN_BUG)->votes[KF_VER_HIDDEN].vote, KF_VOTE_FAIL, "a stored vote reads back");
	kf_ranking_free(r);
	r = rank_store(s, NULL, 0, true);
	cr_expect_eq(r->n_verified, (int)N_KERNELS);
	kf_ranking_free(r);
	cr_expect_eq(count_rows(s, "SELECT count(*) FROM verifier_votes"), (int)N_KERNELS * KF_VER_COUNT,
		     "verifying again replaces the votes");

	/* A run's scope: only its candidates, pooled on their own. */
	int64_t run = RUN_ID;
	r = rank_store(s, &run, 1, false);
	cr_expect_eq(r->n, N_IN_RUN);
	cr_expect_str_eq(r->scope, "run 7");
	kf_ranking_free(r);
	kf_store_close(s);

	const char *args[] = { "rank", "7", "--json", "--evidence", "--db", db_path, NULL };
	struct kf_cli_result cli;
	cr_assert_eq(kf_cli_run(args, NULL, CLI_TIMEOUT_S, &cli, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(cli.exit_code, 0, EXCERPT, cli.err);
	cr_assert_not_null(cli.json, EXCERPT, cli.out);
	cJSON *tasks = cJSON_GetObjectItem(cli.json, "tasks");
	cr_assert_eq(cJSON_GetArraySize(tasks), 1);
	cJSON *cands = cJSON_GetObjectItem(cJSON_GetArrayItem(tasks, 0), "candidates"), *c;
	cr_expect_eq(cJSON_GetArraySize(cands), N_IN_RUN);
	int rank = 0;
	cJSON_ArrayForEach(c, cands) {
		cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(c, "rank")), ++rank);
		cJSON *hidden = cJSON_GetObjectItem(cJSON_GetObjectItem(c, "votes"), "hidden");
		cr_expect(cJSON_IsString(cJSON_GetObjectItem(hidden, "vote")));
		cr_expect(cJSON_IsObject(cJSON_GetObjectItem(hidden, "evidence")));
	}
	cJSON *model = cJSON_GetObjectItem(cli.json, "label_model");
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(model, "verifiers")), KF_VER_COUNT);
	kf_cli_result_free(&cli);

	const char *human[] = { "rank", "all", "--task", "vector_add", "--db", db_path, NULL };
	cr_assert_eq(kf_cli_run(human, NULL, CLI_TIMEOUT_S, &cli, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(cli.exit_code, 0, EXCERPT, cli.err);
	cr_expect(strstr(cli.out, "vector_add (cpu)") && !strstr(cli.out, "softmax_rows (cpu)"), EXCERPT, cli.out);
	cr_expect(strstr(cli.out, "label model:"), EXCERPT, cli.out);
	kf_cli_result_free(&cli);

	/* --llm-judge: every candidate of the run that passed the gates is asked once, through the
	 * loopback server (whose "example" for vector_add is a review ending in a verdict). */
	char review[PATH_MAX + 32];
	snprintf(review, sizeof review, "%s/vector_add.c", dir);
	cr_assert_eq(kf_write_file(review, "Bounds are checked.\nVERDICT: correct\n", 37, &err), KF_OK, "%s", err.msg);
	struct kf_llm_server_config sc = { .examples_dir = dir };
	struct kf_llm_server *srv;
	cr_assert_eq(kf_llm_server_start(&sc, &srv, &err), KF_OK, "%s", err.msg);
	const char *judged[] = { "rank", "7", "--llm-judge", "judge-m", "--llm-base-url", kf_llm_server_url(srv), "--json",
				 "--evidence", "--db", db_path, NULL };
	for (int pass = 0; pass < 2; pass++) {
		cr_assert_eq(kf_cli_run(judged, NULL, CLI_TIMEOUT_S, &cli, &err), KF_OK, "%s", err.msg);
		cr_expect_eq(cli.exit_code, 0, EXCERPT, cli.err);
		cr_expect_eq(kf_llm_server_requests(srv), N_IN_RUN - 1, "asked once per gate-passer, not again (pass %d)", pass);
		cands = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cli.json, "tasks"), 0), "candidates");
		int passes = 0;
		cJSON_ArrayForEach(c, cands) {
			cJSON *llm = cJSON_GetObjectItem(cJSON_GetObjectItem(c, "votes"), "llm_judge");
			const char *vote = cJSON_GetStringValue(cJSON_GetObjectItem(llm, "vote"));
			const char *model = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(llm, "evidence"), "model"));
			passes += vote && !strcmp(vote, "pass") && model && !strcmp(model, "judge-m");
		}
		cr_expect_eq(passes, N_IN_RUN - 1);
		kf_cli_result_free(&cli);
	}
	kf_llm_server_stop(srv);
}

Test(rank, cli_reports_usage_errors_on_one_line)
{
	const char *const *cases[] = {
		(const char *const[]){ "rank", NULL },
		(const char *const[]){ "rank", "seven", NULL },
		(const char *const[]){ "rank", "all", "--theta", "1.5", NULL },
		(const char *const[]){ "rank", "all", "--evidence", NULL },
		(const char *const[]){ "rank", "3", NULL }, /* nothing to rank in an empty database */
		(const char *const[]){ "rank", "all", "--llm-base-url", "http://127.0.0.1:9/v1", NULL },
		(const char *const[]){ "rank", "all", "--llm-judge", "m", NULL }, /* no endpoint, no key */
		(const char *const[]){ "rank", "all", "--llm-judge", "m", "--llm-provider", "mistral", NULL },
	};
	char env_db[PATH_MAX + 16];
	snprintf(env_db, sizeof env_db, "KFORGE_DB=%s", db_path);
	const char *env[] = { env_db, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", NULL };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct kf_cli_result r;
		kf_err err;
		cr_assert_eq(kf_cli_run(cases[i], env, CLI_TIMEOUT_S, &r, &err), KF_OK, "%s", err.msg);
		cr_expect_eq(r.exit_code, 2, "case %zu: exit %d, " EXCERPT, i, r.exit_code, r.err);
		cr_expect(kf_cli_is_one_error_line(&r), "case %zu: " EXCERPT, i, r.err);
		kf_cli_result_free(&r);
	}
	const char *help[] = { "rank", "--help", NULL };
	struct kf_cli_result r;
	kf_err err;
	cr_assert_eq(kf_cli_run(help, env, CLI_TIMEOUT_S, &r, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(r.exit_code, 0);
	for (int v = 0; v < KF_VER_COUNT; v++)
		cr_expect(strstr(r.out, kf_verifier_name((enum kf_verifier)v)), "--help lacks %s", kf_verifier_name(v));
	kf_cli_result_free(&r);
}
