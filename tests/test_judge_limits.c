/* The judge's limits on a whole evaluation, through `kforge submit`: a per-evaluation deadline
 * ends a candidate that keeps every single call inside its own timeout. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "common/fs.h"
#include "tests/support/cli.h"

#define DEADLINE_S "5"
#define CALL_TIMEOUT_S "1"
/* The deadline, plus the call in flight when it passes, compile and start-up. */
#define DEADLINE_OVERRUN_MAX_S 10.0
#define SUBMIT_LIMIT_S 120.0

static char tmpdir[PATH_MAX];

static void make_dir(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
}

static void remove_dir(void) { kf_rm_rf(tmpdir); }

TestSuite(judge_limits, .init = make_dir, .fini = remove_dir, .timeout = 300);

Test(judge_limits, ends_an_evaluation_past_its_deadline_with_timeout)
{
	char db[PATH_MAX + 16], kernel[PATH_MAX];
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	snprintf(kernel, sizeof kernel, "%s/tests/kernels/judge/answers_every_call_late.c", kf_home());
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, "--json", "--call-timeout", CALL_TIMEOUT_S,
			       "--deadline", DEADLINE_S, kernel, NULL };
	struct kf_cli_result r;
	kf_err err;
	cr_assert_eq(kf_cli_run(args, NULL, SUBMIT_LIMIT_S, &r, &err), KF_OK, "%s", err.msg);
	cr_expect_not(r.timed_out, "kforge submit ran past %.0f s", SUBMIT_LIMIT_S);
	cr_expect_eq(r.exit_code, 1, "exit %d; stderr: %s", r.exit_code, r.err);
	const char *v = kf_cli_json_str(r.json, "verdict"), *why = kf_cli_json_str(r.json, "reason");
	cr_expect(v && !strcmp(v, "timeout"), "verdict %s (%s)", v ? v : "none", why ? why : "");
	cr_expect(why && strstr(why, "deadline"), "the reason does not name the deadline: %s", why ? why : "");
	cr_expect_lt(r.wall_s, DEADLINE_OVERRUN_MAX_S, "the evaluation took %.1f s with a %s s deadline", r.wall_s,
		     DEADLINE_S);
	kf_cli_result_free(&r);
}
