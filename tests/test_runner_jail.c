/* The runner's jail as the operator meets it through `kforge submit`: a jail that cannot be built
 * fails closed (internal_error naming the step, exit 3, nothing judged ok), and whatever a
 * candidate writes, forged runner messages with terminal escapes included, reaches kforge's output
 * only as escaped, printable text. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "tests/support/cli.h"

#define JUDGE_LIMIT_S 120.0
#define TEST_TIMEOUT_S 300.0
#define EXCERPT "%.400s"
#define ESC '\x1b'

static const char correct_vector_add[] = "int kf_launch(const float *x, const float *y, float *out, int n)\n"
					 "{\n"
					 "\tfor (int i = 0; i < n; i++)\n"
					 "\t\tout[i] = x[i] + y[i];\n"
					 "\treturn 0;\n"
					 "}\n";

/* Loaded into kforge with LD_PRELOAD: every unshare() fails as it does where namespaces are off. */
static const char unshare_fails[] = "#include <errno.h>\n"
				    "int unshare(int flags)\n"
				    "{\n"
				    "\t(void)flags;\n"
				    "\terrno = EPERM;\n"
				    "\treturn -1;\n"
				    "}\n";

static char tmpdir[PATH_MAX], db[PATH_MAX];
static struct kf_cli_result result;

static void make_tmpdir(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
}

static void clean_up(void)
{
	kf_cli_result_free(&result);
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(runner_jail, .init = make_tmpdir, .fini = clean_up);

static const struct kf_cli_result *run(const char *const *args, const char *const *env)
{
	kf_err err;
	kf_cli_result_free(&result);
	cr_assert_eq(kf_cli_run(args, env, JUDGE_LIMIT_S, &result, &err), KF_OK, "%s", err.msg);
	cr_assert_not(result.timed_out, "kforge still running after %.1f s", result.wall_s);
	cr_assert_eq(result.term_signal, 0, "kforge died of signal %d; stderr: " EXCERPT, result.term_signal, result.err);
	return &result;
}

static void write_file(const char *name, const char *text, char *path, size_t len)
{
	kf_err err;
	snprintf(path, len, "%s/%s", tmpdir, name);
	cr_assert_eq(kf_write_file(path, text, strlen(text), &err), KF_OK, "%s", err.msg);
}

Test(runner_jail, fails_closed_with_internal_error_naming_unshare_when_namespaces_are_unavailable,
     .timeout = TEST_TIMEOUT_S)
{
	char src[PATH_MAX], so[PATH_MAX], candidate[PATH_MAX], cmd[3 * PATH_MAX], preload[PATH_MAX + 16];
	write_file("unshare_fails.c", unshare_fails, src, sizeof src);
	write_file("candidate.c", correct_vector_add, candidate, sizeof candidate);
	snprintf(so, sizeof so, "%s/unshare_fails.so", tmpdir);
	snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s' '%s'", so, src);
	cr_assert_eq(system(cmd), 0, "cannot build the fault-injection library: %s", cmd);
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s", so);
	/* Under AddressSanitizer (make test-asan) its runtime must come first; the preload goes before it. */
	const char *env[] = { preload, "ASAN_OPTIONS=verify_asan_link_order=0", NULL };
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, "--json", candidate, NULL };
	const struct kf_cli_result *r = run(args, env);
	cr_expect_eq(r->exit_code, KF_EINTERNAL, "exit %d, expected 3; stdout: " EXCERPT "; stderr: " EXCERPT,
		     r->exit_code, r->out, r->err);
	cr_expect(strstr(r->err, "unshare") != NULL, "the error does not name unshare: " EXCERPT, r->err);
	cr_expect(strstr(r->out, "\"ok\"") == NULL, "something was judged ok: " EXCERPT, r->out);
}

Test(runner_jail, shows_a_forged_message_and_terminal_escapes_only_as_escaped_text, .timeout = TEST_TIMEOUT_S)
{
	char kernel[PATH_MAX];
	const char *home = getenv("KFORGE_HOME");
	snprintf(kernel, sizeof kernel, "%s/tests/kernels/cpu/forges_a_setup_error_with_terminal_escapes.c",
		 home ? home : ".");
	const char *json_args[] = { "submit", "--task", "vector_add", "--db", db, "--json", kernel, NULL };
	const struct kf_cli_result *r = run(json_args, NULL);
	cr_expect_eq(r->exit_code, KF_EREJECT, "exit %d, expected 1; stderr: " EXCERPT, r->exit_code, r->err);
	cr_assert(cJSON_IsObject(r->json), "stdout is not one JSON object: " EXCERPT, r->out);
	cr_expect_str_eq(kf_cli_json_str(r->json, "verdict"), "sandbox_violation");
	const char *output = kf_cli_json_str(r->json, "output");
	cr_assert(output != NULL, "no output recorded");
	cr_expect(strstr(output, "\\x1B[2J") != NULL, "the escape is not shown escaped: " EXCERPT, output);
	cr_expect(memchr(r->out, ESC, r->out_len) == NULL, "an escape byte reached stdout");
	cr_expect(memchr(r->err, ESC, r->err_len) == NULL, "an escape byte reached stderr");
	const char *plain_args[] = { "submit", "--task", "vector_add", "--db", db, kernel, NULL };
	r = run(plain_args, NULL);
	cr_expect_eq(r->exit_code, KF_EREJECT, "exit %d, expected 1; stderr: " EXCERPT, r->exit_code, r->err);
	cr_expect(memchr(r->out, ESC, r->out_len) == NULL, "an escape byte reached stdout");
	cr_expect(memchr(r->err, ESC, r->err_len) == NULL, "an escape byte reached stderr");
}
