/* The hostile and broken CPU kernel corpus (tests/kernels/cpu/), judged through `kforge submit`.
 * Each kernel's first line names its task and the verdict it must get; one test per kernel submits
 * it and checks the verdict, the reason, the exit code, that kforge finished in time without
 * crashing, that the evaluation was recorded, and that no secret (the host's password file, a
 * canary planted in kforge's environment) leaked into anything kforge printed. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/fs.h"
#include "eval/task.h"
#include "sandbox/verdict.h"
#include "tests/support/cli.h"

/* One entry per file tests/kernels/cpu/<name>.c; the test is named after the file. */
#define HOSTILE_KERNELS(X)                                                                                   \
	X(allocates_64_gib)                                                                                  \
	X(allocates_in_chunks_until_oom)                                                                     \
	X(blocks_sigsys_then_opens_a_socket)                                                                 \
	X(calls_an_undefined_function)                                                                       \
	X(calls_ptrace)                                                                                      \
	X(copies_an_input)                                                                                   \
	X(cuts_corners_on_the_benchmark_shape)                                                               \
	X(dereferences_null)                                                                                 \
	X(execs_a_shell)                                                                                     \
	X(execs_in_a_constructor)                                                                            \
	X(exits_inside_kf_launch)                                                                            \
	X(finishes_in_a_thread_after_returning)                                                              \
	X(floods_stdout)                                                                                     \
	X(forks_a_child)                                                                                     \
	X(forks_in_a_constructor)                                                                            \
	X(has_a_syntax_error)                                                                                \
	X(has_no_entry_point)                                                                                \
	X(has_wrong_parameter_types)                                                                         \
	X(ignores_the_ragged_tail)                                                                           \
	X(incbins_etc_passwd)                                                                                \
	X(includes_etc_passwd)                                                                               \
	X(includes_itself_forever)                                                                           \
	X(includes_proc_self_environ)                                                                        \
	X(is_correct_and_writes_to_stderr)                                                                   \
	X(is_correct_with_openmp)                                                                            \
	X(kills_its_parent)                                                                                  \
	X(kills_its_parent_in_a_constructor)                                                                 \
	X(loops_forever)                                                                                     \
	X(matmul_accumulates_in_bf16)                                                                        \
	X(misnames_the_entry_point)                                                                          \
	X(opens_a_file_in_a_constructor)                                                                     \
	X(opens_a_socket)                                                                                    \
	X(opens_a_socket_in_a_constructor)                                                                   \
	X(opens_etc_passwd)                                                                                  \
	X(prints_a_fake_verdict)                                                                             \
	X(raises_sigsegv)                                                                                    \
	X(reads_the_environment)                                                                             \
	X(replaces_the_sigsys_handler)                                                                       \
	X(returns_an_error_code)                                                                             \
	X(rounds_the_sum_to_bf16)                                                                            \
	X(skips_work_after_three_calls)                                                                      \
	X(sleeps_forever)                                                                                    \
	X(softmax_without_max_subtraction)                                                                   \
	X(writes_all_zeros)                                                                                  \
	X(writes_half_the_output)                                                                            \
	X(writes_nan)                                                                                        \
	X(writes_one_infinity)                                                                               \
	X(zeroes_an_input_after_computing)                                                                   \
	X(zeroes_an_input_then_copies_the_other)

#define KERNEL_DIR "tests/kernels/cpu"
#define KERNEL_MAX_BYTES (64 * 1024)
#define HEADER_PREFIX "/* kforge-test: "
#define HEADER_SUFFIX " */"
#define DEFAULT_LIMIT_S 60.0
#define MAX_LIMIT_S 240.0
/* kforge may overrun its limit by this much before it is killed, so an overrun is measured, not hidden. */
#define OVERRUN_MARGIN_S 30.0
/* Criterion's own limit per test: above MAX_LIMIT_S + OVERRUN_MARGIN_S + the `show` call. */
#define TEST_TIMEOUT_S 330.0
#define SHOW_TIMEOUT_S 30.0
#define EXCERPT "%.400s"
/* Written by every real /etc/passwd; never by kforge. */
#define PASSWD_MARKER "root:x:0:"
#define CANARY_ENV "KFORGE_TEST_CANARY"

struct kernel_spec {
	char task[KF_NAME_MAX];
	char expect[KF_NAME_MAX];
	char reason[KF_NAME_MAX]; /* case-insensitive substring the reason must contain; "" = any */
	double limit_s;
};

static char tmpdir[PATH_MAX];
/* The latest kforge run; freed before the next one and by fini, so a failed assertion leaks nothing. */
static struct kf_cli_result result;

static void make_tmpdir(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
}

static void clean_up(void)
{
	kf_cli_result_free(&result);
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(hostile_cpu, .init = make_tmpdir, .fini = clean_up);

static int copy_value(const char *path, const char *key, const char *value, char *dst, size_t dst_len,
		      kf_err *err)
{
	if (!*value || (size_t)snprintf(dst, dst_len, "%s", value) >= dst_len)
		return kf_errf(err, KF_EINPUT, "%s:1: %s needs a value of 1 to %zu characters", path, key,
			       dst_len - 1);
	return KF_OK;
}

static int parse_token(const char *path, char *tok, struct kernel_spec *spec, kf_err *err)
{
	char *eq = strchr(tok, '=');
	if (!eq)
		return kf_errf(err, KF_EINPUT, "%s:1: '%s' is not key=value", path, tok);
	*eq = '\0';
	const char *value = eq + 1;
	if (!strcmp(tok, "task"))
		return copy_value(path, tok, value, spec->task, sizeof spec->task, err);
	if (!strcmp(tok, "expect")) {
		enum kf_verdict v;
		if (kf_verdict_parse(value, &v) != 0)
			return kf_errf(err, KF_EINPUT, "%s:1: expect: '%s' is not a verdict name", path, value);
		return copy_value(path, tok, value, spec->expect, sizeof spec->expect, err);
	}
	if (!strcmp(tok, "reason~"))
		return copy_value(path, "reason~", value, spec->reason, sizeof spec->reason, err);
	if (!strcmp(tok, "limit_s")) {
		char *end;
		spec->limit_s = strtod(value, &end);
		if (*end || !(spec->limit_s > 0 && spec->limit_s <= MAX_LIMIT_S))
			return kf_errf(err, KF_EINPUT, "%s:1: limit_s: '%s' is not a number of seconds in (0, %g]",
				       path, value, MAX_LIMIT_S);
		return KF_OK;
	}
	return kf_errf(err, KF_EINPUT, "%s:1: unknown key '%s'", path, tok);
}

/* Reads "/\* kforge-test: task=T expect=V [reason~=S] [limit_s=N] *\/" from the first line. */
static int parse_header(const char *path, const char *text, struct kernel_spec *spec, kf_err *err)
{
	memset(spec, 0, sizeof *spec);
	spec->limit_s = DEFAULT_LIMIT_S;
	size_t line_len = strcspn(text, "\n");
	size_t prefix_len = strlen(HEADER_PREFIX), suffix_len = strlen(HEADER_SUFFIX);
	if (line_len < prefix_len + suffix_len || strncmp(text, HEADER_PREFIX, prefix_len) ||
	    strncmp(text + line_len - suffix_len, HEADER_SUFFIX, suffix_len))
		return kf_errf(err, KF_EINPUT, "%s:1: the first line must be " HEADER_PREFIX "key=value ..." HEADER_SUFFIX,
			       path);
	char body[KF_ERR_MSG_MAX];
	size_t body_len = line_len - prefix_len - suffix_len;
	if (body_len >= sizeof body)
		return kf_errf(err, KF_EINPUT, "%s:1: header line too long", path);
	memcpy(body, text + prefix_len, body_len);
	body[body_len] = '\0';
	char *save = NULL;
	for (char *tok = strtok_r(body, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (parse_token(path, tok, spec, err) != KF_OK)
			return err->code;
	}
	if (!spec->task[0] || !spec->expect[0])
		return kf_errf(err, KF_EINPUT, "%s:1: the header needs task= and expect=", path);
	return KF_OK;
}

static void kernel_path(const char *name, char *out, size_t out_len)
{
	cr_assert_lt((size_t)snprintf(out, out_len, "%s/" KERNEL_DIR "/%s.c", kf_home(), name), out_len);
}

static void load_spec(const char *path, struct kernel_spec *spec)
{
	kf_err err;
	char *text = NULL;
	size_t len = 0;
	cr_assert_eq(kf_read_file(path, KERNEL_MAX_BYTES, &text, &len, &err), KF_OK, "%s", err.msg);
	int rc = parse_header(path, text, spec, &err);
	free(text);
	cr_assert_eq(rc, KF_OK, "%s", err.msg);
}

/* The first line of the host's password file, which no kforge output may ever contain. */
static void passwd_line(char *out, size_t out_len)
{
	snprintf(out, out_len, PASSWD_MARKER);
	FILE *f = fopen("/etc/passwd", "r");
	if (!f)
		return;
	if (fgets(out, (int)out_len, f))
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

static void expect_no_leak(const char *name, const char *what, const char *text, const char *canary)
{
	char passwd[256];
	passwd_line(passwd, sizeof passwd);
	cr_expect_null(strstr(text, PASSWD_MARKER), "%s: %s shows the host's /etc/passwd", name, what);
	cr_expect_null(strstr(text, passwd), "%s: %s shows the host's /etc/passwd", name, what);
	cr_expect_null(strstr(text, canary), "%s: %s shows a secret from kforge's environment", name, what);
}

static void expect_reason(const char *name, const char *where, const struct kernel_spec *spec, const char *reason)
{
	if (!spec->reason[0])
		return;
	cr_expect(reason && strcasestr(reason, spec->reason), "%s: %s reason \"%s\" does not mention \"%s\"", name,
		  where, reason ? reason : "(none)", spec->reason);
}

/* kforge ran to completion by itself: no hang, no signal, a documented exit code. */
static void expect_survived(const char *name, const char *what, const struct kf_cli_result *r, double limit_s)
{
	cr_assert_not(r->timed_out, "%s: `kforge %s` still running after %.1f s; stderr: " EXCERPT, name, what,
		      r->wall_s, r->err);
	cr_assert_eq(r->term_signal, 0, "%s: `kforge %s` died of signal %d; stderr: " EXCERPT, name, what,
		     r->term_signal, r->err);
	cr_assert(r->exit_code >= 0 && r->exit_code <= KF_EINTERNAL, "%s: `kforge %s` exit code %d; stderr: " EXCERPT,
		  name, what, r->exit_code, r->err);
	cr_expect_leq(r->wall_s, limit_s, "%s: `kforge %s` took %.1f s, over its %.0f s limit", name, what,
		      r->wall_s, limit_s);
}

static void id_string(const cJSON *id, char *out, size_t out_len)
{
	if (cJSON_IsNumber(id))
		snprintf(out, out_len, "%.0f", id->valuedouble);
	else
		snprintf(out, out_len, "%s", cJSON_IsString(id) ? id->valuestring : "");
}

static void expect_recorded(const char *name, const struct kernel_spec *spec, const char *db, const char *id,
			    const char *canary)
{
	const char *args[] = { "show", id, "--db", db, "--json", NULL };
	struct kf_cli_result *r = &result;
	kf_err err;
	kf_cli_result_free(r);
	cr_assert_eq(kf_cli_run(args, NULL, SHOW_TIMEOUT_S, r, &err), KF_OK, "%s", err.msg);
	expect_survived(name, "show", r, SHOW_TIMEOUT_S);
	cr_assert_eq(r->exit_code, 0, "%s: `kforge show %s` exit %d; stderr: " EXCERPT, name, id, r->exit_code, r->err);
	expect_no_leak(name, "`kforge show`", r->out, canary);
	cr_assert(cJSON_IsObject(r->json), "%s: `kforge show --json` printed no JSON object: " EXCERPT, name, r->out);
	const cJSON *evals = cJSON_GetObjectItemCaseSensitive(r->json, "evaluations");
	cr_assert(cJSON_IsArray(evals) && cJSON_GetArraySize(evals) > 0,
		  "%s: submission %s has no evaluations recorded", name, id);
	const cJSON *last = cJSON_GetArrayItem(evals, cJSON_GetArraySize(evals) - 1);
	const char *verdict = kf_cli_json_str(last, "verdict");
	cr_expect(verdict && !strcmp(verdict, spec->expect), "%s: recorded verdict %s, expected %s", name,
		  verdict ? verdict : "(none)", spec->expect);
	expect_reason(name, "recorded", spec, kf_cli_json_str(last, "reason"));
}

static void judge_kernel(const char *name)
{
	char path[PATH_MAX], db[PATH_MAX], canary[128], canary_env[160];
	struct kernel_spec spec;
	kernel_path(name, path, sizeof path);
	load_spec(path, &spec);
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	snprintf(canary, sizeof canary, "kforge-canary-%ld-%ld", (long)getpid(), (long)time(NULL));
	snprintf(canary_env, sizeof canary_env, CANARY_ENV "=%s", canary);

	const char *args[] = { "submit", "--task", spec.task, "--backend", "cpu", "--db", db, "--json", path, NULL };
	const char *env[] = { canary_env, NULL };
	struct kf_cli_result *r = &result;
	kf_err err;
	kf_cli_result_free(r);
	cr_assert_eq(kf_cli_run(args, env, spec.limit_s + OVERRUN_MARGIN_S, r, &err), KF_OK, "%s", err.msg);
	expect_survived(name, "submit", r, spec.limit_s);
	expect_no_leak(name, "`kforge submit` stdout", r->out, canary);
	expect_no_leak(name, "`kforge submit` stderr", r->err, canary);
	cr_assert(cJSON_IsObject(r->json), "%s: stdout is not one JSON object (exit %d): " EXCERPT "; stderr: " EXCERPT,
		  name, r->exit_code, r->out, r->err);

	const char *verdict = kf_cli_json_str(r->json, "verdict");
	const char *reason = kf_cli_json_str(r->json, "reason");
	cr_expect(verdict && !strcmp(verdict, spec.expect), "%s: verdict %s (reason: %s), expected %s", name,
		  verdict ? verdict : "(none)", reason ? reason : "(none)", spec.expect);
	expect_reason(name, "reported", &spec, reason);
	const char *task = kf_cli_json_str(r->json, "task");
	cr_expect(task && !strcmp(task, spec.task), "%s: task %s, expected %s", name, task ? task : "(none)",
		  spec.task);
	int want_exit = strcmp(spec.expect, "ok") ? KF_EREJECT : KF_OK;
	cr_expect_eq(r->exit_code, want_exit, "%s: exit code %d, expected %d", name, r->exit_code, want_exit);

	char id[64];
	id_string(cJSON_GetObjectItemCaseSensitive(r->json, "submission_id"), id, sizeof id);
	cr_assert(id[0], "%s: no submission_id in " EXCERPT, name, r->out);
	expect_recorded(name, &spec, db, id, canary);
}

#define HOSTILE_TEST(name)                                                                                   \
	Test(hostile_cpu, name, .timeout = TEST_TIMEOUT_S)                                                   \
	{                                                                                                    \
		judge_kernel(#name);                                                                         \
	}
HOSTILE_KERNELS(HOSTILE_TEST)

#define HOSTILE_NAME(name) #name,
static const char *const listed[] = { HOSTILE_KERNELS(HOSTILE_NAME) };
#define N_LISTED (sizeof listed / sizeof listed[0])

static bool is_listed(const char *file)
{
	size_t len = strlen(file);
	for (size_t i = 0; i < N_LISTED; i++) {
		if (strlen(listed[i]) + 2 == len && !strncmp(file, listed[i], len - 2))
			return true;
	}
	return false;
}

Test(hostile_cpu, every_kernel_file_has_a_test_and_a_well_formed_header)
{
	char dir[PATH_MAX];
	cr_assert_lt((size_t)snprintf(dir, sizeof dir, "%s/" KERNEL_DIR, kf_home()), sizeof dir);
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "cannot open %s", dir);
	size_t n_files = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
			continue;
		n_files++;
		cr_expect(is_listed(e->d_name), "%s/%s has no entry in HOSTILE_KERNELS", dir, e->d_name);
	}
	closedir(d);
	cr_expect_eq(n_files, N_LISTED, "%zu kernel files, %zu listed", n_files, N_LISTED);
	for (size_t i = 0; i < N_LISTED; i++) {
		char path[PATH_MAX];
		struct kernel_spec spec;
		kernel_path(listed[i], path, sizeof path);
		load_spec(path, &spec);
	}
}

Test(hostile_cpu, header_parser_rejects_what_it_cannot_check)
{
	static const char *const bad[] = {
		"/* kforge-test: task=vector_add */\n",
		"/* kforge-test: expect=ok */\n",
		"/* kforge-test: task=vector_add expect=passed */\n",
		"/* kforge-test: task=vector_add expect=ok colour=red */\n",
		"/* kforge-test: task=vector_add expect=ok limit_s=forever */\n",
		"/* kforge-test: task=vector_add expect=ok reason~= */\n",
		"/* kforge-tests: task=vector_add expect=ok */\n",
		"// kforge-test: task=vector_add expect=ok\n",
	};
	struct kernel_spec spec;
	kf_err err;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_neq(parse_header("t.c", bad[i], &spec, &err), KF_OK, "accepted: %s", bad[i]);
	cr_assert_eq(parse_header("t.c", "/* kforge-test: task=softmax_rows expect=crash reason~=out limit_s=90 */\n",
				  &spec, &err),
		     KF_OK, "%s", err.msg);
	cr_expect_str_eq(spec.task, "softmax_rows");
	cr_expect_str_eq(spec.expect, "crash");
	cr_expect_str_eq(spec.reason, "out");
	cr_expect_float_eq(spec.limit_s, 90.0, 1e-9);
}
