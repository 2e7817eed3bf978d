/* `kforge run` as a user meets it, with the real judge: it refuses to start without an endpoint and
 * says how to give one; a whole suite run against the scripted server records every request,
 * reply, candidate and evaluation and prints the right summary; and a run killed with SIGKILL
 * resumes from the database without asking again for any finished sample. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent.h"
#include "common/clock.h"
#include "common/fs.h"
#include "eval/judge/profile.h"
#include "tests/support/cli.h"
#include "tests/support/db.h"
#include "tests/support/llm_server.h"

#define QUICK_LIMIT_S 60.0
#define SUITE_LIMIT_S 600.0 /* eight level-1 tasks, judged for real on a small, busy machine */
#define RESUME_LIMIT_S 600.0
#define KILL_WAIT_S 600.0
#define TEST_TIMEOUT_S 1800
#define POLL_NS 50000000LL
#define EXCERPT "%.600s"

static char tmpdir[PATH_MAX], db[PATH_MAX];
static struct kf_llm_server *srv;

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
}

static void teardown(void)
{
	kf_llm_server_stop(srv);
	srv = NULL;
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(agent_run, .init = setup, .fini = teardown, .timeout = TEST_TIMEOUT_S);

/* No key may leak in from the environment of whoever runs the tests. */
static const char *const no_keys[] = { "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", NULL };

static void run(const char *const *args, double limit_s, struct kf_cli_result *r)
{
	kf_err err;
	cr_assert_eq(kf_cli_run(args, no_keys, limit_s, r, &err), KF_OK, "%s", err.msg);
	cr_assert_not(r->timed_out, "kforge run still running after %.0f s; stderr: " EXCERPT, r->wall_s, r->err);
	cr_assert_eq(r->term_signal, 0, "kforge died of signal %d; stderr: " EXCERPT, r->term_signal, r->err);
}

Test(agent_run, without_an_endpoint_says_how_to_give_one_and_exits_2)
{
	const char *args[] = { "run", "--suite", "tasks/level1", "--model", "m", "--db", db, NULL };
	struct kf_cli_result r;
	run(args, QUICK_LIMIT_S, &r);
	cr_expect_eq(r.exit_code, KF_EINPUT, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	cr_expect(kf_cli_is_one_error_line(&r), "stderr is not one line: " EXCERPT, r.err);
	cr_expect(strstr(r.err, "--base-url http://localhost:8000/v1 --model M"), EXCERPT, r.err);
	cr_expect(strstr(r.err, "OPENAI_API_KEY") && strstr(r.err, "ANTHROPIC_API_KEY"), EXCERPT, r.err);
	cr_expect_neq(access(db, F_OK), 0, "nothing is created before the endpoint is known");
	kf_cli_result_free(&r);
}

Test(agent_run, help_documents_every_option)
{
	const char *args[] = { "run", "--help", NULL };
	struct kf_cli_result r;
	run(args, QUICK_LIMIT_S, &r);
	cr_expect_eq(r.exit_code, 0);
	const char *own[] = { "--suite", "--task", "--resume", "--out", "--db", "--json", "Example" };
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		cr_expect(strstr(r.out, own[i]), "--help lacks %s", own[i]);
	for (const struct kf_agent_option *o = kf_agent_options(); o->flag; o++) {
		char flag[64];
		snprintf(flag, sizeof flag, "--%s ", o->flag);
		cr_expect(strstr(r.out, flag), "--help lacks %s", flag);
	}
	kf_cli_result_free(&r);
}

static void expect_usage_error(const char *const *args, const char *mention)
{
	struct kf_cli_result r;
	run(args, QUICK_LIMIT_S, &r);
	cr_expect_eq(r.exit_code, KF_EINPUT, "exit %d for %s; stderr: " EXCERPT, r.exit_code, mention, r.err);
	cr_expect(kf_cli_is_one_error_line(&r), "stderr is not one line: " EXCERPT, r.err);
	cr_expect(strstr(r.err, mention), "the error does not mention \"%s\": " EXCERPT, mention, r.err);
	kf_cli_result_free(&r);
}

Test(agent_run, refuses_bad_usage_with_one_line_and_exit_2)
{
	const char *both[] = { "run", "--suite", "tasks/level1", "--task", "vector_add", "--model", "m", "--base-url",
			       "http://127.0.0.1:1/v1", "--db", db, NULL };
	expect_usage_error(both, "--suite DIR or --task NAME");
	const char *neither[] = { "run", "--model", "m", "--base-url", "http://127.0.0.1:1/v1", "--db", db, NULL };
	expect_usage_error(neither, "--suite DIR or --task NAME");
	const char *samples[] = { "run", "--task", "vector_add", "--model", "m", "--samples", "0", "--db", db, NULL };
	expect_usage_error(samples, "--samples");
	const char *provider[] = { "run", "--task", "vector_add", "--model", "m", "--provider", "gemini", "--db", db, NULL };
	expect_usage_error(provider, "openai|anthropic");
	const char *task[] = { "run", "--task", "no_such_task", "--model", "m", "--base-url", "http://127.0.0.1:1/v1",
			       "--db", db, NULL };
	expect_usage_error(task, "no_such_task");
	const char *resume[] = { "run", "--resume", "42", "--db", db, NULL };
	expect_usage_error(resume, "no run with id 42");
	const char *mixed[] = { "run", "--resume", "1", "--task", "vector_add", "--db", db, NULL };
	expect_usage_error(mixed, "--resume");
	const char *model[] = { "run", "--task", "vector_add", "--base-url", "http://127.0.0.1:1/v1", "--db", db, NULL };
	expect_usage_error(model, "--model");
}

Test(agent_run, never_prints_or_stores_an_api_key_that_the_server_echoes)
{
	static const enum kf_llm_fault faults[] = { KF_LLM_FAULT_500, KF_LLM_FAULT_401, KF_LLM_FAULT_401 };
	struct kf_llm_server_config sc = { .faults = faults, .n_faults = 3, .echo_auth = true };
	kf_err err;
	cr_assert_eq(kf_llm_server_start(&sc, &srv, &err), KF_OK, "%s", err.msg);
	const char *args[] = { "run", "--task", "vector_add", "--model", "scripted", "--samples", "2", "--rounds", "1",
			       "--concurrency", "1", "--max-attempts", "2", "--base-url",
			       kf_llm_server_url(srv), "--db", db, NULL };
	static const char *const env[] = { "OPENAI_API_KEY=sk-echo-me-5150", "ANTHROPIC_API_KEY=", NULL };
	struct kf_cli_result r;
	cr_assert_eq(kf_cli_run(args, env, QUICK_LIMIT_S, &r, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(r.exit_code, 1, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	cr_expect_eq(kf_llm_server_faults(srv, KF_LLM_FAULT_401), 2);
	cr_expect_null(strstr(r.err, "sk-echo"), "stderr shows the key: " EXCERPT, r.err);
	cr_expect_null(strstr(r.out, "sk-echo"), "stdout shows the key: " EXCERPT, r.out);
	cr_expect(strstr(r.err, "Bearer [redacted]"), "stderr: " EXCERPT, r.err);
	sqlite3 *h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE instr(COALESCE(response, '') || COALESCE(error, ''),"
			  " 'sk-echo') > 0"),
		     0);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM request_attempts WHERE instr(error, 'sk-echo') > 0"), 0);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM request_attempts WHERE instr(error, 'Bearer [redacted]') > 0"), 3);
	sqlite3_close(h);
	kf_cli_result_free(&r);
}

static bool has_example(const char *task)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/examples/cpu/%s.c", kf_home(), task);
	return access(path, R_OK) == 0;
}

/* One of each scripted reply per task in round 1; refinements are good. */
static const enum kf_scripted_reply every_kind[] = { KF_LLM_GOOD,	 KF_LLM_BROKEN,      KF_LLM_NO_CODE,
						     KF_LLM_LAZY,	 KF_LLM_EMPTY_BLOCK, KF_LLM_CONFLICTING,
						     KF_LLM_HUGE,	 KF_LLM_UNTERMINATED };
#define KINDS ((int)(sizeof every_kind / sizeof every_kind[0]))
#define NO_CODE_KINDS 4 /* no code, empty block, conflicting files, unterminated */

static void expect_task_summary(const cJSON *t)
{
	const char *name = kf_cli_json_str(t, "task");
	bool good = has_example(name);
	double v;
	cr_expect(kf_cli_json_num(t, "requests", &v) && v == 2 * KINDS, "%s: %g requests", name, v);
	cr_expect(kf_cli_json_num(t, "failed_requests", &v) && v == 0, "%s: %g failed", name, v);
	cr_expect(kf_cli_json_num(t, "no_code", &v) && v == NO_CODE_KINDS, "%s: %g without code", name, v);
	/* good (= the huge reply's kernel), broken, lazy; without an example, good is lazy. */
	double want_candidates = good ? 3 : 2;
	cr_expect(kf_cli_json_num(t, "candidates", &v) && v == want_candidates, "%s: %g candidates", name, v);
	cr_expect(kf_cli_json_num(t, "evaluated", &v) && v == want_candidates, "%s: %g judged", name, v);
	cr_expect(kf_cli_json_num(t, "ok", &v) && v == (good ? 1 : 0), "%s: %g ok", name, v);
	const char *best = kf_cli_json_str(t, "best_verdict");
	cr_expect(best && !strcmp(best, good ? "ok" : "unwritten_output"), "%s: best %s", name, best ? best : "null");
	if (good)
		cr_expect(kf_cli_json_num(t, "sol_fraction", &v) && v > 0, "%s: no SOL fraction", name);
}

/* The level-1 tasks of the suite test: one or two per family (the whole level, 95 tasks, would take
 * most of CI's time); a suite folder of their specs, as a user's out-of-tree suite is. */
static const char *const suite_tasks[] = { "argmax_rows", "cumsum_rows",    "gelu_erf_f32", "layernorm_bf16",
					   "relu_bf16",	  "softmax_rows", "sum_rows",	    "vector_add" };

static void make_suite(char *suite, size_t len)
{
	char level[PATH_MAX + 16];
	kf_err err;
	snprintf(suite, len, "%s/suite", tmpdir);
	snprintf(level, sizeof level, "%s/level1", suite);
	cr_assert_eq(kf_mkdir_p(level, &err), KF_OK, "%s", err.msg);
	for (size_t i = 0; i < sizeof suite_tasks / sizeof suite_tasks[0]; i++) {
		char from[PATH_MAX], to[2 * PATH_MAX];
		snprintf(from, sizeof from, "%s/tasks/level1/%s.json", kf_home(), suite_tasks[i]);
		snprintf(to, sizeof to, "%s/%s.json", level, suite_tasks[i]);
		cr_assert_eq(symlink(from, to), 0, "symlink %s: %s", to, strerror(errno));
	}
}

Test(agent_run, runs_a_level1_suite_against_the_scripted_server)
{
	static const enum kf_scripted_reply refine[] = { KF_LLM_GOOD };
	struct kf_llm_server_config sc = { .script = every_kind, .script_len = KINDS, .refine_script = refine,
					   .refine_script_len = 1 };
	kf_err err;
	cr_assert_eq(kf_llm_server_start(&sc, &srv, &err), KF_OK, "%s", err.msg);
	char suite[PATH_MAX], out[PATH_MAX];
	make_suite(suite, sizeof suite);
	snprintf(out, sizeof out, "%s/best", tmpdir);
	const char *args[] = { "run", "--suite", suite, "--backend", "cpu", "--model", "scripted", "--samples", "8",
			       "--rounds", "2", "--base-url", kf_llm_server_url(srv), "--seeds", "1", "--timing-budget",
			       "0.2", "--out", out, "--db", db, "--json", NULL };
	struct kf_cli_result r;
	run(args, SUITE_LIMIT_S, &r);
	cr_assert_not_null(r.json, "stdout is not JSON (exit %d): " EXCERPT "\nstderr: " EXCERPT, r.exit_code, r.out, r.err);
	const cJSON *tasks = cJSON_GetObjectItem(r.json, "tasks");
	int n = cJSON_GetArraySize(tasks), with_examples = 0;
	cr_assert_eq(n, (int)(sizeof suite_tasks / sizeof suite_tasks[0]), "the run saw %d tasks", n);
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks) {
		expect_task_summary(t);
		with_examples += has_example(kf_cli_json_str(t, "task"));
	}
	cr_expect_str_eq(kf_cli_json_str(r.json, "status"), "done");
	double ok_tasks = -1;
	cr_expect(kf_cli_json_num(r.json, "ok_tasks", &ok_tasks) && ok_tasks == with_examples);
	cr_expect_eq(r.exit_code, with_examples == n ? 0 : 1, "exit %d with %d of %d tasks solvable", r.exit_code,
		     with_examples, n);
	cr_expect_eq(kf_llm_server_requests(srv), n * 2 * KINDS);
	sqlite3 *h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE status = 'done' AND reply IS NOT NULL"), n * 2 * KINDS);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM request_attempts"), n * 2 * KINDS);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE outcome = 'code' AND candidate_id IS NULL"), 0);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM candidates c WHERE (SELECT COUNT(*) FROM evaluations e"
			  " WHERE e.candidate_id = c.id) <> 1"),
		     0, "every candidate judged exactly once");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE verdict = 'ok'"), with_examples);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE verdict = 'compile_error'"), n);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM samples"), kf_test_db_int(h, "SELECT COUNT(*) FROM samples WHERE evaluation_id IN"
							       " (SELECT id FROM evaluations WHERE verdict = 'ok')"));
	sqlite3_close(h);
	cJSON_ArrayForEach(t, tasks) {
		char path[PATH_MAX];
		const char *name = kf_cli_json_str(t, "task");
		snprintf(path, sizeof path, "%s/%s.c", out, name);
		cr_expect_eq(access(path, R_OK) == 0, has_example(name), "--out: %s", path);
	}
	kf_cli_result_free(&r);
}

Test(agent_run, resumes_a_killed_run_without_asking_again_for_a_finished_sample)
{
	static const enum kf_scripted_reply script[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_NO_CODE, KF_LLM_LAZY };
	struct kf_llm_server_config sc = { .script = script, .script_len = 4, .latency_s = 0.3 };
	kf_err err;
	cr_assert_eq(kf_llm_server_start(&sc, &srv, &err), KF_OK, "%s", err.msg);
	const char *args[] = { "run", "--task", "vector_add", "--task", "softmax_rows", "--model", "scripted",
			       "--samples", "4", "--rounds", "2", "--concurrency", "2", "--base-url", kf_llm_server_url(srv),
			       "--seeds", "1", "--timing-budget", "0.2", "--db", db, NULL };
	pid_t pid = kf_cli_spawn(args, tmpdir);
	/* Kill once some requests are finished and a candidate is judged, mid-run. */
	int64_t deadline = kf_now_ns() + (int64_t)(KILL_WAIT_S * 1e9);
	int64_t finished = 0, judged = 0;
	int status;
	bool exited = false;
	while (kf_now_ns() < deadline && !exited) {
		struct timespec ts = { 0, POLL_NS };
		nanosleep(&ts, NULL);
		exited = waitpid(pid, &status, WNOHANG) == pid;
		if (access(db, F_OK) != 0)
			continue;
		sqlite3 *h = kf_test_db_open(db);
		finished = kf_test_db_try_int(h, "SELECT COUNT(*) FROM requests WHERE status <> 'pending'");
		judged = kf_test_db_try_int(h, "SELECT COUNT(*) FROM evaluations");
		sqlite3_close(h);
		if (finished >= 4 && judged >= 1)
			break;
	}
	cr_assert_not(exited, "kforge finished before it could be killed");
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	kf_llm_server_stop(srv);
	srv = NULL;

	sqlite3 *h = kf_test_db_open(db);
	finished = kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE status <> 'pending'");
	int64_t evals_before = kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations");
	int64_t last_eval = kf_test_db_int(h, "SELECT COALESCE(MAX(id), 0) FROM evaluations");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM runs WHERE id = 1 AND status = 'running'"), 1, "the run did not end");
	sqlite3_close(h);
	cr_assert_lt(finished, 16, "nothing left to resume");

	cr_assert_eq(kf_llm_server_start(&sc, &srv, &err), KF_OK, "%s", err.msg);
	const char *resume[] = { "run", "--resume", "1", "--base-url", kf_llm_server_url(srv), "--db", db, "--json", NULL };
	struct kf_cli_result r;
	run(resume, RESUME_LIMIT_S, &r);
	cr_expect_eq(r.exit_code, 0, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	cr_expect_eq(kf_llm_server_requests(srv), 16 - finished,
		     "the resumed run sent %d requests; %lld of 16 were finished before the kill",
		     kf_llm_server_requests(srv), (long long)finished);
	h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests"), 16);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE status = 'pending'"), 0);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM candidates c WHERE (SELECT COUNT(*) FROM evaluations e"
			  " WHERE e.candidate_id = c.id) <> 1"),
		     0, "a candidate judged before the kill was judged again, or one was never judged");
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM evaluations WHERE id <= %lld", (long long)last_eval);
	cr_expect_eq(kf_test_db_int(h, sql), evals_before, "evaluations from before the kill are kept");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM runs WHERE id = 1 AND status = 'done'"), 1);
	sqlite3_close(h);
	double ok_tasks;
	cr_expect(r.json && kf_cli_json_num(r.json, "ok_tasks", &ok_tasks) && ok_tasks == 2, "stdout: " EXCERPT, r.out);
	kf_cli_result_free(&r);
}

Test(agent_run, runs_on_the_cuda_backend_where_a_gpu_is_present)
{
	static const char *const gpu_tasks[] = { "vector_add", "softmax_rows" };
	char path[PATH_MAX];
	if (access("/dev/nvidiactl", F_OK) != 0)
		cr_skip_test("no NVIDIA GPU on this machine");
	for (size_t i = 0; i < sizeof gpu_tasks / sizeof gpu_tasks[0]; i++) {
		snprintf(path, sizeof path, "%s/examples/cuda/%s.cu", kf_home(), gpu_tasks[i]);
		if (access(path, R_OK) != 0)
			cr_skip_test("no CUDA example for %s", gpu_tasks[i]);
	}
	static const enum kf_scripted_reply script[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_NO_CODE, KF_LLM_LAZY };
	struct kf_llm_server_config sc = { .script = script, .script_len = 4, .backend = "cuda" };
	kf_err err;
	cr_assert_eq(kf_llm_server_start(&sc, &srv, &err), KF_OK, "%s", err.msg);
	const char *args[] = { "run", "--task", gpu_tasks[0], "--task", gpu_tasks[1], "--backend", "cuda", "--model",
			       "scripted", "--samples", "4", "--rounds", "2", "--base-url", kf_llm_server_url(srv), "--seeds",
			       "1", "--timing-budget", "0.5", "--db", db, "--json", NULL };
	struct kf_cli_result r;
	run(args, RESUME_LIMIT_S, &r);
	cr_expect_eq(r.exit_code, 0, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	cr_assert_not_null(r.json, "stdout: " EXCERPT "\nstderr: " EXCERPT, r.out, r.err);
	cr_expect_str_eq(kf_cli_json_str(r.json, "backend"), "cuda");
	double ok_tasks;
	cr_expect(kf_cli_json_num(r.json, "ok_tasks", &ok_tasks) && ok_tasks == 2, "stdout: " EXCERPT, r.out);
	cr_expect_eq(kf_llm_server_requests(srv), 16);
	sqlite3 *h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM candidates WHERE backend = 'cuda'"), 6, "good, broken, lazy per task");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE verdict = 'ok'"), 2);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE verdict = 'compile_error'"), 2);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE round = 1 AND reply LIKE '%```cuda%'"), 6);
	sqlite3_close(h);
	kf_cli_result_free(&r);
}

/* ---- profiles in the refinement feedback (issue 21) ---- */

struct profiled_run {
	int fast_replies;
	char *feedback;       /* the refinement's feedback as the server received it */
	double best_speedup;  /* of the selected kernel */
	bool selected_fast;   /* the selected kernel is the fast one */
	bool show_has_profile; /* `kforge show` of the profiled candidate prints its profile */
	double profiled, tokens_mean;
	int64_t profiles;     /* rows in the profiles table */
	char *profile;        /* the stored profile's JSON, or NULL */
};

/* One task, one sample, one refinement of it, against a server that answers the refinement with
 * the fast kernel only when the feedback says "latency-bound". */
static void run_profiled(const char *profile_flag, const char *db_path, struct profiled_run *out)
{
	char *fast = NULL, path[PATH_MAX];
	kf_err err;
	snprintf(path, sizeof path, "%s/examples/cpu/vector_add.c", kf_home());
	cr_assert_eq(kf_read_file(path, 1 << 20, &fast, NULL, &err), KF_OK, "%s", err.msg);
	struct kf_llm_server_config sc = { .slow_source = kf_llm_slow_vector_add_cpu, .fast_source = fast,
					   .bound_marker = "latency-bound" };
	cr_assert_eq(kf_llm_server_start(&sc, &srv, &err), KF_OK, "%s", err.msg);
	const char *args[] = { "run", "--task", "vector_add", "--model", "scripted", "--samples", "1", "--rounds", "2",
			       "--keep", "1", "--verify", "off", "--profile", profile_flag, "--base-url",
			       kf_llm_server_url(srv), "--seeds", "1", "--timing-budget", "0.2", "--db", db_path, "--json",
			       NULL };
	struct kf_cli_result r;
	run(args, RESUME_LIMIT_S, &r);
	cr_assert_not_null(r.json, "stdout is not JSON (exit %d): " EXCERPT "\nstderr: " EXCERPT, r.exit_code, r.out, r.err);
	memset(out, 0, sizeof *out);
	out->fast_replies = kf_llm_server_replies(srv, KF_LLM_FAST);
	out->feedback = kf_llm_server_last_feedback(srv);
	const cJSON *task = cJSON_GetArrayItem(cJSON_GetObjectItem(r.json, "tasks"), 0);
	cr_assert(kf_cli_json_num(task, "speedup", &out->best_speedup), "no speedup: " EXCERPT, r.out);
	const cJSON *pf = cJSON_GetObjectItem(r.json, "profile_feedback");
	cr_assert(kf_cli_json_num(pf, "profiled", &out->profiled) && kf_cli_json_num(pf, "tokens_mean", &out->tokens_mean));
	double best_id = 0;
	cr_assert(kf_cli_json_num(task, "best_candidate_id", &best_id), "nothing selected: " EXCERPT, r.out);
	sqlite3 *h = kf_test_db_open(db_path);
	out->profiles = kf_test_db_int(h, "SELECT COUNT(*) FROM profiles");
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT source FROM candidates WHERE id = %.0f", best_id);
	sqlite3_stmt *sel;
	if (sqlite3_prepare_v2(h, sql, -1, &sel, NULL) == SQLITE_OK && sqlite3_step(sel) == SQLITE_ROW)
		out->selected_fast = !strcmp((const char *)sqlite3_column_text(sel, 0), fast);
	sqlite3_finalize(sel);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "SELECT profile FROM profiles LIMIT 1", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		out->profile = kf_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	int64_t profiled_id = kf_test_db_try_int(h, "SELECT e.candidate_id FROM profiles p JOIN evaluations e"
						    " ON e.id = p.evaluation_id LIMIT 1");
	sqlite3_close(h);
	kf_cli_result_free(&r);
	if (profiled_id > 0) { /* `kforge show` prints the stored profile with its evaluation */
		char id[32];
		snprintf(id, sizeof id, "%lld", (long long)profiled_id);
		const char *show[] = { "show", id, "--db", db_path, NULL };
		run(show, QUICK_LIMIT_S, &r);
		out->show_has_profile = r.exit_code == 0 && strstr(r.out, "profile (cpu, n=") &&
					strstr(r.out, "latency-bound") && strstr(r.out, "vector_share:");
		kf_cli_result_free(&r);
	}
	kf_llm_server_stop(srv);
	srv = NULL;
	free(fast);
}

Test(agent_run, profile_metrics_reach_the_refinement_prompt_and_change_the_outcome)
{
	char db_off[PATH_MAX];
	snprintf(db_off, sizeof db_off, "%s/off.db", tmpdir);
	struct profiled_run on, off;
	run_profiled("kept", db, &on);
	run_profiled("off", db_off, &off);

	/* With profiles: the kept candidate was profiled apart, the feedback named its bound and quoted
	 * the CPU's metrics, so the model answered with the fast kernel, which the run selected. */
	cr_expect_eq(on.profiles, 1, "one profile: the one kept candidate");
	cr_assert_not_null(on.profile);
	cJSON *p = cJSON_Parse(on.profile);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "bound")), "latency", "%s", on.profile);
	const cJSON *m = cJSON_GetObjectItem(p, "metrics");
	double v;
	cr_expect(kf_cli_json_num(m, "vector_share", &v) && v < 1, "the slow loop is not vectorised: %s", on.profile);
	cr_expect(kf_cli_json_num(m, "bw_pct", &v) && v < KF_PROFILE_SATURATED_PCT, "%s", on.profile);
	cr_expect(cJSON_GetObjectItem(m, "cores_used") || cJSON_GetObjectItem(cJSON_GetObjectItem(p, "unavailable"), "counters"),
		  "the task clock is counted or said to be unavailable: %s", on.profile);
	cJSON_Delete(p);
	cr_assert_not_null(on.feedback);
	cr_expect(strstr(on.feedback, "latency-bound"), "the feedback names the bound: " EXCERPT, on.feedback);
	cr_expect(strstr(on.feedback, "vectorised loops: 0 of"), "the feedback quotes the metric: " EXCERPT, on.feedback);
	cr_expect_eq(on.fast_replies, 1);
	cr_expect(on.show_has_profile, "kforge show prints the stored profile");
	cr_expect_eq(on.profiled, 1);
	cr_expect(on.tokens_mean > 0 && on.tokens_mean < 200, "the profile costs %.0f tokens a refinement", on.tokens_mean);

	/* Without: the same model and feedback otherwise, no bound it can act on, the slow kernel stays. */
	cr_expect_eq(off.profiles, 0);
	cr_assert_not_null(off.feedback);
	cr_expect_null(strstr(off.feedback, "latency-bound"), EXCERPT, off.feedback);
	cr_expect_eq(off.fast_replies, 0);
	cr_expect_eq(off.profiled, 0);
	cr_expect(on.selected_fast, "with profiles the run selects the fast kernel");
	cr_expect_not(off.selected_fast, "without, the slow one");
	cr_expect_gt(on.best_speedup, off.best_speedup, "selected kernel: %.3gx with profiles, %.3gx without",
		     on.best_speedup, off.best_speedup);
	free(on.feedback);
	free(off.feedback);
	free(on.profile);
	free(off.profile);
}
