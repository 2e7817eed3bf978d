/* The judge against candidates that attack the measurement rather than the answer, through
 * `kforge submit`: a per-evaluation deadline ends a candidate that keeps every single call inside
 * its own timeout, a runner that under-reports its times or works while it is being thawed is timed
 * by the judge's own clock, and a kernel that breaks its runner's pipe only where the ranking looks
 * cannot end `kforge rank`. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/fs.h"
#include "tests/support/cli.h"

#define DEADLINE_S "5"
#define CALL_TIMEOUT_S "1"
/* The deadline, plus the call in flight when it passes, compile and start-up. */
#define DEADLINE_OVERRUN_MAX_S 10.0
#define SUBMIT_LIMIT_S 120.0
/* Believed, a forged 3x would show as a third of the honest time. The test compares the candidates'
 * own times, not their speedups: the CPU reference runs on every core, so a test running beside this
 * one moved the speedups of identical kernels apart by up to 1.55x on the 2-core CI machine, while the
 * single-threaded twins keep a core each. */
#define HONEST_OVER_FORGED_MAX 1.5
#define FORGING_PRELUDE "tests/kernels/judge/hooks_the_runners_write.inc"
#define HONEST_TWIN "tests/kernels/judge/adds_honestly.c"

static char tmpdir[PATH_MAX];

static void make_dir(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
}

static void remove_dir(void) { kf_rm_rf(tmpdir); }

TestSuite(judge_limits, .init = make_dir, .fini = remove_dir, .timeout = 300);

/* Submits the kernel at path for vector_add into the suite's database; r holds the result. */
static void submit_file(const char *kernel, const char *const *extra, struct kf_cli_result *r)
{
	char db[PATH_MAX + 16];
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	const char *args[24] = { "submit", "--task", "vector_add", "--db", db, "--json" };
	int n = 6;
	for (; extra && *extra; extra++)
		args[n++] = *extra;
	args[n++] = kernel;
	args[n] = NULL;
	kf_err err;
	cr_assert_eq(kf_cli_run(args, NULL, SUBMIT_LIMIT_S, r, &err), KF_OK, "%s", err.msg);
	cr_assert_not(r->timed_out, "kforge submit %s ran past %.0f s", kernel, SUBMIT_LIMIT_S);
}

/* Submits tests/kernels/judge/<name>.c. */
static void submit(const char *name, const char *const *extra, struct kf_cli_result *r)
{
	char kernel[PATH_MAX];
	snprintf(kernel, sizeof kernel, "%s/tests/kernels/judge/%s.c", kf_home(), name);
	submit_file(kernel, extra, r);
}

#define PAIRED_RUNS 3
/* The thaw-time worker against its honest twin. On the loaded CI machine the twin, whose runner
 * thread spins for commands beside its two spinning helpers, ran up to 1.7x slower than the worker,
 * whose protocol thread sleeps in poll(); the untimed work the test guards against gave 2.4-4x. */
#define THAW_WORKER_OVER_HONEST_MAX 2.0
_Static_assert(PAIRED_RUNS == 3, "median3 takes three");

/* The middle one of three. */
static double median3(const double *v)
{
	double lo = v[0] < v[1] ? v[0] : v[1], hi = v[0] < v[1] ? v[1] : v[0];
	return v[2] < lo ? lo : v[2] > hi ? hi : v[2];
}

/* The candidate's median time in milliseconds, as the judge recorded it. */
static double candidate_ms(const struct kf_cli_result *r)
{
	double v = -1;
	kf_cli_json_num(cJSON_GetObjectItem(cJSON_GetObjectItem(r->json, "timing"), "candidate"), "median_ms", &v);
	return v;
}

/* A time forged 3x smaller through the runner's own write() must not show: a plain kernel and the same
 * kernel behind the forging prelude, alternated in one database, get median times within noise. */
Test(judge_limits, times_a_runner_that_under_reports_by_its_own_clock)
{
	char forger[PATH_MAX + 16], honest_path[PATH_MAX];
	snprintf(forger, sizeof forger, "%s/forger.c", tmpdir);
	snprintf(honest_path, sizeof honest_path, "%s/%s", kf_home(), HONEST_TWIN);
	kf_err err;
	cr_assert_eq(kf_cli_join_kernel(FORGING_PRELUDE, HONEST_TWIN, forger, &err), KF_OK, "%s", err.msg);
	double honest[PAIRED_RUNS], forged[PAIRED_RUNS];
	for (int k = 0; k < PAIRED_RUNS; k++) {
		struct kf_cli_result h, f;
		submit_file(honest_path, NULL, &h);
		submit_file(forger, NULL, &f);
		const char *v = kf_cli_json_str(f.json, "verdict");
		cr_assert(v && !strcmp(v, "ok"), "the forger got %s: %s", v ? v : "no verdict", f.err);
		const cJSON *cand = cJSON_GetObjectItem(cJSON_GetObjectItem(f.json, "timing"), "candidate");
		const char *method = kf_cli_json_str(cand, "method");
		cr_expect(method && !strcmp(method, "judge_clock"), "the forged claims were believed (method %s)",
			  method ? method : "none");
		honest[k] = candidate_ms(&h);
		forged[k] = candidate_ms(&f);
		kf_cli_result_free(&h);
		kf_cli_result_free(&f);
	}
	double h = median3(honest), f = median3(forged);
	cr_expect(f > 0 && h > 0 && h < f * HONEST_OVER_FORGED_MAX,
		  "the forger's median time is %.3g ms against %.3g ms honestly", f, h);
}

Test(judge_limits, ends_an_evaluation_past_its_deadline_with_timeout)
{
	const char *extra[] = { "--call-timeout", CALL_TIMEOUT_S, "--deadline", DEADLINE_S, NULL };
	struct kf_cli_result r;
	submit("answers_every_call_late", extra, &r);
	cr_expect_eq(r.exit_code, 1, "exit %d; stderr: %s", r.exit_code, r.err);
	const char *v = kf_cli_json_str(r.json, "verdict"), *why = kf_cli_json_str(r.json, "reason");
	cr_expect(v && !strcmp(v, "timeout"), "verdict %s (%s)", v ? v : "none", why ? why : "");
	cr_expect(why && strstr(why, "deadline"), "the reason does not name the deadline: %s", why ? why : "");
	cr_expect_lt(r.wall_s, DEADLINE_OVERRUN_MAX_S, "the evaluation took %.1f s with a %s s deadline", r.wall_s,
		     DEADLINE_S);
	kf_cli_result_free(&r);
}

/* A candidate that passes the judge and breaks its runner's pipe only on hidden shapes: `kforge
 * rank all` finishes, with its own exit code, every time it is run. */
Test(judge_limits, rank_finishes_with_a_kernel_that_breaks_its_pipe_on_hidden_shapes)
{
	struct kf_cli_result sub;
	submit("leaves_on_hidden_shapes", NULL, &sub);
	const char *v = kf_cli_json_str(sub.json, "verdict");
	cr_assert(v && !strcmp(v, "ok"), "the judge, which runs no hidden shape, said %s: %s", v ? v : "nothing", sub.err);
	kf_cli_result_free(&sub);
	char db[PATH_MAX + 16];
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	for (int run = 0; run < 2; run++) {
		const char *args[] = { "rank", "all", "--db", db, "--json", NULL };
		struct kf_cli_result r;
		kf_err err;
		cr_assert_eq(kf_cli_run(args, NULL, SUBMIT_LIMIT_S, &r, &err), KF_OK, "%s", err.msg);
		cr_expect_eq(r.term_signal, 0, "kforge rank was killed by signal %d", r.term_signal);
		cr_expect(r.exit_code == 0 || r.exit_code == 1, "kforge rank exited %d: %s", r.exit_code, r.err);
		cr_expect(r.json != NULL, "kforge rank printed no JSON: %s", r.err);
		kf_cli_result_free(&r);
	}
}

/* Threads that compute while the judge thaws the runner, before the command is written: that work is
 * inside the judge's clock, so the kernel is no faster than the same sum done honestly by the same two
 * spinning threads (untimed, it reached 3.5-4.5x against 1.1-1.4x). */
Test(judge_limits, times_work_done_while_the_runner_is_being_thawed)
{
	/* Alternated, several times each: on a loaded machine one submission's time moves by half. */
	double honest[PAIRED_RUNS], sly[PAIRED_RUNS];
	for (int k = 0; k < PAIRED_RUNS; k++) {
		struct kf_cli_result h, f;
		submit("adds_on_two_spinning_threads", NULL, &h);
		submit("answers_for_a_zombie_main_thread", NULL, &f);
		const char *v = kf_cli_json_str(f.json, "verdict");
		cr_assert(v, "no verdict: %s", f.err);
		honest[k] = candidate_ms(&h);
		sly[k] = strcmp(v, "ok") == 0 ? candidate_ms(&f) : INFINITY; /* rejected: never fast */
		kf_cli_result_free(&h);
		kf_cli_result_free(&f);
	}
	double h = median3(honest), f = median3(sly);
	cr_expect(f > 0 && h > 0 && h < f * THAW_WORKER_OVER_HONEST_MAX,
		  "the thaw-time worker's median time is %.3g ms against %.3g ms honestly", f, h);
}
