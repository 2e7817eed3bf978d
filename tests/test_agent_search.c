/* The run loop (agent/search.c) in process, against the loopback scripted server, with a fake
 * judge that decides verdicts instantly from the source: every request, attempt, reply, candidate
 * and evaluation lands in the store; rounds refine the best candidates; identical code is judged
 * once; faults are retried or recorded; budgets, the wall-clock limit and a stop signal end a run
 * cleanly, and --resume finishes it without re-sending a finished request or re-judging a judged
 * candidate; keys are sent and never stored. The real judge is exercised in test_agent_run.c. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/record.h"
#include "common/buf.h"
#include "common/fs.h"
#include "tests/support/cli.h"
#include "tests/support/llm_server.h"

#define TEST_TIMEOUT_S 180
#define LAZY_MARK "{\n\treturn 0;\n}"
#define BROKEN_MARK "semicolon is missing"
#define FAKE_SOL 0.5
#define FAKE_FAST_SOL 0.9
#define TOKENS_PER_REPLY 1500 /* the server's default usage: 1000 in + 500 out */

struct fake_judge {
	int calls, verify_calls;
	bool broken;
	bool lazy_ok; /* judge the lazy kernel ok, and faster than the good one (the verifiers still fail it) */
	volatile sig_atomic_t *stop_after_first; /* raised after the first judgement */
};

static char tmpdir[PATH_MAX], db_path[PATH_MAX];
static struct kf_store *store;
static struct kf_llm_server *srv;
static struct kf_task *tasks[2];
static struct fake_judge fake;
static struct kf_peaks peaks;
static volatile sig_atomic_t stop_flag;

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_mkdtemp("/tmp", "kforge-search-", tmpdir, sizeof tmpdir, &err), KF_OK, "%s", err.msg);
	snprintf(db_path, sizeof db_path, "%s/kforge.db", tmpdir);
	cr_assert_eq(kf_store_open(db_path, &store, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_task_find(NULL, "vector_add", &tasks[0], &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_task_find(NULL, "softmax_rows", &tasks[1], &err), KF_OK, "%s", err.msg);
	memset(&fake, 0, sizeof fake);
	memset(&peaks, 0, sizeof peaks);
	snprintf(peaks.device, sizeof peaks.device, "fake CPU");
	snprintf(peaks.key, sizeof peaks.key, "fake");
	peaks.bw_bytes_s = 10e9;
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		peaks.flops_s[d] = 100e9;
	stop_flag = 0;
}

static void teardown(void)
{
	kf_llm_server_stop(srv);
	srv = NULL;
	kf_store_close(store);
	store = NULL;
	for (int i = 0; i < 2; i++)
		kf_task_free(tasks[i]);
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(agent_search, .init = setup, .fini = teardown, .timeout = TEST_TIMEOUT_S);

/* ---- helpers ---- */

static int fake_evaluate(void *ctx, const struct kf_task *t, const struct kf_peaks *p, const char *src, size_t len,
			 uint64_t seed, cJSON **result, kf_err *err)
{
	struct fake_judge *f = ctx;
	(void)t;
	(void)p;
	(void)len;
	f->calls++;
	if (f->stop_after_first)
		*f->stop_after_first = 1;
	if (f->broken)
		return kf_errf(err, KF_EINTERNAL, "the reference kernel is missing (fake)");
	cJSON *r = cJSON_CreateObject();
	cJSON_AddNumberToObject(r, "seed", (double)(seed >> 11));
	if (strstr(src, BROKEN_MARK)) {
		cJSON_AddStringToObject(r, "verdict", "compile_error");
		cJSON_AddStringToObject(r, "reason", "the compiler rejected the source");
		cJSON *c = cJSON_AddObjectToObject(r, "compile");
		cJSON_AddStringToObject(c, "log", "candidate.c:3:18: error: expected ';' before '}' token\n");
	} else if (strstr(src, LAZY_MARK) && !f->lazy_ok) {
		cJSON_AddStringToObject(r, "verdict", "unwritten_output");
		cJSON_AddStringToObject(r, "reason", "1024 of 1024 elements of output 'out' were never written");
	} else {
		cJSON_AddStringToObject(r, "verdict", "ok");
		cJSON_AddStringToObject(r, "reason", "passed every check");
		cJSON_AddNumberToObject(r, "time_ms", 2.0);
		cJSON_AddNumberToObject(r, "ref_time_ms", 3.0);
		cJSON_AddNumberToObject(r, "speedup", 1.5);
		cJSON_AddNumberToObject(r, "t_sol_ms", 1.0);
		cJSON_AddNumberToObject(r, "sol_fraction", strstr(src, LAZY_MARK) ? FAKE_FAST_SOL : FAKE_SOL);
		cJSON_AddStringToObject(r, "bound", "memory");
	}
	*result = r;
	return KF_OK;
}

/* Votes decided from the source like the verdicts: a kernel that writes nothing fails the run-based
 * verifiers (the hidden shapes, the stress inputs, the ragged shapes) and every other kernel
 * passes them; the rest abstain. */
static int fake_verify(void *ctx, const struct kf_task *t, const char *src, size_t len, const cJSON *judge_result,
		       const struct kf_verify_opts *o, struct kf_verify_result *out, kf_err *err)
{
	static const enum kf_verifier runs[] = { KF_VER_RAGGED, KF_VER_HIDDEN, KF_VER_STRESS };
	struct fake_judge *f = ctx;
	(void)t;
	(void)len;
	(void)judge_result;
	(void)o;
	(void)err;
	f->verify_calls++;
	memset(out, 0, sizeof *out);
	for (int v = 0; v < KF_VER_COUNT; v++) {
		out->votes[v].vote = v == KF_VER_TESTS ? KF_VOTE_PASS : KF_VOTE_ABSTAIN;
		out->votes[v].evidence = cJSON_CreateObject();
		cJSON_AddStringToObject(out->votes[v].evidence, "why", "fake");
	}
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
		out->votes[runs[i]].vote = strstr(src, LAZY_MARK) ? KF_VOTE_FAIL : KF_VOTE_PASS;
	return KF_OK;
}

static void serve(const struct kf_llm_server_config *sc)
{
	kf_err err;
	cr_assert_eq(kf_llm_server_start(sc, &srv, &err), KF_OK, "%s", err.msg);
}

/* A configuration for the server, with extra flag/value pairs (NULL-terminated). */
static cJSON *config(const char *const *flags)
{
	kf_err err;
	cJSON *c = kf_agent_config_default();
	const char *base[] = { "model", "scripted", "provider", "openai", "base-url", kf_llm_server_url(srv),
			       "samples", "4", "rounds", "2", "keep", "2", "concurrency", "8", "seed", "7", NULL };
	for (int i = 0; base[i]; i += 2)
		cr_assert_eq(kf_agent_config_set(c, base[i], base[i + 1], &err), KF_OK, "%s", err.msg);
	for (int i = 0; flags && flags[i]; i += 2)
		cr_assert_eq(kf_agent_config_set(c, flags[i], flags[i + 1], &err), KF_OK, "--%s: %s", flags[i], err.msg);
	return c;
}

static int run(cJSON *cfg, int n_tasks, int64_t resume, const char *key, struct kf_agent_summary *sum, kf_err *err)
{
	const struct kf_agent_judge judge = { .evaluate = fake_evaluate, .verify = fake_verify, .ctx = &fake };
	struct kf_agent_run_args a = { .store = store, .resume_id = resume, .config = cfg, .tasks = tasks,
				       .n_tasks = n_tasks, .api_key = key, .judge = &judge, .peaks = &peaks,
				       .stop = &stop_flag };
	return kf_agent_run(&a, sum, err);
}

static void run_ok(cJSON *cfg, int n_tasks, int64_t resume, struct kf_agent_summary *sum)
{
	kf_err err;
	cr_assert_eq(run(cfg, n_tasks, resume, NULL, sum, &err), KF_OK, "%s", err.msg);
}

static int64_t q(const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(kf_store_db(store), sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(kf_store_db(store)));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static const struct kf_agent_task_summary *task_of(const struct kf_agent_summary *s, const char *name)
{
	for (int i = 0; i < s->n_tasks; i++)
		if (!strcmp(s->tasks[i].task, name))
			return &s->tasks[i];
	cr_assert_fail("no task %s in the summary", name);
	return NULL;
}

static const enum kf_scripted_reply mixed[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_NO_CODE, KF_LLM_LAZY };

/* ---- tests ---- */

Test(agent_search, records_every_request_reply_candidate_and_evaluation)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	cJSON *cfg = config(NULL);
	struct kf_agent_summary sum;
	run_ok(cfg, 2, 0, &sum);
	cr_expect_str_eq(sum.status, "done");
	cr_expect_eq(kf_llm_server_requests(srv), 16, "2 tasks x 4 samples x 2 rounds");
	cr_expect_eq(kf_llm_server_refinements(srv), 8);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE status = 'done' AND reply IS NOT NULL AND response IS NOT NULL"), 16);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE tokens_in = 1000 AND tokens_out = 500 AND latency_ms > 0"
		       " AND finish_reason = 'stop' AND cost_usd IS NULL AND finished_at IS NOT NULL"),
		     16);
	cr_expect_eq(q("SELECT COUNT(*) FROM request_attempts WHERE error IS NULL AND http_status = 200"), 16);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE outcome = 'no_code' AND candidate_id IS NULL"), 2);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE outcome = 'code' AND candidate_id IS NULL"), 0);
	cr_expect_eq(q("SELECT COUNT(*) FROM candidates WHERE origin = 'agent' AND run_id = 1"), 6, "good, broken, lazy per task");
	cr_expect_eq(q("SELECT COUNT(*) FROM evaluations"), 6);
	cr_expect_eq(fake.calls, 6, "identical code is judged once");
	cr_expect_eq(q("SELECT COUNT(*) FROM candidates c WHERE (SELECT COUNT(*) FROM evaluations e WHERE e.candidate_id = c.id) <> 1"), 0);
	/* Round 2 refines the best two: the correct kernel and the lazy one, never the one that did not compile. */
	cr_expect_eq(q("SELECT COUNT(*) FROM requests r JOIN evaluations e ON e.candidate_id = r.parent_candidate_id"
		       " WHERE r.round = 2 AND e.verdict IN ('ok', 'unwritten_output')"),
		     8);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE round = 2 AND messages LIKE '%\"role\":\"assistant\"%'"
		       " AND (messages LIKE '%Your kernel is correct%' OR messages LIKE '%never written%')"),
		     8, "a refinement shows the parent's code and the judge's feedback");
	cr_expect_eq(sum.n_tasks, 2);
	cr_expect_eq(sum.ok_tasks, 2);
	cr_expect_eq(sum.tokens_in + sum.tokens_out, 16 * TOKENS_PER_REPLY);
	cr_expect(isnan(sum.cost_usd), "no price for model 'scripted'");
	for (int i = 0; i < 2; i++) {
		const struct kf_agent_task_summary *t = task_of(&sum, tasks[i]->name);
		cr_expect_eq(t->requests, 8);
		cr_expect_eq(t->no_code, 1);
		cr_expect_eq(t->candidates, 3);
		cr_expect_eq(t->ok, 1);
		cr_expect_str_eq(t->best_verdict, "ok");
		cr_expect_float_eq(t->best_sol_fraction, FAKE_SOL, 1e-12);
	}
	cr_expect_eq(q("SELECT COUNT(*) FROM runs WHERE status = 'done' AND stop_reason IS NULL"), 1);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, retries_or_records_every_fault)
{
	static const enum kf_llm_fault faults[] = { KF_LLM_FAULT_429,	    KF_LLM_FAULT_500,	      KF_LLM_FAULT_529,
						    KF_LLM_FAULT_TRUNCATED_JSON, KF_LLM_FAULT_SHORT_BODY, KF_LLM_FAULT_RESET,
						    KF_LLM_FAULT_STALL,	    KF_LLM_FAULT_401 };
	static const enum kf_scripted_reply good[] = { KF_LLM_GOOD };
	struct kf_llm_server_config sc = { .script = good, .script_len = 1, .faults = faults, .n_faults = 8,
					   .stall_s = 60 };
	serve(&sc);
	const char *flags[] = { "samples", "8", "rounds", "1", "stall-timeout", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	cr_expect_str_eq(sum.status, "done");
	cr_expect_eq(kf_llm_server_requests(srv), 15, "7 faults retried once each, the 401 never");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE status = 'done' AND attempts = 2"), 7);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE status = 'failed' AND outcome = 'http_error' AND http_status = 401"
		       " AND attempts = 1 AND error LIKE '%invalid API key%'"),
		     1);
	cr_expect_eq(q("SELECT COUNT(*) FROM request_attempts WHERE error IS NOT NULL"), 8);
	cr_expect_eq(q("SELECT COUNT(*) FROM request_attempts WHERE http_status = 429 AND retry_after_s = 1 AND retry_in_s >= 1"), 1);
	cr_expect_eq(q("SELECT COUNT(*) FROM request_attempts WHERE http_status IN (500, 529) AND retry_in_s > 0"), 2);
	cr_expect_eq(q("SELECT COUNT(*) FROM request_attempts WHERE http_status = 401 AND retry_in_s IS NULL"), 1);
	cr_expect_eq(q("SELECT COUNT(*) FROM request_attempts WHERE error LIKE '%malformed or truncated%'"), 1);
	cr_expect_eq(q("SELECT COUNT(*) FROM request_attempts WHERE http_status IS NULL AND error IS NOT NULL"), 2,
		     "a reset and a stall leave no status");
	cr_expect_eq(q("SELECT COUNT(*) FROM request_attempts WHERE http_status = 200 AND error LIKE '%partial file%'"), 1,
		     "a body shorter than announced is a transport error after the headers");
	cr_expect_eq(task_of(&sum, "vector_add")->ok, 1);
	cr_expect_eq(task_of(&sum, "vector_add")->failed_requests, 1);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, records_replies_without_usable_code_and_keeps_huge_ones)
{
	static const enum kf_scripted_reply odd[] = { KF_LLM_UNTERMINATED, KF_LLM_CONFLICTING, KF_LLM_EMPTY_BLOCK,
						      KF_LLM_HUGE };
	struct kf_llm_server_config sc = { .script = odd, .script_len = 4 };
	serve(&sc);
	const char *flags[] = { "rounds", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE outcome = 'unterminated_block' AND finish_reason = 'length'"), 1);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE outcome = 'conflicting_files' AND error LIKE '%helpers.h%'"), 1);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE outcome = 'empty_block'"), 1);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE outcome = 'code' AND length(reply) > 2000000"), 1);
	cr_expect_eq(task_of(&sum, "vector_add")->no_code, 3);
	cr_expect_eq(task_of(&sum, "vector_add")->ok, 1, "the kernel after 2 MB of prose is judged");
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, token_budget_stops_sending_and_resume_finishes_without_resending)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	const char *flags[] = { "concurrency", "1", "budget-tokens", "3000", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	cr_expect_str_eq(sum.status, "stopped");
	cr_expect(strstr(sum.stop_reason, "token budget"), "%s", sum.stop_reason);
	cr_expect_eq(kf_llm_server_requests(srv), 2);
	int64_t done = q("SELECT COUNT(*) FROM requests WHERE status <> 'pending'");
	cr_expect_eq(done, 2);
	cr_expect_eq(q("SELECT COUNT(*) FROM candidates c WHERE NOT EXISTS (SELECT 1 FROM evaluations e WHERE e.candidate_id = c.id)"),
		     0, "replies already paid for are judged before stopping");
	int judged = fake.calls;
	kf_agent_summary_free(&sum);
	kf_err err;
	cr_assert_eq(kf_agent_config_set(cfg, "budget-tokens", "1000000", &err), KF_OK);
	run_ok(cfg, 0, 1, &sum);
	cr_expect_str_eq(sum.status, "done");
	cr_expect_eq(kf_llm_server_requests(srv), 8, "no finished request was sent again");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests"), 8);
	cr_expect_eq(q("SELECT COUNT(*) FROM evaluations"), fake.calls, "each candidate judged once");
	cr_expect_gt(fake.calls, judged);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, cost_budget_uses_the_given_prices)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	const char *flags[] = { "concurrency", "1", "price-in", "1", "price-out", "2", "budget-usd", "0.004", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	/* 1000 in at $1/M + 500 out at $2/M = $0.002 per request. */
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE abs(cost_usd - 0.002) < 1e-12"), 2);
	cr_expect_str_eq(sum.status, "stopped");
	cr_expect(strstr(sum.stop_reason, "cost budget"), "%s", sum.stop_reason);
	cr_expect_float_eq(sum.cost_usd, 0.004, 1e-12);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, refuses_a_cost_budget_for_a_model_without_a_price)
{
	struct kf_llm_server_config sc = { 0 };
	serve(&sc);
	const char *flags[] = { "budget-usd", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	kf_err err;
	cr_expect_eq(run(cfg, 1, 0, NULL, &sum, &err), KF_EINPUT);
	cr_expect(strstr(err.msg, "--price-in"), "%s", err.msg);
	cJSON_Delete(cfg);
}

Test(agent_search, a_stop_signal_leaves_a_run_that_resumes_without_rejudging)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4, .latency_s = 0.2 };
	serve(&sc);
	cJSON *cfg = config(NULL);
	struct kf_agent_summary sum;
	fake.stop_after_first = &stop_flag;
	run_ok(cfg, 2, 0, &sum);
	cr_expect_str_eq(sum.status, "stopped");
	cr_expect_str_eq(sum.stop_reason, "interrupted");
	int64_t finished = q("SELECT COUNT(*) FROM requests WHERE status <> 'pending'");
	int64_t judged = q("SELECT COUNT(*) FROM evaluations");
	cr_expect_eq(judged, 0, "a judgement that overlapped the signal is not recorded");
	cr_expect_lt(finished, 16);
	kf_agent_summary_free(&sum);
	int served = kf_llm_server_requests(srv);
	fake.stop_after_first = NULL;
	stop_flag = 0;
	run_ok(cfg, 0, 1, &sum);
	cr_expect_str_eq(sum.status, "done");
	cr_expect_eq(kf_llm_server_requests(srv) - served, 16 - finished, "only unfinished requests are sent again");
	cr_expect_eq(q("SELECT COUNT(*) FROM candidates c WHERE (SELECT COUNT(*) FROM evaluations e WHERE e.candidate_id = c.id) <> 1"), 0);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, the_time_limit_stops_at_once_and_resume_sends_what_was_in_flight)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4, .latency_s = 3 };
	serve(&sc);
	const char *flags[] = { "max-minutes", "0.01", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	cr_expect_str_eq(sum.status, "stopped");
	cr_expect(strstr(sum.stop_reason, "time budget"), "%s", sum.stop_reason);
	cr_expect_lt(sum.wall_s, 2.5, "the limit (0.6 s) did not wait for replies (%.1f s)", sum.wall_s);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE status = 'pending'"), 4);
	kf_agent_summary_free(&sum);
	kf_err err;
	cr_assert_eq(kf_agent_config_set(cfg, "max-minutes", "10", &err), KF_OK);
	run_ok(cfg, 0, 1, &sum);
	cr_expect_str_eq(sum.status, "done");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE status = 'done'"), 8);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, resume_refuses_to_change_the_model)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	const char *flags[] = { "rounds", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	kf_agent_summary_free(&sum);
	kf_err err;
	cr_assert_eq(kf_agent_config_set(cfg, "model", "another", &err), KF_OK);
	cr_expect_eq(run(cfg, 0, 1, NULL, &sum, &err), KF_EINPUT);
	cr_expect(strstr(err.msg, "model"), "%s", err.msg);
	cr_expect_eq(run(cfg, 0, 99, NULL, &sum, &err), KF_EINPUT);
	cr_expect(strstr(err.msg, "no run with id 99"), "%s", err.msg);
	cr_expect_eq(q("SELECT COUNT(*) FROM runs WHERE status = 'done'"), 1, "a refused resume changes nothing");
	cJSON_Delete(cfg);
}

/* Every text value in every table of the database. */
static bool database_contains(const char *needle)
{
	sqlite3 *db = kf_store_db(store);
	sqlite3_stmt *tables;
	bool found = false;
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &tables, NULL), SQLITE_OK);
	while (!found && sqlite3_step(tables) == SQLITE_ROW) {
		char sql[256];
		sqlite3_stmt *st;
		snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", (const char *)sqlite3_column_text(tables, 0));
		cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
		while (!found && sqlite3_step(st) == SQLITE_ROW)
			for (int c = 0; c < sqlite3_column_count(st) && !found; c++) {
				const unsigned char *v = sqlite3_column_text(st, c);
				found = v && strstr((const char *)v, needle);
			}
		sqlite3_finalize(st);
	}
	sqlite3_finalize(tables);
	return found;
}

Test(agent_search, sends_the_api_key_but_never_stores_it)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	const char *flags[] = { "rounds", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	kf_err err;
	cr_assert_eq(run(cfg, 1, 0, "sk-secret-4242", &sum, &err), KF_OK, "%s", err.msg);
	char auth[256];
	kf_llm_server_last_auth(srv, auth, sizeof auth);
	cr_expect_str_eq(auth, "Authorization: Bearer sk-secret-4242");
	cr_expect_not(database_contains("sk-secret-4242"), "the API key reached the database");
	cr_expect(database_contains("scripted"), "the scan does see the run's text");
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, speaks_the_anthropic_messages_api)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	const char *flags[] = { "provider", "anthropic", "thinking-budget", "2048", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	kf_err err;
	cr_assert_eq(run(cfg, 1, 0, "ak-test", &sum, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(kf_llm_server_api_requests(srv, "anthropic"), 8);
	cr_expect_eq(kf_llm_server_api_requests(srv, "openai"), 0);
	char auth[256];
	kf_llm_server_last_auth(srv, auth, sizeof auth);
	cr_expect_str_eq(auth, "x-api-key: ak-test");
	cr_expect_eq(task_of(&sum, "vector_add")->ok, 1);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE finish_reason = 'end_turn' AND params LIKE '%thinking_budget%'"), 8);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, a_judge_failure_is_recorded_as_internal_error_and_the_run_goes_on)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	fake.broken = true;
	cJSON *cfg = config(NULL);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	cr_expect_str_eq(sum.status, "done");
	cr_expect_eq(q("SELECT COUNT(*) FROM evaluations WHERE verdict = 'internal_error' AND reason LIKE '%reference kernel is missing%'"),
		     3);
	cr_expect_eq(task_of(&sum, "vector_add")->ok, 0);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, writes_the_best_correct_kernel_of_each_task)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	const char *flags[] = { "rounds", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 2, 0, &sum);
	char out[PATH_MAX], path[PATH_MAX], example[PATH_MAX];
	snprintf(out, sizeof out, "%s/best", tmpdir);
	int written = 0;
	kf_err err;
	cr_assert_eq(kf_agent_write_best(store, &sum, out, &written, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(written, 2);
	snprintf(path, sizeof path, "%s/vector_add.c", out);
	snprintf(example, sizeof example, "%s/examples/cpu/vector_add.c", kf_home());
	char *got = NULL, *want = NULL;
	cr_assert_eq(kf_read_file(path, 1u << 20, &got, NULL, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_read_file(example, 1u << 20, &want, NULL, &err), KF_OK, "%s", err.msg);
	cr_expect_str_eq(got, want, "the written kernel is the correct one, byte for byte");
	free(got);
	free(want);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, resume_repairs_what_a_crash_left_half_written)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	const char *flags[] = { "rounds", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	kf_agent_summary_free(&sum);
	int64_t good = q("SELECT candidate_id FROM evaluations WHERE verdict = 'ok'");
	int64_t lazy = q("SELECT candidate_id FROM evaluations WHERE verdict = 'unwritten_output'");
	int64_t candidates = q("SELECT COUNT(*) FROM candidates");
	/* A crash after a reply was stored but before its candidate was linked, and one after a
	 * candidate was stored but before its evaluation was. */
	char sql[512];
	snprintf(sql, sizeof sql,
		 "UPDATE requests SET candidate_id = NULL WHERE candidate_id = %lld;"
		 "DELETE FROM samples WHERE evaluation_id IN (SELECT id FROM evaluations WHERE candidate_id = %lld);"
		 "DELETE FROM posteriors WHERE evaluation_id IN (SELECT id FROM evaluations WHERE candidate_id = %lld);"
		 "DELETE FROM evaluations WHERE candidate_id = %lld; UPDATE runs SET status = 'running'",
		 (long long)good, (long long)lazy, (long long)lazy, (long long)lazy);
	cr_assert_eq(sqlite3_exec(kf_store_db(store), sql, NULL, NULL, NULL), SQLITE_OK);
	int served = kf_llm_server_requests(srv), judged = fake.calls;
	run_ok(cfg, 0, 1, &sum);
	cr_expect_str_eq(sum.status, "done");
	cr_expect_eq(kf_llm_server_requests(srv), served, "the stored reply was used, not asked for again");
	cr_expect_eq(fake.calls, judged + 1, "only the unjudged candidate was judged");
	cr_expect_eq(q("SELECT COUNT(*) FROM candidates"), candidates, "the relinked code is the same candidate");
	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM requests WHERE candidate_id = %lld", (long long)good);
	cr_expect_eq(q(sql), 1);
	cr_expect_eq(q("SELECT COUNT(*) FROM candidates c WHERE (SELECT COUNT(*) FROM evaluations e WHERE e.candidate_id = c.id) <> 1"), 0);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

/* ---- ranking ---- */

static const enum kf_scripted_reply good_and_lazy[] = { KF_LLM_GOOD, KF_LLM_LAZY };

/* Refinement requests whose parent was judged at this SOL fraction. */
static int64_t refinements_of(double sol)
{
	char sql[256];
	snprintf(sql, sizeof sql,
		 "SELECT COUNT(*) FROM requests r JOIN evaluations e ON e.candidate_id = r.parent_candidate_id"
		 " WHERE r.round = 2 AND e.sol_fraction = %g",
		 sol);
	return q(sql);
}

Test(agent_search, refines_and_reports_the_trusted_candidate_over_a_faster_doubted_one)
{
	struct kf_llm_server_config sc = { .script = good_and_lazy, .script_len = 2 };
	serve(&sc);
	fake.lazy_ok = true; /* the lazy kernel passes the judge, faster, but fails the hidden shapes */
	const char *flags[] = { "samples", "2", "keep", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 2, 0, &sum);
	cr_expect_eq(refinements_of(FAKE_SOL), 4, "every refinement's parent is the trusted kernel");
	cr_expect_eq(refinements_of(FAKE_FAST_SOL), 0, "the faster kernel the verifiers doubt is never refined");
	for (int i = 0; i < 2; i++) {
		const struct kf_agent_task_summary *t = task_of(&sum, tasks[i]->name);
		cr_expect_eq(t->ok, 2);
		cr_expect_eq(t->trusted, 1);
		cr_expect(t->best_trusted);
		cr_expect_float_eq(t->best_sol_fraction, FAKE_SOL, 1e-12, "the report selects the trusted kernel");
	}
	cr_expect_eq(fake.verify_calls, 4, "each correct candidate is verified once; later rankings reuse its votes");
	cr_expect_eq(q("SELECT COUNT(*) FROM verifier_votes WHERE verifier = 'hidden' AND vote = 'fail'"), 2);
	cr_expect_eq(q("SELECT COUNT(*) FROM verifications v JOIN evaluations e ON e.id = v.evaluation_id"
		       " WHERE e.verdict <> 'ok'"),
		     0, "a run verifies only what passed the judge");
	cr_expect_gt(q("SELECT COUNT(*) FROM label_fits WHERE scope = 'run 1'"), 0);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, a_pool_too_small_to_fit_trusts_what_no_rerunning_verifier_failed)
{
	struct kf_llm_server_config sc = { .script = good_and_lazy, .script_len = 2 };
	serve(&sc);
	fake.lazy_ok = true;
	const char *flags[] = { "samples", "2", "keep", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	/* Two survivors: under three votes per verifier, the label model keeps none. */
	cr_expect_eq(q("SELECT COUNT(*) FROM label_fits WHERE json_extract(model, '$.trust') = 'unanimity'"
		       " AND json_extract(model, '$.kept') = 0"),
		     q("SELECT COUNT(*) FROM label_fits"));
	cr_expect_eq(refinements_of(FAKE_SOL), 2);
	const struct kf_agent_task_summary *t = task_of(&sum, "vector_add");
	cr_expect(t->best_trusted);
	cr_expect(isnan(t->best_p_correct), "no posterior without a fitted model");
	cr_expect_float_eq(t->best_sol_fraction, FAKE_SOL, 1e-12);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, verify_off_keeps_the_verdict_then_speed_order)
{
	struct kf_llm_server_config sc = { .script = good_and_lazy, .script_len = 2 };
	serve(&sc);
	fake.lazy_ok = true;
	const char *flags[] = { "samples", "2", "keep", "1", "verify", "off", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 2, 0, &sum);
	cr_expect_eq(refinements_of(FAKE_FAST_SOL), 4, "without verifiers the fastest correct kernel is refined");
	cr_expect_eq(fake.verify_calls, 0);
	cr_expect_eq(q("SELECT COUNT(*) FROM label_fits"), 0);
	cr_expect_float_eq(task_of(&sum, "vector_add")->best_sol_fraction, FAKE_FAST_SOL, 1e-12);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, a_resumed_run_ranks_from_the_stored_votes)
{
	struct kf_llm_server_config sc = { .script = good_and_lazy, .script_len = 2 };
	serve(&sc);
	fake.lazy_ok = true;
	const char *flags[] = { "samples", "2", "keep", "1", "rounds", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 2, 0, &sum);
	kf_agent_summary_free(&sum);
	cr_expect_eq(fake.verify_calls, 4, "the end of the run ranks its correct candidates");
	kf_err err;
	cr_assert_eq(kf_agent_config_set(cfg, "rounds", "2", &err), KF_OK);
	run_ok(cfg, 0, 1, &sum);
	cr_expect_str_eq(sum.status, "done");
	cr_expect_eq(fake.verify_calls, 4, "nothing verified again after the resume");
	cr_expect_eq(refinements_of(FAKE_SOL), 4);
	cr_expect(task_of(&sum, "softmax_rows")->best_trusted);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, asks_the_llm_judge_about_correct_candidates_when_given_a_model)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	const char *flags[] = { "rounds", "1", "llm-judge-model", "judge-model", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 2, 0, &sum);
	cr_expect_eq(kf_llm_server_requests(srv), 2 * 4 + 2, "4 samples per task, then one judgement per correct kernel");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests"), 8, "judgements are votes, not samples of the run");
	/* The scripted server answers with a kernel, not a verdict: an abstain that keeps the reply. */
	cr_expect_eq(q("SELECT COUNT(*) FROM verifier_votes WHERE verifier = 'llm_judge' AND vote = 'abstain'"
		       " AND json_extract(evidence, '$.model') = 'judge-model'"
		       " AND json_extract(evidence, '$.why') LIKE '%no VERDICT line%'"
		       " AND json_extract(evidence, '$.reply') LIKE '%kf_launch%'"
		       " AND json_extract(evidence, '$.tokens_in') = 1000"),
		     2);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

/* ---- hostile replies ---- */

#define ECHOED_KEY "sk-echoed-secret-9731"

struct seen_events {
	kf_buf text; /* every event's what and detail, one per line: what the run report prints from */
};

static void collect_event(void *ctx, const struct kf_agent_event *e)
{
	struct seen_events *s = ctx;
	kf_buf_addf(&s->text, "%s: %s\n", e->what ? e->what : "", e->detail ? e->detail : "");
}

Test(agent_search, redacts_an_api_key_that_the_server_echoes_from_everything_printed_or_stored)
{
	static const enum kf_llm_fault faults[] = { KF_LLM_FAULT_500, KF_LLM_FAULT_401 };
	struct kf_llm_server_config sc = { .faults = faults, .n_faults = 2, .echo_auth = true };
	serve(&sc);
	const char *flags[] = { "samples", "2", "rounds", "1", "concurrency", "1", NULL };
	cJSON *cfg = config(flags);
	struct seen_events seen = { KF_BUF_INIT };
	const struct kf_agent_observer obs = { collect_event, &seen };
	const struct kf_agent_judge judge = { .evaluate = fake_evaluate, .verify = fake_verify, .ctx = &fake };
	struct kf_agent_run_args a = { .store = store, .config = cfg, .tasks = tasks, .n_tasks = 1, .api_key = ECHOED_KEY,
				       .judge = &judge, .peaks = &peaks, .observer = &obs, .stop = &stop_flag };
	struct kf_agent_summary sum;
	kf_err err;
	cr_assert_eq(kf_agent_run(&a, &sum, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(kf_llm_server_faults(srv, KF_LLM_FAULT_401), 1);
	cr_expect_not(database_contains(ECHOED_KEY), "the echoed key reached the database");
	cr_expect_not(database_contains("sk-echoed"), "a prefix of the echoed key reached the database");
	cr_expect_eq(q("SELECT COUNT(*) FROM request_attempts WHERE error LIKE '%Bearer " KF_HTTP_REDACTED "%'"), 2,
		     "both failed attempts say where the key was");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE status = 'failed' AND error LIKE '%" KF_HTTP_REDACTED "%'"
		       " AND response LIKE '%" KF_HTTP_REDACTED "%'"),
		     1);
	cr_expect_null(strstr(seen.text.data, "sk-echoed"), "an event (printed on stderr) carries the key: %s",
		       seen.text.data);
	cr_expect_not_null(strstr(seen.text.data, KF_HTTP_REDACTED), "%s", seen.text.data);
	kf_buf_free(&seen.text);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, keeps_a_reply_that_is_not_utf8_as_it_came_but_sends_back_valid_utf8)
{
	static const enum kf_scripted_reply bad[] = { KF_LLM_INVALID_UTF8 };
	struct kf_llm_server_config sc = { .script = bad, .script_len = 1, .refine_script = bad, .refine_script_len = 1,
					   .strict_utf8 = true };
	serve(&sc);
	const char *flags[] = { "samples", "2", "rounds", "2", "keep", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	cr_expect_eq(kf_llm_server_invalid_utf8(srv), 0, "a request body was not UTF-8");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE status = 'done'"), 4, "the refinements were answered");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE instr(CAST(reply AS BLOB), x'ff') > 0"
		       " AND instr(CAST(response AS BLOB), x'ff') > 0"),
		     4, "the record keeps the reply's bytes");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE round = 2 AND instr(CAST(messages AS BLOB), x'ff') = 0"
		       " AND instr(messages, 'xFF') > 0"),
		     2, "a refinement shows the bad bytes escaped");
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

/* 33.5 MiB of reply: over the 32 MiB limit. */
#define OVERSIZED_REPLY_BYTES ((32u << 20) + (1u << 19))
#define OVERSIZED_KEPT_MAX (64u << 10)

Test(agent_search, keeps_a_bounded_prefix_and_the_size_of_an_oversized_reply)
{
	static const enum kf_scripted_reply huge[] = { KF_LLM_HUGE };
	struct kf_llm_server_config sc = { .script = huge, .script_len = 1, .huge_bytes = OVERSIZED_REPLY_BYTES };
	serve(&sc);
	const char *flags[] = { "samples", "1", "rounds", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE status = 'failed' AND outcome = 'oversized_response'"), 1);
	cr_expect_leq(q("SELECT MAX(length(CAST(response AS BLOB))) FROM requests"), (int64_t)OVERSIZED_KEPT_MAX);
	cr_expect_gt(q("SELECT MAX(length(CAST(response AS BLOB))) FROM requests"), 0, "a prefix is kept");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE error LIKE '%over the 33554432-byte limit%'"
		       " AND error LIKE '%response of 3_______ bytes%'"),
		     1, "the error names the announced size and the limit");
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

/* ---- kforge show --run ---- */

#define SHOW_LIMIT_S 60.0
#define EXCERPT "%.1500s"

static void show_run(const char *id, bool json, struct kf_cli_result *r)
{
	const char *args[] = { "show", "--run", id, "--db", db_path, json ? "--json" : NULL, NULL };
	kf_err err;
	cr_assert_eq(kf_cli_run(args, NULL, SHOW_LIMIT_S, r, &err), KF_OK, "%s", err.msg);
}

/* The line of the text table that starts with name. */
static const char *line_of(const char *out, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ')
			return p;
	return NULL;
}

Test(agent_search, show_run_describes_a_stopped_run_with_every_task_and_every_candidate)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	/* Two replies fit the token budget: vector_add's good and broken kernels; softmax_rows is never asked. */
	const char *flags[] = { "samples", "2", "rounds", "1", "concurrency", "1", "budget-tokens", "3000", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 2, 0, &sum);
	cr_assert_str_eq(sum.status, "stopped");
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
	/* As after a crash between storing the broken candidate and its verdict. */
	cr_assert_eq(sqlite3_exec(kf_store_db(store),
				  "DELETE FROM posteriors WHERE evaluation_id IN (SELECT id FROM evaluations"
				  " WHERE verdict = 'compile_error'); DELETE FROM evaluations WHERE verdict = 'compile_error'",
				  NULL, NULL, NULL),
		     SQLITE_OK, "%s", sqlite3_errmsg(kf_store_db(store)));
	struct kf_cli_result r;
	show_run("1", false, &r);
	cr_assert_eq(r.exit_code, 0, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	cr_expect(strstr(r.out, ": stopped — token budget reached"), "no status or stop reason: " EXCERPT, r.out);
	cr_expect(strstr(r.out, "correct 1/2 tasks"), "the unsolved task is not counted: " EXCERPT, r.out);
	cr_expect(strstr(r.out, "2 finished (0 failed), 2 unsent of 4 planned"), "requests: " EXCERPT, r.out);
	cr_expect(strstr(r.out, "candidates 2 (1 judged)"), "candidates: " EXCERPT, r.out);
	cr_expect(strstr(r.out, "fast_0 0.5,"), "fast_0 over both tasks: " EXCERPT, r.out);
	cr_expect(strstr(r.out, "cost unknown"), "cost: " EXCERPT, r.out);
	cr_expect_null(strstr(r.out, "$0.0000"), EXCERPT, r.out);
	const char *softmax = line_of(r.out, "softmax_rows");
	cr_expect(softmax && strstr(softmax, "no candidate"), "the task with no candidate is listed: " EXCERPT, r.out);
	kf_cli_result_free(&r);
	show_run("1", true, &r);
	cr_assert_not_null(r.json, "stdout: " EXCERPT, r.out);
	double v = -1;
	cr_expect(kf_cli_json_num(r.json, "n_tasks", &v) && v == 2);
	cr_expect(kf_cli_json_num(r.json, "requests_unsent", &v) && v == 2);
	cr_expect(kf_cli_json_num(r.json, "candidates", &v) && v == 2);
	cr_expect(kf_cli_json_num(r.json, "evaluated", &v) && v == 1);
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(r.json, "cost_usd")), "unknown cost is null");
	cr_expect_str_eq(kf_cli_json_str(r.json, "status"), "stopped");
	kf_cli_result_free(&r);
}

Test(agent_search, show_run_shows_a_run_whose_requests_all_failed_with_its_failures)
{
	static const enum kf_llm_fault faults[] = { KF_LLM_FAULT_401, KF_LLM_FAULT_401 };
	struct kf_llm_server_config sc = { .faults = faults, .n_faults = 2 };
	serve(&sc);
	const char *flags[] = { "samples", "2", "rounds", "1", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
	struct kf_cli_result r;
	show_run("1", false, &r);
	cr_assert_eq(r.exit_code, 0, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	cr_expect(strstr(r.out, "correct 0/1 tasks; requests: 2 finished (2 failed)"), EXCERPT, r.out);
	cr_expect(strstr(r.out, "failed requests: 2 x HTTP 401: invalid API key (scripted)"), EXCERPT, r.out);
	cr_expect(strstr(r.out, "cost unknown"), EXCERPT, r.out);
	kf_cli_result_free(&r);
}

Test(agent_search, show_run_of_a_run_id_that_does_not_exist_says_so_and_exits_2)
{
	struct kf_cli_result r;
	show_run("42", false, &r);
	cr_expect_eq(r.exit_code, KF_EINPUT, "exit %d", r.exit_code);
	cr_expect(kf_cli_is_one_error_line(&r), "stderr: " EXCERPT, r.err);
	cr_expect(strstr(r.err, "no run with id 42"), "stderr: " EXCERPT, r.err);
	kf_cli_result_free(&r);
}

/* ---- search strategies and profiles (issue 21) ---- */

static int fake_profile_calls;

/* A profile as eval/judge/profile.c makes them, fixed: a latency-bound kernel on one core of eight. */
static int fake_profile(void *ctx, const struct kf_task *t, const struct kf_peaks *p, const char *src, size_t len,
			const cJSON *judge_result, cJSON **profile, kf_err *err)
{
	(void)ctx, (void)t, (void)p, (void)src, (void)len, (void)judge_result, (void)err;
	fake_profile_calls++;
	*profile = cJSON_Parse("{\"backend\":\"cpu\",\"shape\":\"n=1\",\"seconds\":0.1,\"bound\":\"latency\","
			       "\"bound_why\":\"memory at 3%, compute at 0% of peak; none near saturation\","
			       "\"metrics\":{\"cores_used\":1.0,\"cores\":8,\"bw_pct\":3},\"unavailable\":{},"
			       "\"key\":[\"cores_used\",\"vector_share\",\"ipc\"]}");
	return KF_OK;
}

static int run_profiled(cJSON *cfg, struct kf_agent_summary *sum, kf_err *err)
{
	const struct kf_agent_judge judge = { .evaluate = fake_evaluate, .verify = fake_verify, .profile = fake_profile,
					      .ctx = &fake };
	struct kf_agent_run_args a = { .store = store, .config = cfg, .tasks = tasks, .n_tasks = 1, .judge = &judge,
				       .peaks = &peaks, .stop = &stop_flag };
	return kf_agent_run(&a, sum, err);
}

Test(agent_search, profiles_each_correct_kept_candidate_once_and_quotes_it_in_its_refinements)
{
	static const enum kf_scripted_reply script[] = { KF_LLM_GOOD, KF_LLM_BROKEN };
	struct kf_llm_server_config sc = { .script = script, .script_len = 2, .refine_script = script,
					   .refine_script_len = 2 };
	serve(&sc);
	const char *flags[] = { "samples", "2", "rounds", "3", "keep", "2", "verify", "off", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	kf_err err;
	fake_profile_calls = 0;
	cr_assert_eq(run_profiled(cfg, &sum, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(fake_profile_calls, 1, "the correct parent once, stored for round 3; the broken one never");
	cr_expect_eq(q("SELECT COUNT(*) FROM profiles p JOIN evaluations e ON e.id = p.evaluation_id WHERE e.verdict = 'ok'"), 1);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests r JOIN evaluations e ON e.candidate_id = r.parent_candidate_id"
		       " WHERE e.verdict = 'ok' AND r.messages LIKE '%latency-bound%' AND r.messages LIKE '%cores busy: 1.0 of 8%'"
		       " AND r.messages LIKE '%Nothing is near its peak%'"),
		     2, "each refinement of the correct kernel in rounds 2 and 3 quotes its profile and the bound's hint");
	cr_expect_eq(sum.profiled_refinements, 2);
	cr_expect_eq(sum.refinements, 4);
	cr_expect(sum.profile_tokens_mean > 10 && sum.profile_tokens_mean < 100, "%.1f tokens", sum.profile_tokens_mean);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, profile_off_profiles_nothing)
{
	static const enum kf_scripted_reply good[] = { KF_LLM_GOOD };
	struct kf_llm_server_config sc = { .script = good, .script_len = 1 };
	serve(&sc);
	const char *flags[] = { "samples", "1", "rounds", "2", "keep", "1", "verify", "off", "profile", "off", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	kf_err err;
	fake_profile_calls = 0;
	cr_assert_eq(run_profiled(cfg, &sum, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(fake_profile_calls, 0);
	cr_expect_eq(q("SELECT COUNT(*) FROM profiles"), 0);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE messages LIKE '%Profile (%'"), 0);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

/* Round 2's parents when the two best candidates are the same kernel (one of them with a comment
 * of bad bytes; which is older depends on which reply came first) and the third a different one
 * that is wrong: how many of the copies are refined, and whether the different one is. */
static void parents_with_min_distance(const char *distance, int64_t *copies, int64_t *different)
{
	static const enum kf_scripted_reply script[] = { KF_LLM_GOOD, KF_LLM_INVALID_UTF8, KF_LLM_LAZY };
	struct kf_llm_server_config sc = { .script = script, .script_len = 3 };
	serve(&sc);
	const char *flags[] = { "samples", "3", "rounds", "2", "keep", "2", "verify", "off", "min-distance", distance, NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	*copies = q("SELECT COUNT(DISTINCT r.parent_candidate_id) FROM requests r JOIN evaluations e"
		    " ON e.candidate_id = r.parent_candidate_id WHERE r.round = 2 AND e.verdict = 'ok'");
	*different = q("SELECT COUNT(*) FROM requests r JOIN evaluations e ON e.candidate_id = r.parent_candidate_id"
		       " WHERE r.round = 2 AND e.verdict = 'unwritten_output'");
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, keep_k_best_refines_near_copies_of_one_kernel)
{
	int64_t copies, different;
	parents_with_min_distance("0", &copies, &different);
	cr_expect_eq(copies, 2, "the two best are the same kernel, and both are refined");
	cr_expect_eq(different, 0);
}

Test(agent_search, min_distance_refines_a_different_kernel_instead_of_a_near_copy)
{
	int64_t copies, different;
	parents_with_min_distance("0.1", &copies, &different);
	cr_expect_eq(copies, 1, "the second copy is passed over");
	cr_expect_eq(different, 1, "the next different kernel takes its place (request 2 of 3: parents alternate)");
}

Test(agent_search, explore_spends_a_share_of_each_refinement_round_on_fresh_samples)
{
	static const enum kf_scripted_reply good[] = { KF_LLM_GOOD };
	struct kf_llm_server_config sc = { .script = good, .script_len = 1 };
	serve(&sc);
	const char *flags[] = { "samples", "4", "rounds", "3", "keep", "1", "verify", "off", "explore", "0.5", NULL };
	cJSON *cfg = config(flags);
	struct kf_agent_summary sum;
	run_ok(cfg, 1, 0, &sum);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE round > 1 AND parent_candidate_id IS NULL"), 4, "2 of 4, twice");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE round > 1 AND parent_candidate_id IS NOT NULL"), 4);
	cr_expect_eq(kf_llm_server_refinements(srv), 4);
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg);
}

Test(agent_search, stop_at_sol_ends_a_task_once_its_best_kernel_is_close_enough)
{
	static const enum kf_scripted_reply good[] = { KF_LLM_GOOD };
	struct kf_llm_server_config sc = { .script = good, .script_len = 1 };
	serve(&sc);
	const char *at[] = { "samples", "2", "rounds", "3", "verify", "off", "stop-at-sol", "0.5", NULL };
	const char *above[] = { "samples", "2", "rounds", "3", "verify", "off", "stop-at-sol", "0.6", NULL };
	cJSON *cfg_at = config(at), *cfg_above = config(above);
	struct kf_agent_summary sum;
	run_ok(cfg_at, 1, 0, &sum);
	cr_expect_str_eq(sum.status, "done");
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE run_id = 1"), 2, "the first round reached SOL fraction 0.5");
	kf_agent_summary_free(&sum);
	run_ok(cfg_above, 1, 0, &sum);
	cr_expect_eq(q("SELECT COUNT(*) FROM requests WHERE run_id = 2"), 6, "0.5 never reaches 0.6: every round");
	kf_agent_summary_free(&sum);
	cJSON_Delete(cfg_at);
	cJSON_Delete(cfg_above);
}
