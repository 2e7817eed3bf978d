/* `kforge run`'s pipeline, through the real CLI, the real judge and the scripted loopback server:
 * the request loop never waits for a judge (a stalled request is abandoned on time while a slow
 * candidate is being judged, and with 64 requests in flight while judges and compiles are busy; a
 * reply that has arrived is in the database even if kforge is then killed with SIGKILL, and is not
 * asked for again on --resume); compiles run in a pool ahead of the judge, so a slow judge finds
 * the candidates after it compiled; several CPU judge workers reach the same verdicts as one; and
 * --replay judges a run's stored replies again, without a model. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent.h"
#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"
#include "tests/support/cli.h"
#include "tests/support/db.h"
#include "tests/support/llm_server.h"

#define RUN_LIMIT_S 300.0
#define TEST_TIMEOUT_S 600
#define POLL_NS 50000000LL
#define WAIT_S 120.0
#define EXCERPT "%.600s"
#define STALL_TIMEOUT_S 1
#define STALL_SLACK_S 5
#define SLOW_CALL_TIMEOUT "8" /* seconds the slow candidate keeps its judge busy, at least */
#define GRACE_NS 3000000000LL /* after the server sent its last reply: time to read and store it on a busy machine */
#define EXAMPLE_MAX (1u << 20)
#define AHEAD_LATENCY_S 0.5   /* between replies: the compile pool keeps up, the slow judge does not */
#define LOAD_TASKS 8
#define LOAD_SAMPLES 8        /* LOAD_TASKS x LOAD_SAMPLES requests, all in flight at once */
#define LOAD_LATENCY_S 2.0
#define LOAD_STALL_TIMEOUT "5"  /* past the first replies: the judge is busy by then */
#define LOAD_STALLED 5        /* the server's 6th request stalls */
#define SEND_SPREAD_S 1.0     /* every first attempt goes out within this of the first */
#define REQUEST_SLACK_S 1.0   /* the unstalled replies all arrive within the latency and this */

static char tmpdir[PATH_MAX], db[PATH_MAX], examples[PATH_MAX];
static struct kf_llm_server *srv;

/* A kernel that never returns: its judge stays busy until the call timeout. */
static const char slow_vector_add[] =
	"/* Spins until the judge's call timeout. */\n"
	"int kf_launch(const float *x, const float *y, float *out, int n)\n"
	"{\n"
	"\tfor (volatile long i = 0;; i++)\n"
	"\t\tif (i < 0)\n"
	"\t\t\tout[0] = x[0] + y[0] + (float)n;\n"
	"\treturn 0;\n"
	"}\n";

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	snprintf(examples, sizeof examples, "%s/examples", tmpdir);
}

static void teardown(void)
{
	kf_llm_server_stop(srv);
	srv = NULL;
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(agent_pipeline, .init = setup, .fini = teardown, .timeout = TEST_TIMEOUT_S);

static const char *const no_keys[] = { "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", NULL };

static void run(const char *const *args, struct kf_cli_result *r)
{
	kf_err err;
	cr_assert_eq(kf_cli_run(args, no_keys, RUN_LIMIT_S, r, &err), KF_OK, "%s", err.msg);
	cr_assert_not(r->timed_out, "kforge still running after %.0f s; stderr: " EXCERPT, r->wall_s, r->err);
	cr_assert_eq(r->term_signal, 0, "kforge died of signal %d; stderr: " EXCERPT, r->term_signal, r->err);
}

static double qd(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s: no row", sql);
	double v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* A run with one stalled request: exactly that attempt failed, it was abandoned within the stall
 * timeout (and some slack), and candidates were judged while it stalled (the judge was not idle;
 * idle_why says which candidate that would be). Some evaluation overlaps the stalled attempt: on a
 * loaded machine the judge may be between two evaluations (compiling the next) at the very moment the
 * stall is abandoned. */
static void expect_one_stall_while_judging(sqlite3 *h, const struct kf_cli_result *r, double stall_timeout_s,
					   const char *idle_why)
{
	cr_assert_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM request_attempts WHERE error IS NOT NULL"), 1,
		     "exactly the stalled attempt failed; stderr: " EXCERPT, r->err);
	double stalled_ms = qd(h, "SELECT latency_ms FROM request_attempts WHERE error IS NOT NULL");
	cr_expect_leq(stalled_ms, (stall_timeout_s + STALL_SLACK_S) * 1000.0,
		      "the stalled request was abandoned after %.0f ms", stalled_ms);
	cr_expect_geq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations e, request_attempts a WHERE a.error IS NOT NULL"
			  " AND julianday(e.started_at) < julianday(a.finished_at)"
			  " AND julianday(e.finished_at) > julianday(a.finished_at) - a.latency_ms / 86400000.0"),
		      1, "%s", idle_why);
}

/* Every row of a one-column text query, each followed by a newline. */
static char *rows(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	kf_buf b = KF_BUF_INIT;
	cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	while (sqlite3_step(st) == SQLITE_ROW)
		kf_buf_addf(&b, "%s\n", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	kf_buf_adds(&b, "");
	return kf_buf_detach(&b);
}

/* An examples folder for the server: the slow vector_add and the real softmax_rows. */
static void write_examples(void)
{
	kf_err err;
	char path[PATH_MAX], real[PATH_MAX];
	char *text = NULL;
	size_t len = 0;
	cr_assert_eq(kf_mkdir_p(examples, &err), KF_OK, "%s", err.msg);
	snprintf(path, sizeof path, "%s/vector_add.c", examples);
	cr_assert_eq(kf_write_file(path, slow_vector_add, strlen(slow_vector_add), &err), KF_OK, "%s", err.msg);
	snprintf(real, sizeof real, "%s/examples/cpu/softmax_rows.c", kf_home());
	cr_assert_eq(kf_read_file(real, EXAMPLE_MAX, &text, &len, &err), KF_OK, "%s", err.msg);
	snprintf(path, sizeof path, "%s/softmax_rows.c", examples);
	cr_assert_eq(kf_write_file(path, text, len, &err), KF_OK, "%s", err.msg);
	free(text);
}

static void serve(const struct kf_llm_server_config *sc)
{
	kf_err err;
	cr_assert_eq(kf_llm_server_start(sc, &srv, &err), KF_OK, "%s", err.msg);
}

Test(agent_pipeline, abandons_a_stalled_request_on_time_while_a_slow_candidate_is_judged)
{
	write_examples();
	/* The first reply is the slow kernel; the request sent next stalls; its retry is answered. */
	static const enum kf_llm_fault faults[] = { KF_LLM_FAULT_NONE, KF_LLM_FAULT_STALL };
	struct kf_llm_server_config sc = { .faults = faults, .n_faults = 2, .examples_dir = examples };
	serve(&sc);
	char stall[16];
	snprintf(stall, sizeof stall, "%d", STALL_TIMEOUT_S);
	const char *args[] = { "run", "--task", "vector_add", "--model", "scripted", "--samples", "2", "--rounds", "1",
			       "--concurrency", "1", "--stall-timeout", stall, "--call-timeout", SLOW_CALL_TIMEOUT,
			       "--seeds", "1", "--verify", "off", "--base-url", kf_llm_server_url(srv), "--db", db,
			       "--json", NULL };
	struct kf_cli_result r;
	run(args, &r);
	sqlite3 *h = kf_test_db_open(db);
	/* The judge was busy with the slow candidate for the whole stall. */
	expect_one_stall_while_judging(h, &r, STALL_TIMEOUT_S,
				       "the slow candidate was not being judged while the request stalled");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE status = 'done'"), 2);
	sqlite3_close(h);
	kf_cli_result_free(&r);
}

Test(agent_pipeline, keeps_every_reply_that_arrived_before_a_kill_and_never_asks_for_it_again)
{
	write_examples();
	static const enum kf_scripted_reply script[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_LAZY, KF_LLM_NO_CODE };
	struct kf_llm_server_config sc = { .script = script, .script_len = 4, .examples_dir = examples,
					   .latency_s = 0.2 };
	serve(&sc);
	const char *args[] = { "run", "--task", "vector_add", "--task", "softmax_rows", "--model", "scripted",
			       "--samples", "4", "--rounds", "1", "--concurrency", "2", "--call-timeout", SLOW_CALL_TIMEOUT,
			       "--seeds", "1", "--timing-budget", "0.2", "--verify", "off", "--base-url",
			       kf_llm_server_url(srv), "--db", db, NULL };
	pid_t pid = kf_cli_spawn(args, tmpdir);
	/* vector_add's good kernel is judged first and spins: every reply arrives while it is judged. */
	int64_t deadline = kf_now_ns() + (int64_t)(WAIT_S * 1e9);
	int status;
	bool exited = false;
	while (kf_now_ns() < deadline && !exited && kf_llm_server_replies(srv, KF_LLM_NO_CODE) < 2) {
		struct timespec ts = { 0, POLL_NS };
		nanosleep(&ts, NULL);
		exited = waitpid(pid, &status, WNOHANG) == pid;
	}
	cr_assert_not(exited, "kforge finished before it could be killed");
	int sent = kf_llm_server_requests(srv);
	cr_assert_eq(sent, 8, "the server answered %d requests", sent);
	struct timespec grace = { GRACE_NS / 1000000000LL, GRACE_NS % 1000000000LL };
	nanosleep(&grace, NULL);
	sqlite3 *h = kf_test_db_open(db);
	int64_t judged = kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations");
	sqlite3_close(h);
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	kf_llm_server_stop(srv);
	srv = NULL;
	cr_assert_lt(judged, 6, "every candidate was judged before the kill: nothing was busy");

	h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE status <> 'pending'"), 8,
		     "replies that had arrived were lost by the kill");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE outcome = 'code' AND candidate_id IS NULL"), 0);
	sqlite3_close(h);

	serve(&sc);
	const char *resume[] = { "run", "--resume", "1", "--base-url", kf_llm_server_url(srv), "--db", db, "--json", NULL };
	struct kf_cli_result r;
	run(resume, &r);
	cr_expect_eq(kf_llm_server_requests(srv), 0, "the resumed run asked again for %d replies",
		     kf_llm_server_requests(srv));
	h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM candidates c WHERE (SELECT COUNT(*) FROM evaluations e"
			  " WHERE e.candidate_id = c.id) <> 1"),
		     0, "every candidate judged exactly once");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM runs WHERE id = 1 AND status = 'done'"), 1, "stderr: " EXCERPT, r.err);
	sqlite3_close(h);
	kf_cli_result_free(&r);
}

/* Each candidate's task, source hash and verdict, one line each, in a stable order. */
static char *verdicts(const char *path)
{
	sqlite3 *h = kf_test_db_open(path);
	char *v = rows(h, "SELECT c.task || ' ' || c.source_hash || ' ' || e.verdict FROM candidates c"
			  " JOIN evaluations e ON e.candidate_id = c.id ORDER BY 1");
	sqlite3_close(h);
	return v;
}

/* An examples folder where every kernel starts with a comment naming `salt`: sources no earlier
 * run has compiled. vector_add is the slow kernel; the others are the repository's CPU examples. */
static void write_salted_examples(const char *dir, const char *salt, const char *const *tasks, int n)
{
	kf_err err;
	cr_assert_eq(kf_mkdir_p(dir, &err), KF_OK, "%s", err.msg);
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];
		char *text = NULL;
		size_t len = 0;
		if (strcmp(tasks[i], "vector_add")) {
			snprintf(path, sizeof path, "%s/examples/cpu/%s.c", kf_home(), tasks[i]);
			cr_assert_eq(kf_read_file(path, EXAMPLE_MAX, &text, &len, &err), KF_OK, "%s", err.msg);
		}
		kf_buf b = KF_BUF_INIT;
		kf_buf_addf(&b, "/* %s */\n%s", salt, text ? text : slow_vector_add);
		snprintf(path, sizeof path, "%s/%s.c", dir, tasks[i]);
		cr_assert_eq(kf_write_file(path, b.data, b.len, &err), KF_OK, "%s", err.msg);
		kf_buf_free(&b);
		free(text);
	}
}

/* Each candidate's task and verdict, in a stable order. */
static char *task_verdicts(const char *path)
{
	sqlite3 *h = kf_test_db_open(path);
	char *v = rows(h, "SELECT c.task || ' ' || e.verdict FROM candidates c JOIN evaluations e ON e.candidate_id = c.id"
			  " ORDER BY 1");
	sqlite3_close(h);
	return v;
}

static const char *const ahead_tasks[] = { "vector_add", "softmax_rows", "relu_bf16", "sum_rows", "max_rows" };
#define N_AHEAD ((int)(sizeof ahead_tasks / sizeof ahead_tasks[0]))

/* One run of ahead_tasks, one sample each, requested one at a time, judged by one worker with
 * `jobs` compile processes; the slow vector_add comes first. */
static void run_ahead(const char *path, const char *jobs)
{
	char dir[PATH_MAX], salt[PATH_MAX + 16];
	snprintf(dir, sizeof dir, "%s/examples-%s", tmpdir, jobs);
	snprintf(salt, sizeof salt, "%s compile-jobs %s", tmpdir, jobs);
	write_salted_examples(dir, salt, ahead_tasks, N_AHEAD);
	struct kf_llm_server_config sc = { .examples_dir = dir, .latency_s = AHEAD_LATENCY_S };
	serve(&sc);
	const char *args[] = { "run", "--task", "vector_add", "--task", "softmax_rows", "--task", "relu_bf16", "--task",
			       "sum_rows", "--task", "max_rows", "--model", "scripted", "--samples", "1", "--rounds", "1",
			       "--concurrency", "1", "--workers", "1", "--compile-jobs", jobs, "--call-timeout",
			       SLOW_CALL_TIMEOUT, "--seeds", "1", "--timing-budget", "0.2", "--verify", "off", "--base-url",
			       kf_llm_server_url(srv), "--db", path, "--json", NULL };
	struct kf_cli_result r;
	run(args, &r);
	sqlite3 *h = kf_test_db_open(path);
	cr_assert_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations"), N_AHEAD, "stderr: " EXCERPT, r.err);
	sqlite3_close(h);
	kf_cli_result_free(&r);
	kf_llm_server_stop(srv);
	srv = NULL;
}

Test(agent_pipeline, compiles_ahead_of_a_slow_judge_so_it_finds_every_later_candidate_compiled)
{
	char pooled[PATH_MAX], serial[PATH_MAX];
	snprintf(pooled, sizeof pooled, "%s/pooled.db", tmpdir);
	snprintf(serial, sizeof serial, "%s/serial.db", tmpdir);
	run_ahead(pooled, "4");
	sqlite3 *h = kf_test_db_open(pooled);
	cr_expect_eq(kf_test_db_int(h, "SELECT c.task = 'vector_add' FROM evaluations e JOIN candidates c"
			  " ON c.id = e.candidate_id ORDER BY e.id LIMIT 1"),
		     1, "the slow candidate was not judged first");
	/* While the judge spun on the slow kernel, the pool compiled every later candidate. */
	char *seen = rows(h, "SELECT candidate_id || ' ' || verdict || ' cached ' || json_extract(details, '$.compile.cached')"
			     " FROM evaluations ORDER BY id");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE id > (SELECT MIN(id) FROM evaluations)"
			  " AND json_extract(details, '$.compile.cached')"),
		     N_AHEAD - 1, "%s", seen);
	free(seen);
	sqlite3_close(h);
	/* The same run without the pool: the judge compiles each one itself, none found compiled. */
	run_ahead(serial, "0");
	h = kf_test_db_open(serial);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE json_extract(details, '$.compile.cached')"), 0,
		     "the sources were compiled before the run: the check above proves nothing");
	sqlite3_close(h);
	char *a = task_verdicts(pooled), *b = task_verdicts(serial);
	cr_expect_str_eq(a, b, "the pool changed a verdict");
	free(a);
	free(b);
}

Test(agent_pipeline, judges_compile_for_themselves_rather_than_wait_for_a_busy_compile_pool)
{
	/* Nine new sources at once, one compile process, two judges: waiting for the pool would leave
	 * both judges idle behind one compile at a time. */
	static const enum kf_scripted_reply script[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_LAZY, KF_LLM_NO_CODE };
	struct kf_llm_server_config sc = { .script = script, .script_len = 4, .salt = tmpdir };
	serve(&sc);
	const char *args[] = { "run", "--task", "vector_add", "--task", "softmax_rows", "--task", "relu_bf16", "--model",
			       "scripted", "--samples", "4", "--rounds", "1", "--concurrency", "12", "--workers", "2",
			       "--compile-jobs", "1", "--seeds", "1", "--timing-budget", "0.2", "--verify", "off",
			       "--base-url", kf_llm_server_url(srv), "--db", db, "--json", NULL };
	struct kf_cli_result r;
	run(args, &r);
	sqlite3 *h = kf_test_db_open(db);
	cr_assert_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations"), 9, "stderr: " EXCERPT, r.err);
	char *seen = rows(h, "SELECT candidate_id || ' worker ' || json_extract(details, '$.judge_worker') || ' cached '"
			     " || compile_cached FROM evaluations ORDER BY id");
	cr_expect_geq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE compile_cached = 0"), 2,
		      "the judges waited for the compile process:\n%s", seen);
	cr_expect_geq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE compile_cached = 1"), 1,
		      "the compile process compiled nothing ahead:\n%s", seen);
	free(seen);
	sqlite3_close(h);
	kf_cli_result_free(&r);
}

static const char *const load_tasks[] = { "vector_add", "relu_bf16", "silu_bf16", "sum_rows", "max_rows", "softmax_rows",
					  "transpose_f32", "argmax_rows" };

Test(agent_pipeline, keeps_64_requests_in_flight_and_abandons_a_stall_on_time_while_judges_and_compiles_are_busy)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/load-examples", tmpdir);
	write_salted_examples(dir, tmpdir, load_tasks, LOAD_TASKS);
	enum kf_llm_fault faults[LOAD_STALLED + 1] = { 0 };
	faults[LOAD_STALLED] = KF_LLM_FAULT_STALL;
	static const enum kf_scripted_reply script[] = { KF_LLM_GOOD, KF_LLM_LAZY, KF_LLM_BROKEN, KF_LLM_GOOD };
	struct kf_llm_server_config sc = { .script = script, .script_len = 4, .faults = faults,
					   .n_faults = LOAD_STALLED + 1, .examples_dir = dir,
					   .latency_s = LOAD_LATENCY_S };
	serve(&sc);
	char samples[16], in_flight[16];
	snprintf(samples, sizeof samples, "%d", LOAD_SAMPLES);
	snprintf(in_flight, sizeof in_flight, "%d", LOAD_TASKS * LOAD_SAMPLES);
	const char *args[] = { "run", "--task", load_tasks[0], "--task", load_tasks[1], "--task", load_tasks[2], "--task",
			       load_tasks[3], "--task", load_tasks[4], "--task", load_tasks[5], "--task", load_tasks[6],
			       "--task", load_tasks[7], "--model", "scripted", "--samples", samples, "--rounds", "1",
			       "--concurrency", in_flight, "--stall-timeout", LOAD_STALL_TIMEOUT, "--workers", "1",
			       "--compile-jobs", "2", "--call-timeout", SLOW_CALL_TIMEOUT, "--seeds", "1",
			       "--timing-budget", "0.2", "--verify", "off", "--base-url", kf_llm_server_url(srv), "--db", db,
			       "--json", NULL };
	struct kf_cli_result r;
	run(args, &r);
	sqlite3 *h = kf_test_db_open(db);
	expect_one_stall_while_judging(h, &r, atof(LOAD_STALL_TIMEOUT),
				       "no candidate was being judged while the request stalled");
	/* No slot sat idle: every first attempt was sent at once, and every unstalled reply came back
	 * within the server's latency (and some slack), with the judge busy from the first reply on. */
	const char *start = "(julianday(finished_at) * 86400.0 - latency_ms / 1000.0)";
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT MAX(%s) - MIN(%s) FROM request_attempts WHERE attempt = 1", start, start);
	double spread = qd(h, sql);
	cr_expect_leq(spread, SEND_SPREAD_S, "the first attempts went out over %.2f s", spread);
	snprintf(sql, sizeof sql,
		 "SELECT MAX(julianday(finished_at) * 86400.0) - MIN(%s) FROM request_attempts WHERE attempt = 1"
		 " AND error IS NULL", start);
	double span = qd(h, sql);
	cr_expect_leq(span, LOAD_LATENCY_S + REQUEST_SLACK_S, "the unstalled requests took %.2f s at %.0f s latency",
		      span, LOAD_LATENCY_S);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE status = 'done'"), LOAD_TASKS * LOAD_SAMPLES);
	sqlite3_close(h);
	kf_cli_result_free(&r);
}

static const enum kf_scripted_reply mixed[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_LAZY, KF_LLM_NO_CODE };

static void run_mixed(const char *path, const char *workers)
{
	const char *args[] = { "run", "--task", "vector_add", "--task", "softmax_rows", "--model", "scripted",
			       "--samples", "4", "--rounds", "1", "--workers", workers, "--seeds", "1", "--timing-budget",
			       "0.2", "--verify", "off", "--base-url", kf_llm_server_url(srv), "--db", path, "--json",
			       NULL };
	struct kf_cli_result r;
	run(args, &r);
	cr_assert_eq(r.exit_code, 0, "--workers %s: exit %d; stderr: " EXCERPT, workers, r.exit_code, r.err);
	kf_cli_result_free(&r);
}

Test(agent_pipeline, two_cpu_workers_judge_a_run_to_the_same_verdicts_as_one)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	char db2[PATH_MAX];
	snprintf(db2, sizeof db2, "%s/two.db", tmpdir);
	run_mixed(db, "1");
	run_mixed(db2, "2");
	char *one = verdicts(db), *two = verdicts(db2);
	cr_expect_str_eq(two, one);
	cr_expect(strstr(one, " ok\n") && strstr(one, " compile_error\n") && strstr(one, " unwritten_output\n"), "%s", one);
	sqlite3 *h = kf_test_db_open(db2);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(DISTINCT json_extract(details, '$.judge_worker')) FROM evaluations"), 2,
		     "both workers judged");
	sqlite3_close(h);
	free(one);
	free(two);
}

/* Each candidate's task, source hash and verdict in one run of a database. */
static char *run_verdicts(const char *path, int run_id)
{
	char sql[512];
	snprintf(sql, sizeof sql,
		 "SELECT c.task || ' ' || c.source_hash || ' ' || e.verdict FROM candidates c"
		 " JOIN evaluations e ON e.candidate_id = c.id WHERE c.run_id = %d ORDER BY 1",
		 run_id);
	sqlite3 *h = kf_test_db_open(path);
	char *v = rows(h, sql);
	sqlite3_close(h);
	return v;
}

Test(agent_pipeline, replay_judges_a_runs_replies_again_to_the_same_verdicts_without_a_model)
{
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	serve(&sc);
	run_mixed(db, "1");
	kf_llm_server_stop(srv);
	srv = NULL; /* nothing answers from here on */
	char *original = run_verdicts(db, 1);

	const char *again[] = { "run", "--replay", "1", "--seeds", "1", "--timing-budget", "0.2", "--db", db, "--json", NULL };
	struct kf_cli_result r;
	run(again, &r);
	cr_assert_eq(r.exit_code, 0, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	char *replayed = run_verdicts(db, 2);
	cr_expect_str_eq(replayed, original);
	sqlite3 *h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE run_id = 2"), kf_test_db_int(h, "SELECT COUNT(*) FROM requests WHERE run_id = 1"));
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM request_attempts a JOIN requests q ON q.id = a.request_id WHERE q.run_id = 2"),
		     0, "the replay sent a request");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM runs WHERE id = 2 AND status = 'done'"
			  " AND json_extract(config, '$.replay_of') = '1'"), 1);
	sqlite3_close(h);
	kf_cli_result_free(&r);

	/* The same through an export, into another database. */
	const char *export[] = { "run", "--export-replies", "1", "--db", db, NULL };
	run(export, &r);
	cr_assert_eq(r.exit_code, 0, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	char file[PATH_MAX], db2[PATH_MAX];
	kf_err err;
	snprintf(file, sizeof file, "%s/replies.jsonl", tmpdir);
	snprintf(db2, sizeof db2, "%s/elsewhere.db", tmpdir);
	cr_assert_eq(kf_write_file(file, r.out, r.out_len, &err), KF_OK, "%s", err.msg);
	kf_cli_result_free(&r);
	const char *from_file[] = { "run", "--replay", file, "--seeds", "1", "--timing-budget", "0.2", "--verify", "off",
				    "--db", db2, "--json", NULL };
	run(from_file, &r);
	cr_assert_eq(r.exit_code, 0, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	char *elsewhere = run_verdicts(db2, 1);
	cr_expect_str_eq(elsewhere, original);
	kf_cli_result_free(&r);
	free(elsewhere);
	free(replayed);
	free(original);
}

Test(agent_pipeline, replay_refuses_a_file_that_is_not_an_export)
{
	char file[PATH_MAX];
	kf_err err;
	snprintf(file, sizeof file, "%s/not.jsonl", tmpdir);
	cr_assert_eq(kf_write_file(file, "{\"task\": \"vector_add\"}\n", 23, &err), KF_OK, "%s", err.msg);
	const char *args[] = { "run", "--replay", file, "--db", db, NULL };
	struct kf_cli_result r;
	run(args, &r);
	cr_expect_eq(r.exit_code, KF_EINPUT, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	cr_expect(kf_cli_is_one_error_line(&r), EXCERPT, r.err);
	cr_expect(strstr(r.err, "not the header of a kforge replies export"), EXCERPT, r.err);
	kf_cli_result_free(&r);
}

/* The configuration a flag list (NULL-terminated pairs) reads as; KF_OK or the error's code. */
static int read_config(const char *const *flags, struct kf_agent_config *out, kf_err *err)
{
	cJSON *c = kf_agent_config_default();
	int rc = KF_OK;
	const char *base[] = { "model", "m", "provider", "openai", NULL };
	for (int i = 0; base[i] && rc == KF_OK; i += 2)
		rc = kf_agent_config_set(c, base[i], base[i + 1], err);
	for (int i = 0; flags[i] && rc == KF_OK; i += 2)
		rc = kf_agent_config_set(c, flags[i], flags[i + 1], err);
	if (rc == KF_OK)
		rc = kf_agent_config_read(c, out, err);
	cJSON_Delete(c);
	return rc;
}

Test(agent_pipeline, gpus_takes_a_count_or_a_list_and_workers_belongs_to_the_cpu)
{
	struct kf_agent_config cfg;
	kf_err err;
	const char *cpu[] = { NULL };
	cr_assert_eq(read_config(cpu, &cfg, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(cfg.n_workers, 1, "one CPU worker by default");
	const char *cpu3[] = { "workers", "3", NULL };
	cr_assert_eq(read_config(cpu3, &cfg, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(cfg.n_workers, 3);
	const char *one_gpu[] = { "backend", "cuda", "device", "2", NULL };
	cr_assert_eq(read_config(one_gpu, &cfg, &err), KF_OK, "%s", err.msg);
	cr_expect(cfg.n_workers == 1 && cfg.devices[0] == 2, "--device alone is one GPU");
	const char *count[] = { "backend", "cuda", "gpus", "2", NULL };
	cr_assert_eq(read_config(count, &cfg, &err), KF_OK, "%s", err.msg);
	cr_expect(cfg.n_workers == 2 && cfg.devices[0] == 0 && cfg.devices[1] == 1);
	const char *list[] = { "backend", "cuda", "gpus", "0,3,1", NULL };
	cr_assert_eq(read_config(list, &cfg, &err), KF_OK, "%s", err.msg);
	cr_expect(cfg.n_workers == 3 && cfg.devices[0] == 0 && cfg.devices[1] == 3 && cfg.devices[2] == 1);
	const char *twice[] = { "backend", "cuda", "gpus", "1,1", NULL };
	cr_expect_eq(read_config(twice, &cfg, &err), KF_EINPUT);
	cr_expect(strstr(err.msg, "twice"), "%s", err.msg);
	const char *junk[] = { "backend", "cuda", "gpus", "0,x", NULL };
	cr_expect_eq(read_config(junk, &cfg, &err), KF_EINPUT);
	const char *gpus_on_cpu[] = { "gpus", "2", NULL };
	cr_expect_eq(read_config(gpus_on_cpu, &cfg, &err), KF_EINPUT);
	cr_expect(strstr(err.msg, "--workers"), "%s", err.msg);
	const char *workers_on_gpu[] = { "backend", "cuda", "workers", "2", NULL };
	cr_expect_eq(read_config(workers_on_gpu, &cfg, &err), KF_EINPUT);
	cr_expect(strstr(err.msg, "--gpus"), "%s", err.msg);
}
