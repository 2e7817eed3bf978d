/* Judges kernels of a test corpus through `kforge submit` for the corpus suites (see corpus.h):
 * header parsing, the submit and `show` checks, and the leak checks (the host's password file and
 * a canary planted in kforge's environment must never appear in anything kforge prints). */
#include "tests/support/corpus.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/fs.h"
#include "sandbox/verdict.h"

#define KERNEL_MAX_BYTES (64 * 1024)
#define HEADER_PREFIX "/* kforge-test: "
#define HEADER_SUFFIX " */"
#define SHOW_TIMEOUT_S 30.0
/* The eight fixed words (submit included), --call-timeout S, the file, the terminating NULL. */
#define SUBMIT_MAX_ARGS 12
#define EXCERPT "%.400s"
/* speedup is printed from the same two medians it is computed from. */
#define SPEEDUP_REL_TOL 1e-9
/* Written by every real /etc/passwd; never by kforge. */
#define PASSWD_MARKER "root:x:0:"
#define CANARY_ENV "KFORGE_TEST_CANARY"
/* Created by the NVIDIA kernel driver; absent on a machine without an NVIDIA GPU. */
#define GPU_CONTROL_NODE "/dev/nvidiactl"
/* What the cuda backend needs beside the kforge binary (built only where nvcc is). */
static const char *const cuda_artifacts[] = { "kforge-runner-cuda", "libkforge-cuda.so" };

void kf_corpus_run_init(struct kf_corpus_run *run)
{
	kf_err err;
	memset(run, 0, sizeof *run);
	cr_assert_eq(kf_cli_tmpdir(run->tmpdir, &err), KF_OK, "%s", err.msg);
	cr_assert_lt((size_t)snprintf(run->db, sizeof run->db, "%s/kforge.db", run->tmpdir), sizeof run->db);
}

void kf_corpus_run_free(struct kf_corpus_run *run)
{
	kf_cli_result_free(&run->submit);
	kf_cli_result_free(&run->show);
	if (run->tmpdir[0])
		kf_rm_rf(run->tmpdir);
	run->tmpdir[0] = '\0';
}

/* ---- the header line ---- */

static int copy_value(const char *path, const char *key, const char *value, char *dst, size_t dst_len,
		      kf_err *err)
{
	if (!*value || (size_t)snprintf(dst, dst_len, "%s", value) >= dst_len)
		return kf_errf(err, KF_EINPUT, "%s:1: %s needs a value of 1 to %zu characters", path, key,
			       dst_len - 1);
	return KF_OK;
}

static int parse_token(const char *path, char *tok, struct kf_corpus_spec *spec, kf_err *err)
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
		if (*end || !(spec->limit_s > 0 && spec->limit_s <= KF_CORPUS_MAX_LIMIT_S))
			return kf_errf(err, KF_EINPUT, "%s:1: limit_s: '%s' is not a number of seconds in (0, %g]",
				       path, value, KF_CORPUS_MAX_LIMIT_S);
		return KF_OK;
	}
	return kf_errf(err, KF_EINPUT, "%s:1: unknown key '%s'", path, tok);
}

int kf_corpus_parse_header(const char *path, const char *text, struct kf_corpus_spec *spec, kf_err *err)
{
	memset(spec, 0, sizeof *spec);
	spec->limit_s = KF_CORPUS_DEFAULT_LIMIT_S;
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

void kf_corpus_path(const struct kf_corpus *c, const char *name, char *out, size_t out_len)
{
	cr_assert_lt((size_t)snprintf(out, out_len, "%s/%s/%s%s", kf_home(), c->dir, name, c->ext), out_len);
}

void kf_corpus_load_spec(const struct kf_corpus *c, const char *name, struct kf_corpus_spec *spec)
{
	char path[PATH_MAX];
	kf_err err;
	char *text = NULL;
	size_t len = 0;
	kf_corpus_path(c, name, path, sizeof path);
	cr_assert_eq(kf_read_file(path, KERNEL_MAX_BYTES, &text, &len, &err), KF_OK, "%s", err.msg);
	int rc = kf_corpus_parse_header(path, text, spec, &err);
	free(text);
	cr_assert_eq(rc, KF_OK, "%s", err.msg);
}

/* ---- the checks ---- */

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

static void expect_reason(const char *name, const char *where, const struct kf_corpus_spec *spec,
			  const char *reason)
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

/* The newest evaluation in a `kforge show --json` object, or NULL. */
static const cJSON *last_evaluation(const cJSON *shown)
{
	const cJSON *evals = cJSON_GetObjectItemCaseSensitive(shown, "evaluations");
	if (!cJSON_IsArray(evals) || cJSON_GetArraySize(evals) == 0)
		return NULL;
	return cJSON_GetArrayItem(evals, cJSON_GetArraySize(evals) - 1);
}

const cJSON *kf_corpus_recorded_evaluation(const struct kf_corpus_run *run)
{
	const cJSON *last = last_evaluation(run->show.json);
	cr_assert_not_null(last, "`kforge show --json` lists no evaluation: " EXCERPT,
			   run->show.out ? run->show.out : "");
	return last;
}

static void expect_recorded(struct kf_corpus_run *run, const char *name, const struct kf_corpus_spec *spec,
			    const char *id, const char *canary)
{
	const char *args[] = { "show", id, "--db", run->db, "--json", NULL };
	struct kf_cli_result *r = &run->show;
	kf_err err;
	kf_cli_result_free(r);
	cr_assert_eq(kf_cli_run(args, NULL, SHOW_TIMEOUT_S, r, &err), KF_OK, "%s", err.msg);
	expect_survived(name, "show", r, SHOW_TIMEOUT_S);
	cr_assert_eq(r->exit_code, 0, "%s: `kforge show %s` exit %d; stderr: " EXCERPT, name, id, r->exit_code, r->err);
	expect_no_leak(name, "`kforge show`", r->out, canary);
	cr_assert(cJSON_IsObject(r->json), "%s: `kforge show --json` printed no JSON object: " EXCERPT, name, r->out);
	const cJSON *last = last_evaluation(r->json);
	cr_assert_not_null(last, "%s: submission %s has no evaluations recorded", name, id);
	const char *verdict = kf_cli_json_str(last, "verdict");
	cr_expect(verdict && !strcmp(verdict, spec->expect), "%s: recorded verdict %s, expected %s", name,
		  verdict ? verdict : "(none)", spec->expect);
	expect_reason(name, "recorded", spec, kf_cli_json_str(last, "reason"));
}

static void expect_field(const char *name, const cJSON *json, const char *key, const char *want)
{
	const char *got = kf_cli_json_str(json, key);
	cr_expect(got && !strcmp(got, want), "%s: %s %s, expected %s", name, key, got ? got : "(none)", want);
}

void kf_corpus_judge_file(struct kf_corpus_run *run, const struct kf_corpus *c, const char *name, const char *path,
			  const struct kf_corpus_spec *spec)
{
	char canary[128], canary_env[160];
	snprintf(canary, sizeof canary, "kforge-canary-%ld-%ld", (long)getpid(), (long)time(NULL));
	snprintf(canary_env, sizeof canary_env, CANARY_ENV "=%s", canary);

	const char *args[SUBMIT_MAX_ARGS];
	size_t n = 0;
	const char *const fixed[] = { "submit", "--task", spec->task, "--backend", c->backend,
				      "--db", run->db, "--json" };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		args[n++] = fixed[i];
	if (c->call_timeout_s) {
		args[n++] = "--call-timeout";
		args[n++] = c->call_timeout_s;
	}
	args[n++] = path;
	args[n] = NULL;
	const char *env[] = { canary_env, NULL };
	struct kf_cli_result *r = &run->submit;
	kf_err err;
	kf_cli_result_free(r);
	kf_cli_result_free(&run->show);
	cr_assert_eq(kf_cli_run(args, env, spec->limit_s + KF_CORPUS_OVERRUN_MARGIN_S, r, &err), KF_OK, "%s", err.msg);
	expect_survived(name, "submit", r, spec->limit_s);
	expect_no_leak(name, "`kforge submit` stdout", r->out, canary);
	expect_no_leak(name, "`kforge submit` stderr", r->err, canary);
	cr_assert(cJSON_IsObject(r->json), "%s: stdout is not one JSON object (exit %d): " EXCERPT "; stderr: " EXCERPT,
		  name, r->exit_code, r->out, r->err);

	const char *verdict = kf_cli_json_str(r->json, "verdict");
	const char *reason = kf_cli_json_str(r->json, "reason");
	cr_expect(verdict && !strcmp(verdict, spec->expect), "%s: verdict %s (reason: %s), expected %s", name,
		  verdict ? verdict : "(none)", reason ? reason : "(none)", spec->expect);
	expect_reason(name, "reported", spec, reason);
	expect_field(name, r->json, "task", spec->task);
	expect_field(name, r->json, "backend", c->backend);
	int want_exit = strcmp(spec->expect, "ok") ? KF_EREJECT : KF_OK;
	cr_expect_eq(r->exit_code, want_exit, "%s: exit code %d, expected %d", name, r->exit_code, want_exit);

	char id[64];
	id_string(cJSON_GetObjectItemCaseSensitive(r->json, "submission_id"), id, sizeof id);
	cr_assert(id[0], "%s: no submission_id in " EXCERPT, name, r->out);
	expect_recorded(run, name, spec, id, canary);
}

void kf_corpus_judge(struct kf_corpus_run *run, const struct kf_corpus *c, const char *name)
{
	char path[PATH_MAX];
	struct kf_corpus_spec spec;
	kf_corpus_path(c, name, path, sizeof path);
	kf_corpus_load_spec(c, name, &spec);
	kf_corpus_judge_file(run, c, name, path, &spec);
}

void kf_corpus_judge_correct(struct kf_corpus_run *run, const struct kf_corpus *c, const char *task, double limit_s)
{
	struct kf_corpus_spec spec = { .limit_s = limit_s };
	cr_assert_lt((size_t)snprintf(spec.task, sizeof spec.task, "%s", task), sizeof spec.task);
	snprintf(spec.expect, sizeof spec.expect, "ok");
	char path[PATH_MAX];
	kf_corpus_path(c, task, path, sizeof path);
	kf_corpus_judge_file(run, c, task, path, &spec);
}

/* The reported number `key`, asserted present and positive, and the recorded one equal to it. */
static double timed_number(const char *name, const cJSON *reported, const cJSON *recorded, const char *key)
{
	double v = 0, stored = 0;
	cr_assert(kf_cli_json_num(reported, key, &v), "%s: %s is missing or not a number", name, key);
	cr_expect_gt(v, 0.0, "%s: %s = %g is not positive", name, key, v);
	cr_expect(kf_cli_json_num(recorded, key, &stored) && stored == v, "%s: recorded %s %g differs from reported %g",
		  name, key, stored, v);
	return v;
}

void kf_corpus_expect_timed_ok(const struct kf_corpus_run *run, const char *name, double sol_fraction_max)
{
	const cJSON *r = run->submit.json;
	const char *verdict = kf_cli_json_str(r, "verdict");
	const char *reason = kf_cli_json_str(r, "reason");
	cr_assert(verdict && !strcmp(verdict, "ok"), "%s: verdict %s, expected ok: %s", name,
		  verdict ? verdict : "(none)", reason ? reason : "(no reason)");
	const cJSON *e = kf_corpus_recorded_evaluation(run);
	double time_ms = timed_number(name, r, e, "time_ms");
	double ref_time_ms = timed_number(name, r, e, "ref_time_ms");
	double speedup = timed_number(name, r, e, "speedup");
	double sol_fraction = timed_number(name, r, e, "sol_fraction");
	cr_expect_float_eq(speedup, ref_time_ms / time_ms, SPEEDUP_REL_TOL * speedup,
			   "%s: speedup %g is not ref_time_ms / time_ms = %g / %g", name, speedup, ref_time_ms,
			   time_ms);
	cr_expect_leq(sol_fraction, sol_fraction_max, "%s: sol_fraction %g is above %g for an ok kernel", name,
		      sol_fraction, sol_fraction_max);
	double score = 0, stored_score = 0;
	cr_assert(kf_cli_json_num(r, "sol_score", &score), "%s: sol_score is missing or not a number", name);
	cr_expect(kf_cli_json_num(e, "sol_score", &stored_score) && stored_score == score,
		  "%s: recorded sol_score %g differs from reported %g", name, stored_score, score);
}

/* ---- the corpus listing ---- */

static bool is_listed(const struct kf_corpus *c, const char *file)
{
	size_t len = strlen(file), ext_len = strlen(c->ext);
	for (size_t i = 0; i < c->n_names; i++) {
		if (strlen(c->names[i]) + ext_len == len && !strncmp(file, c->names[i], len - ext_len))
			return true;
	}
	return false;
}

void kf_corpus_expect_listing_matches_dir(const struct kf_corpus *c)
{
	char dir[PATH_MAX];
	cr_assert_lt((size_t)snprintf(dir, sizeof dir, "%s/%s", kf_home(), c->dir), sizeof dir);
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "cannot open %s", dir);
	size_t n_files = 0, ext_len = strlen(c->ext);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= ext_len || strcmp(e->d_name + len - ext_len, c->ext))
			continue;
		n_files++;
		cr_expect(is_listed(c, e->d_name), "%s/%s has no entry in the suite's kernel list", dir, e->d_name);
	}
	closedir(d);
	cr_expect_eq(n_files, c->n_names, "%zu kernel files in %s, %zu listed", n_files, dir, c->n_names);
}

/* ---- the GPU gate ---- */

void kf_corpus_require_gpu(void)
{
	if (access(GPU_CONTROL_NODE, F_OK) != 0)
		cr_skip_test("no NVIDIA GPU on this machine (no " GPU_CONTROL_NODE "): GPU test skipped");
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", kf_cli_kforge_path());
	char *slash = strrchr(dir, '/');
	cr_assert_not_null(slash, "kforge's path %s has no directory", dir);
	*slash = '\0';
	for (size_t i = 0; i < sizeof cuda_artifacts / sizeof cuda_artifacts[0]; i++) {
		char path[PATH_MAX];
		cr_assert_lt((size_t)snprintf(path, sizeof path, "%s/%s", dir, cuda_artifacts[i]), sizeof path);
		if (access(path, F_OK) != 0)
			cr_skip_test("%s is missing (the cuda backend is built only where nvcc is): GPU test skipped",
				     path);
	}
}
