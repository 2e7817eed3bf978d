/* The kforge command line as a user meets it: --help for every subcommand, getopt_long conventions
 * (abbreviations, short options, --version), one-line errors with the documented exit codes for bad
 * usage, bad input files, damaged databases and malformed task specs, `kforge tasks`, the text
 * report of `submit` (the compiler's messages against the user's file, warnings, progress on a
 * terminal only), and the starter examples judged `ok` end to end with every contract field of
 * `submit --json` filled and the submission readable back through `kforge show`. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fs.h"
#include "common/version.h"
#include "db/store.h"
#include "tests/support/cli.h"

#define QUICK_TIMEOUT_S 30.0   /* anything that judges no kernel */
#define JUDGE_LIMIT_S 120.0    /* one full judgement of a correct example */
#define TEST_TIMEOUT_S 300.0
#define SOL_FRACTION_MAX 1.5   /* above 1 is possible within measurement noise; far above is a bug */
#define SPEEDUP_REL_TOL 0.01   /* speedup must be ref_time_ms / time_ms to within this */
#define EXCERPT "%.400s"
#define SPEC_MAX_BYTES (1u << 20)
#define TERMINAL_POLL_MS 50     /* how often the pseudo-terminal is read while kforge runs */
#define KFORGE_BINARY_MAX (256u << 20) /* a copy of the kforge program is read whole */

static const char *const starter_tasks[] = { "vector_add", "softmax_rows", "layernorm_bf16", "matmul_bf16" };
#define N_STARTER (sizeof starter_tasks / sizeof starter_tasks[0])

static const char correct_vector_add[] = "int kf_launch(const float *x, const float *y, float *out, int n)\n"
					 "{\n"
					 "\tfor (int i = 0; i < n; i++)\n"
					 "\t\tout[i] = x[i] + y[i];\n"
					 "\treturn 0;\n"
					 "}\n";

static char tmpdir[PATH_MAX], db[PATH_MAX], candidate[PATH_MAX];
static struct kf_cli_result result;
static cJSON *task_spec; /* the spec a test is mutating, freed by fini */

static void make_tmpdir(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	snprintf(candidate, sizeof candidate, "%s/candidate.c", tmpdir);
	cr_assert_eq(kf_write_file(candidate, correct_vector_add, strlen(correct_vector_add), &err), KF_OK, "%s",
		     err.msg);
}

static void clean_up(void)
{
	kf_cli_result_free(&result);
	cJSON_Delete(task_spec);
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(cli, .init = make_tmpdir, .fini = clean_up);

/* Runs kforge and insists it ended by itself with a documented exit code. The result stays valid
 * until the next run; the suite's fini frees the last one, so a failed assertion leaks nothing. */
static const struct kf_cli_result *run(const char *const *args, const char *const *env, double timeout_s)
{
	kf_err err;
	const char *label = args[0] ? args[0] : "";
	struct kf_cli_result *r = &result;
	kf_cli_result_free(r);
	cr_assert_eq(kf_cli_run(args, env, timeout_s, r, &err), KF_OK, "%s", err.msg);
	cr_assert_not(r->timed_out, "`kforge %s` still running after %.1f s", label, r->wall_s);
	cr_assert_eq(r->term_signal, 0, "`kforge %s` died of signal %d; stderr: " EXCERPT, label, r->term_signal,
		     r->err);
	cr_assert(r->exit_code >= 0 && r->exit_code <= KF_EINTERNAL, "`kforge %s` exit code %d; stderr: " EXCERPT,
		  label, r->exit_code, r->err);
	return r;
}

/* Exit 2 and one "kforge: " line on stderr that mentions `mention` (case-insensitive). */
static void expect_input_error(const char *const *args, const char *const *env, const char *mention)
{
	const struct kf_cli_result *r = run(args, env, QUICK_TIMEOUT_S);
	cr_expect_eq(r->exit_code, KF_EINPUT, "`kforge %s ...` exit %d, expected 2; stderr: " EXCERPT, args[0],
		     r->exit_code, r->err);
	cr_expect(kf_cli_is_one_error_line(r), "`kforge %s ...`: stderr is not one \"kforge: \" line: \"" EXCERPT "\"",
		  args[0], r->err);
	cr_expect(strcasestr(r->err, mention), "`kforge %s ...`: the error does not mention \"%s\": " EXCERPT, args[0],
		  mention, r->err);
}

static void expect_help(const char *const *args, const char *const *mentions)
{
	const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
	cr_expect_eq(r->exit_code, 0, "`kforge %s --help` exit %d; stderr: " EXCERPT, args[0], r->exit_code, r->err);
	for (const char *const *m = mentions; *m; m++)
		cr_expect(strstr(r->out, *m), "`kforge %s --help` does not mention %s: " EXCERPT, args[0], *m, r->out);
}

Test(cli, top_level_help_lists_the_subcommands)
{
	const char *args[] = { "--help", NULL };
	const char *mentions[] = { "submit", "show", "tasks", NULL };
	expect_help(args, mentions);
}

Test(cli, submit_help_lists_its_flags)
{
	const char *args[] = { "submit", "--help", NULL };
	const char *mentions[] = { "--task", "--backend", "--as", "--db", "--json", "FILE", NULL };
	expect_help(args, mentions);
}

Test(cli, show_help_lists_its_flags)
{
	const char *args[] = { "show", "--help", NULL };
	const char *mentions[] = { "ID", "--db", "--json", NULL };
	expect_help(args, mentions);
}

Test(cli, tasks_help_lists_its_flags)
{
	const char *args[] = { "tasks", "--help", NULL };
	const char *mentions[] = { "--db", "--json", NULL };
	expect_help(args, mentions);
}

Test(cli, rejects_an_unknown_subcommand)
{
	const char *args[] = { "frobnicate", "--db", db, NULL };
	expect_input_error(args, NULL, "frobnicate");
}

Test(cli, rejects_no_subcommand_at_all)
{
	const char *args[] = { NULL };
	const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
	cr_expect_eq(r->exit_code, KF_EINPUT, "bare `kforge` exit %d, expected 2", r->exit_code);
}

Test(cli, rejects_an_unknown_flag_on_every_subcommand)
{
	const char *submit[] = { "submit", "--frobnicate", "--task", "vector_add", "--db", db, candidate, NULL };
	const char *show[] = { "show", "--frobnicate", "1", "--db", db, NULL };
	const char *tasks[] = { "tasks", "--frobnicate", "--db", db, NULL };
	expect_input_error(submit, NULL, "--frobnicate");
	expect_input_error(show, NULL, "--frobnicate");
	expect_input_error(tasks, NULL, "--frobnicate");
}

Test(cli, submit_without_a_file_is_a_usage_error)
{
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, NULL };
	expect_input_error(args, NULL, "file");
}

Test(cli, submit_without_a_task_is_a_usage_error)
{
	const char *args[] = { "submit", "--db", db, candidate, NULL };
	expect_input_error(args, NULL, "--task");
}

Test(cli, a_flag_missing_its_value_is_a_usage_error)
{
	const char *args[] = { "submit", "--db", db, candidate, "--task", NULL };
	expect_input_error(args, NULL, "--task");
}

Test(cli, submit_names_an_unknown_task)
{
	const char *args[] = { "submit", "--task", "no_such_task", "--db", db, candidate, NULL };
	expect_input_error(args, NULL, "no_such_task");
}

Test(cli, submit_names_an_unknown_backend)
{
	const char *args[] = { "submit", "--task", "vector_add", "--backend", "tpu", "--db", db, candidate, NULL };
	expect_input_error(args, NULL, "tpu");
}

Test(cli, submit_names_a_file_that_does_not_exist)
{
	char missing[PATH_MAX];
	snprintf(missing, sizeof missing, "%s/no_such_kernel.c", tmpdir);
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, missing, NULL };
	expect_input_error(args, NULL, "no_such_kernel.c");
}

Test(cli, submit_names_a_directory_given_as_the_file)
{
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, tmpdir, NULL };
	expect_input_error(args, NULL, strrchr(tmpdir, '/') + 1);
}

/* An empty kforge database at db (commands that only read never create one). */
static void create_db(void)
{
	struct kf_store *s;
	kf_err err;
	cr_assert_eq(kf_store_open(db, &s, &err), KF_OK, "%s", err.msg);
	kf_store_close(s);
}

Test(cli, show_of_an_unknown_id_is_an_input_error)
{
	create_db();
	const char *args[] = { "show", "424242", "--db", db, NULL };
	expect_input_error(args, NULL, "424242");
}

Test(cli, show_of_an_id_that_is_not_a_number_is_an_input_error)
{
	const char *args[] = { "show", "twelve", "--db", db, NULL };
	expect_input_error(args, NULL, "twelve");
}

Test(cli, show_without_an_id_is_a_usage_error)
{
	const char *args[] = { "show", "--db", db, NULL };
	expect_input_error(args, NULL, "id");
}

Test(cli, show_of_a_run_with_no_evaluated_candidate_is_an_input_error)
{
	create_db();
	const char *args[] = { "show", "--run", "424242", "--db", db, NULL };
	expect_input_error(args, NULL, "424242");
}

Test(cli, show_run_takes_no_submission_id_beside_it)
{
	const char *args[] = { "show", "3", "--run", "1", "--db", db, NULL };
	expect_input_error(args, NULL, "--run");
}

/* ---- task specs ---- */

/* Loads the real vector_add spec into task_spec, renamed to "x" so it can stand as level1/x.json. */
static void load_renamed_vector_add_spec(void)
{
	char path[PATH_MAX], *text = NULL;
	size_t len = 0;
	kf_err err;
	snprintf(path, sizeof path, "%s/tasks/level1/vector_add.json", kf_home());
	cr_assert_eq(kf_read_file(path, SPEC_MAX_BYTES, &text, &len, &err), KF_OK, "%s", err.msg);
	task_spec = cJSON_Parse(text);
	free(text);
	cr_assert(cJSON_IsObject(task_spec), "%s is not a JSON object", path);
	cr_assert(cJSON_ReplaceItemInObjectCaseSensitive(task_spec, "name", cJSON_CreateString("x")),
		  "%s has no \"name\" field", path);
}

/* Writes text as <tmpdir>/tasks/level1/x.json; returns the KFORGE_TASKS=... entry. */
static const char *write_task_file(const char *text)
{
	static char env_entry[PATH_MAX + 16];
	char dir[PATH_MAX], path[PATH_MAX + 16];
	kf_err err;
	snprintf(dir, sizeof dir, "%s/tasks/level1", tmpdir);
	cr_assert_eq(kf_mkdir_p(dir, &err), KF_OK, "%s", err.msg);
	snprintf(path, sizeof path, "%s/x.json", dir);
	cr_assert_eq(kf_write_file(path, text, strlen(text), &err), KF_OK, "%s", err.msg);
	snprintf(env_entry, sizeof env_entry, "KFORGE_TASKS=%s/tasks", tmpdir);
	return env_entry;
}

static const char *write_task_spec(void)
{
	char *text = cJSON_Print(task_spec);
	const char *env_entry = write_task_file(text);
	cJSON_free(text);
	return env_entry;
}

/* `tasks --json` prints an array of tasks, or an object holding one under "tasks". */
static const cJSON *task_array(const cJSON *json)
{
	if (cJSON_IsArray(json))
		return json;
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(json, "tasks");
	return cJSON_IsArray(tasks) ? tasks : NULL;
}

static bool lists_task(const cJSON *tasks, const char *name)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks)
	{
		const char *got = kf_cli_json_str(t, "name");
		if (got && !strcmp(got, name))
			return true;
	}
	return false;
}

Test(cli, tasks_accepts_a_valid_spec_copied_to_another_suite)
{
	load_renamed_vector_add_spec();
	const char *env[] = { write_task_spec(), NULL };
	const char *args[] = { "tasks", "--json", "--db", db, NULL };
	const struct kf_cli_result *r = run(args, env, QUICK_TIMEOUT_S);
	cr_assert_eq(r->exit_code, 0, "a valid copied spec was rejected: " EXCERPT, r->err);
	const cJSON *tasks = task_array(r->json);
	cr_assert_not_null(tasks, "`kforge tasks --json` printed no task array: " EXCERPT, r->out);
	cr_expect(lists_task(tasks, "x"), "the copied task is not listed: " EXCERPT, r->out);
	cr_expect_not(lists_task(tasks, "softmax_rows"), "KFORGE_TASKS was ignored: " EXCERPT, r->out);
}

Test(cli, tasks_rejects_a_spec_that_is_not_json)
{
	const char *env[] = { write_task_file("{ \"name\": \"x\", \"level\": 1,\n"), NULL };
	const char *args[] = { "tasks", "--db", db, NULL };
	expect_input_error(args, env, "x.json:");
}

Test(cli, tasks_rejects_a_spec_with_an_unknown_field)
{
	load_renamed_vector_add_spec();
	cJSON_AddNumberToObject(task_spec, "bogus_field", 1);
	const char *env[] = { write_task_spec(), NULL };
	const char *args[] = { "tasks", "--db", db, NULL };
	expect_input_error(args, env, "x.json:bogus_field: ");
}

Test(cli, tasks_rejects_a_spec_with_a_missing_field)
{
	load_renamed_vector_add_spec();
	cr_assert(cJSON_HasObjectItem(task_spec, "description"), "vector_add.json has no description");
	cJSON_DeleteItemFromObjectCaseSensitive(task_spec, "description");
	const char *env[] = { write_task_spec(), NULL };
	const char *args[] = { "tasks", "--db", db, NULL };
	expect_input_error(args, env, "x.json:description: ");
}

Test(cli, tasks_json_lists_the_four_starter_tasks)
{
	const char *args[] = { "tasks", "--json", "--db", db, NULL };
	const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
	cr_assert_eq(r->exit_code, 0, "exit %d; stderr: " EXCERPT, r->exit_code, r->err);
	const cJSON *tasks = task_array(r->json);
	cr_assert_not_null(tasks, "`kforge tasks --json` printed no task array: " EXCERPT, r->out);
	for (size_t i = 0; i < N_STARTER; i++)
		cr_expect(lists_task(tasks, starter_tasks[i]), "`kforge tasks --json` does not list %s", starter_tasks[i]);
}

Test(cli, tasks_lists_the_four_starter_tasks_as_text)
{
	const char *args[] = { "tasks", "--db", db, NULL };
	const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
	cr_assert_eq(r->exit_code, 0, "exit %d; stderr: " EXCERPT, r->exit_code, r->err);
	for (size_t i = 0; i < N_STARTER; i++)
		cr_expect(strstr(r->out, starter_tasks[i]), "`kforge tasks` does not list %s", starter_tasks[i]);
}

/* ---- `tasks --check`: no task passes all zeros, a constant or a copy of an input ---- */

#define SUITE_MIN_TASKS 116
/* The check compiles and runs each task's oracle: about 0.5 s a task here, 0.75-1 s under the test
 * suite's own load; the limit grows with the suite. */
#define CHECK_S_PER_TASK 3.0
#define CHECK_TEST_TIMEOUT_S 900

Test(cli, tasks_check_finds_every_task_of_the_suite_well_posed, .timeout = CHECK_TEST_TIMEOUT_S)
{
	const char *list[] = { "tasks", "--json", NULL };
	const struct kf_cli_result *r = run(list, NULL, QUICK_TIMEOUT_S);
	int listed = cJSON_GetArraySize(r->json);
	cr_assert_geq(listed, SUITE_MIN_TASKS, "the suite lists %d tasks", listed);
	const char *args[] = { "tasks", "--check", "--db", db, NULL };
	r = run(args, NULL, CHECK_S_PER_TASK * listed);
	cr_assert_eq(r->exit_code, 0, "exit %d; stderr: " EXCERPT, r->exit_code, r->err);
	int n = 0;
	const char *summary = strstr(r->out, " tasks, all well posed");
	while (summary && summary > r->out && summary[-1] >= '0' && summary[-1] <= '9')
		summary--;
	cr_assert(summary && sscanf(summary, "%d", &n) == 1, "no \"N tasks, all well posed\" line: " EXCERPT, r->out);
	cr_expect_eq(n, listed, "%d tasks were checked of the %d listed", n, listed);
}

/* Replaces input `index`'s distribution of the copied vector_add spec by N(mean, std), and its
 * stress variants by none (they would name the distribution being changed). */
static void set_input_dist(int index, double mean, double std)
{
	cJSON *in = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(task_spec, "inputs"), index);
	cr_assert_not_null(in, "vector_add.json has no input %d", index);
	cJSON *dist = cJSON_CreateObject();
	cJSON_AddStringToObject(dist, "kind", "normal");
	cJSON_AddNumberToObject(dist, "mean", mean);
	cJSON_AddNumberToObject(dist, "std", std);
	cr_assert(cJSON_ReplaceItemInObjectCaseSensitive(in, "dist", dist), "input %d has no dist", index);
	cJSON_ReplaceItemInObjectCaseSensitive(task_spec, "stress", cJSON_CreateArray());
}

Test(cli, tasks_check_rejects_a_task_that_all_zeros_pass)
{
	load_renamed_vector_add_spec();
	set_input_dist(0, 0, 1e-9);
	set_input_dist(1, 0, 1e-9);
	const char *env[] = { write_task_spec(), NULL };
	const char *args[] = { "tasks", "--check", "--db", db, NULL };
	expect_input_error(args, env, "an all-zero 'out' passes");
}

Test(cli, tasks_check_rejects_a_task_that_a_constant_passes)
{
	/* out is 1000 to within 1e-3, under the rtol of 1e-5 * 1000 */
	load_renamed_vector_add_spec();
	set_input_dist(0, 1000, 1e-4);
	set_input_dist(1, 0, 1e-4);
	const char *env[] = { write_task_spec(), NULL };
	const char *args[] = { "tasks", "--check", "--db", db, NULL };
	expect_input_error(args, env, "a constant 'out' passes");
}

Test(cli, tasks_check_rejects_a_task_that_a_copy_of_an_input_passes)
{
	/* y is so small that x + y is x within the tolerance */
	load_renamed_vector_add_spec();
	set_input_dist(1, 0, 1e-9);
	const char *env[] = { write_task_spec(), NULL };
	const char *args[] = { "tasks", "--check", "--db", db, NULL };
	expect_input_error(args, env, "a copy of input 'x' passes as output 'out'");
}

/* ---- the starter examples, end to end ---- */

static double expect_number(const cJSON *json, const char *key)
{
	double v = NAN;
	cr_expect(kf_cli_json_num(json, key, &v), "\"%s\" is missing or not a number", key);
	return v;
}

static void expect_ok_result(const cJSON *json, const char *task)
{
	const char *verdict = kf_cli_json_str(json, "verdict");
	const char *reason = kf_cli_json_str(json, "reason");
	cr_assert(verdict && !strcmp(verdict, "ok"), "%s example: verdict %s (reason: %s)", task,
		  verdict ? verdict : "(none)", reason ? reason : "(none)");
	cr_expect_not_null(reason, "\"reason\" is missing or not a string");
	const char *got_task = kf_cli_json_str(json, "task");
	cr_expect(got_task && !strcmp(got_task, task), "task %s, expected %s", got_task ? got_task : "(none)", task);
	const char *backend = kf_cli_json_str(json, "backend");
	cr_expect(backend && !strcmp(backend, "cpu"), "backend %s, expected cpu", backend ? backend : "(none)");
	double time_ms = expect_number(json, "time_ms");
	double ref_time_ms = expect_number(json, "ref_time_ms");
	double speedup = expect_number(json, "speedup");
	double sol_fraction = expect_number(json, "sol_fraction");
	double max_abs_err = expect_number(json, "max_abs_err");
	cr_expect_gt(time_ms, 0.0, "time_ms %g", time_ms);
	cr_expect_gt(ref_time_ms, 0.0, "ref_time_ms %g", ref_time_ms);
	cr_expect_gt(speedup, 0.0, "speedup %g", speedup);
	cr_expect(fabs(speedup - ref_time_ms / time_ms) <= SPEEDUP_REL_TOL * speedup,
		  "speedup %g is not ref_time_ms / time_ms = %g / %g", speedup, ref_time_ms, time_ms);
	cr_expect(sol_fraction > 0.0 && sol_fraction < SOL_FRACTION_MAX, "sol_fraction %g outside (0, %g)",
		  sol_fraction, SOL_FRACTION_MAX);
	cr_expect_geq(max_abs_err, 0.0, "max_abs_err %g", max_abs_err);
}

static void expect_shown(const char *id, const char *task, const char *submitter)
{
	const char *args[] = { "show", id, "--db", db, "--json", NULL };
	const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
	cr_assert_eq(r->exit_code, 0, "`kforge show %s` exit %d; stderr: " EXCERPT, id, r->exit_code, r->err);
	cr_assert(cJSON_IsObject(r->json), "`kforge show --json` printed no JSON object: " EXCERPT, r->out);
	const char *got_task = kf_cli_json_str(r->json, "task");
	cr_expect(got_task && !strcmp(got_task, task), "show: task %s, expected %s", got_task ? got_task : "(none)",
		  task);
	const char *got_submitter = kf_cli_json_str(r->json, "submitter");
	cr_expect(got_submitter && !strcmp(got_submitter, submitter), "show: submitter %s, expected %s (--as)",
		  got_submitter ? got_submitter : "(none)", submitter);
	const cJSON *evals = cJSON_GetObjectItemCaseSensitive(r->json, "evaluations");
	cr_assert(cJSON_IsArray(evals) && cJSON_GetArraySize(evals) == 1, "show: expected one evaluation: " EXCERPT,
		  r->out);
	const char *verdict = kf_cli_json_str(cJSON_GetArrayItem(evals, 0), "verdict");
	cr_expect(verdict && !strcmp(verdict, "ok"), "show: recorded verdict %s", verdict ? verdict : "(none)");

	const char *text_args[] = { "show", id, "--db", db, NULL };
	r = run(text_args, NULL, QUICK_TIMEOUT_S);
	cr_expect_eq(r->exit_code, 0, "`kforge show %s` (text) exit %d", id, r->exit_code);
	cr_expect(strstr(r->out, "ok") && strstr(r->out, task), "`kforge show` text lacks the verdict or task: " EXCERPT,
		  r->out);
}

static void submit_example(const char *task)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/examples/cpu/%s.c", kf_home(), task);
	const char *submitter = "cli-test";
	const char *args[] = { "submit", "--task", task, "--backend", "cpu", "--as", submitter, "--db", db,
			       "--json", path, NULL };
	const struct kf_cli_result *r = run(args, NULL, JUDGE_LIMIT_S);
	cr_expect_eq(r->exit_code, 0, "%s example: exit %d; stderr: " EXCERPT, task, r->exit_code, r->err);
	cr_assert(cJSON_IsObject(r->json), "%s example: stdout is not one JSON object: " EXCERPT, task, r->out);
	expect_ok_result(r->json, task);
	double id = 0;
	cr_assert(kf_cli_json_num(r->json, "submission_id", &id) && id > 0, "submission_id missing or not positive");
	char id_text[32];
	snprintf(id_text, sizeof id_text, "%.0f", id);
	expect_shown(id_text, task, submitter);
}

Test(cli, judges_the_vector_add_example_ok, .timeout = TEST_TIMEOUT_S)
{
	submit_example("vector_add");
}

Test(cli, judges_the_softmax_rows_example_ok, .timeout = TEST_TIMEOUT_S)
{
	submit_example("softmax_rows");
}

Test(cli, judges_the_layernorm_bf16_example_ok, .timeout = TEST_TIMEOUT_S)
{
	submit_example("layernorm_bf16");
}

Test(cli, judges_the_matmul_bf16_example_ok, .timeout = TEST_TIMEOUT_S)
{
	submit_example("matmul_bf16");
}

/* ---- option conventions (getopt_long) ---- */

Test(cli, version_is_printed_by_both_spellings)
{
	const char *const spellings[] = { "--version", "-V" };
	char expected[64];
	snprintf(expected, sizeof expected, "kforge %s\n", KF_VERSION_STRING);
	for (int i = 0; i < 2; i++) {
		const char *args[] = { spellings[i], NULL };
		const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
		cr_expect_eq(r->exit_code, 0, "%s: exit %d", spellings[i], r->exit_code);
		cr_expect_str_eq(r->out, expected, "%s", spellings[i]);
	}
}

Test(cli, every_command_answers_help_and_h_alike)
{
	const char *top[] = { "--help", NULL };
	const struct kf_cli_result *r = run(top, NULL, QUICK_TIMEOUT_S);
	char *listing = kf_xstrdup(r->out);
	const char *const commands[] = { "tasks", "submit", "show", "run", "leaderboard", "export", "rank" };
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		char usage[64];
		snprintf(usage, sizeof usage, "usage: kforge %s", commands[i]);
		cr_expect(strstr(listing, commands[i]), "kforge --help does not list %s", commands[i]);
		const char *long_form[] = { commands[i], "--help", NULL };
		r = run(long_form, NULL, QUICK_TIMEOUT_S);
		cr_expect_eq(r->exit_code, 0, "kforge %s --help: exit %d", commands[i], r->exit_code);
		cr_expect(!strncmp(r->out, usage, strlen(usage)), "kforge %s --help: " EXCERPT, commands[i], r->out);
		char *help = kf_xstrdup(r->out);
		const char *short_form[] = { commands[i], "-h", NULL };
		r = run(short_form, NULL, QUICK_TIMEOUT_S);
		cr_expect_eq(r->exit_code, 0);
		cr_expect_str_eq(r->out, help, "kforge %s -h differs from --help", commands[i]);
		free(help);
	}
	free(listing);
}

Test(cli, an_unambiguous_abbreviation_is_the_option)
{
	const char *args[] = { "tasks", "--js", NULL };
	const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
	cr_expect_eq(r->exit_code, 0, "stderr: " EXCERPT, r->err);
	cr_expect(cJSON_IsArray(r->json), "--js is --json: " EXCERPT, r->out);
}

Test(cli, an_ambiguous_abbreviation_names_the_candidates)
{
	const char *args[] = { "rank", "all", "--llm", "x", "--db", db, NULL };
	expect_input_error(args, NULL, "ambiguous");
	cr_expect(strstr(result.err, "--llm-judge") && strstr(result.err, "--llm-base-url"), EXCERPT, result.err);
}

Test(cli, short_options_take_their_values_attached_or_apart)
{
	const char *apart[] = { "submit", "-t", "no_such_task", "--db", db, candidate, NULL };
	expect_input_error(apart, NULL, "no_such_task");
	const char *attached[] = { "submit", "-tno_such_task", "-b", "cpu", "--db", db, candidate, NULL };
	expect_input_error(attached, NULL, "no_such_task");
	const char *json[] = { "tasks", "-j", NULL };
	const struct kf_cli_result *r = run(json, NULL, QUICK_TIMEOUT_S);
	cr_expect(cJSON_IsArray(r->json), "-j is --json: " EXCERPT, r->out);
}

Test(cli, a_switch_given_a_value_is_a_usage_error)
{
	const char *args[] = { "tasks", "--json=yes", NULL };
	expect_input_error(args, NULL, "takes no value");
}

Test(cli, a_double_dash_ends_the_options)
{
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, "--", "--json", NULL };
	expect_input_error(args, NULL, "--json"); /* the file named --json, which does not exist */
}

/* ---- exit codes (README "Exit codes", kforge(1)) ---- */

Test(cli, help_documents_every_exit_code)
{
	const char *args[] = { "--help", NULL };
	const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
	for (int code = 0; code <= 3; code++) {
		char line[16];
		snprintf(line, sizeof line, "\n  %d  ", code);
		cr_expect(strstr(r->out, line), "kforge --help does not document exit code %d: " EXCERPT, code, r->out);
	}
}

Test(cli, a_source_with_a_nul_byte_is_an_input_error)
{
	static const char text[] = "int kf_launch(const float *x, const float *y, float *out, int n)\n{ return 0; }\n";
	char path[PATH_MAX + 16];
	kf_err err;
	snprintf(path, sizeof path, "%s/nul.c", tmpdir);
	cr_assert_eq(kf_write_file(path, text, sizeof text, &err), KF_OK, "%s", err.msg); /* with its NUL */
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, path, NULL };
	expect_input_error(args, NULL, "NUL byte");
}

Test(cli, a_damaged_database_is_an_input_error)
{
	create_db();
	cr_assert_eq(truncate(db, 4096 + 100), 0, "truncating %s", db);
	const char *args[] = { "show", "1", "--db", db, NULL };
	expect_input_error(args, NULL, db);
	char junk[PATH_MAX + 16];
	kf_err err;
	snprintf(junk, sizeof junk, "%s/junk.db", tmpdir);
	cr_assert_eq(kf_write_file(junk, "random bytes, not SQLite\n", 25, &err), KF_OK, "%s", err.msg);
	const char *random_bytes[] = { "show", "1", "--db", junk, NULL };
	expect_input_error(random_bytes, NULL, "not a SQLite database");
}

Test(cli, show_never_creates_a_database)
{
	const char *args[] = { "show", "1", "--db", db, NULL };
	expect_input_error(args, NULL, "no database");
	cr_expect_neq(access(db, F_OK), 0, "kforge show created %s", db);
	const char *run_args[] = { "show", "--run", "1", "--db", db, NULL };
	expect_input_error(run_args, NULL, "no database");
	cr_expect_neq(access(db, F_OK), 0, "kforge show --run created %s", db);
}

Test(cli, a_backend_that_cannot_run_here_records_no_submission, .timeout = TEST_TIMEOUT_S)
{
	const char *args[] = { "submit", "--task", "vector_add", "--backend", "cuda", "--db", db, candidate, NULL };
	const struct kf_cli_result *r = run(args, NULL, JUDGE_LIMIT_S);
	if (r->exit_code != KF_EINPUT)
		cr_skip_test("the cuda backend runs on this machine (exit %d)", r->exit_code);
	cr_expect(kf_cli_is_one_error_line(r), EXCERPT, r->err);
	const char *show[] = { "show", "1", "--db", db, NULL };
	expect_input_error(show, NULL, "no submission with id 1");
}

/* ---- the text report of submit ---- */

static const char syntax_error[] = "int kf_launch(const float *x, const float *y, float *out, int n)\n"
				   "{\n"
				   "\tfor (int i = 0; i < n; i++)\n"
				   "\t\tout[i] = x[i] + y[i]\n"
				   "\treturn 0;\n"
				   "}\n";

static void write_kernel(const char *name, const char *text, char path[PATH_MAX + 64])
{
	kf_err err;
	snprintf(path, PATH_MAX + 64, "%s/%s", tmpdir, name);
	cr_assert_eq(kf_write_file(path, text, strlen(text), &err), KF_OK, "%s", err.msg);
}

Test(cli, a_compile_error_names_the_users_file_and_line, .timeout = TEST_TIMEOUT_S)
{
	char path[PATH_MAX + 64];
	write_kernel("my_kernel.c", syntax_error, path);
	/* A home that does not exist: the compile cache falls back to /tmp and the submission goes on. */
	const char *env[] = { "HOME=/nonexistent", "XDG_CACHE_HOME=", "KFORGE_CACHE=", NULL };
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, path, NULL };
	const struct kf_cli_result *r = run(args, env, JUDGE_LIMIT_S);
	cr_expect_eq(r->exit_code, KF_EREJECT, "exit %d; stderr: " EXCERPT, r->exit_code, r->err);
	cr_expect(strstr(r->out, "compile_error"), EXCERPT, r->out);
	char where[PATH_MAX + 80];
	snprintf(where, sizeof where, "%s:4:", path);
	cr_expect(strstr(r->out, where) && strstr(r->out, "error:"), "the error is not placed in %s: " EXCERPT, where,
		  r->out);
	cr_expect_null(strstr(r->out, "candidate.c"), "the jail's file name leaks: " EXCERPT, r->out);
	cr_expect_eq(r->err_len, 0, "nothing on stderr when it is not a terminal: " EXCERPT, r->err);
}

Test(cli, every_compiler_warning_is_reported_against_the_users_file, .timeout = TEST_TIMEOUT_S)
{
	static const char warns[] = "int kf_launch(const float *x, const float *y, float *out, int n)\n"
				    "{\n"
				    "\tint bits = (int)x; /* a cast from a pointer to a narrower integer */\n"
				    "\tfor (int i = 0; i < n; i++)\n"
				    "\t\tout[i] = x[i] + y[i];\n"
				    "\treturn bits & 0;\n"
				    "}\n";
	char path[PATH_MAX + 64];
	write_kernel("warns.c", warns, path);
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, path, NULL };
	const struct kf_cli_result *r = run(args, NULL, JUDGE_LIMIT_S);
	cr_expect_eq(r->exit_code, 0, "exit %d; stdout " EXCERPT "; stderr " EXCERPT, r->exit_code, r->out, r->err);
	char where[PATH_MAX + 80];
	snprintf(where, sizeof where, "%s:3:", path);
	cr_expect(strstr(r->out, where) && strstr(r->out, "warning:"), "no warning placed in %s: " EXCERPT, where,
		  r->out);
}

/* Reads what the terminal holds now (master is non-blocking). */
static void drain(int master, kf_buf *out)
{
	char chunk[4096];
	ssize_t n;
	while ((n = read(master, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			kf_buf_add(out, chunk, (size_t)n);
}

/* Runs kforge with its stderr on a pseudo-terminal; returns what the terminal showed. The test keeps
 * the terminal's other end open too, so reading it never ends early (EIO) while kforge still runs. */
static char *run_on_a_terminal(const char *const *args)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	cr_assert_geq(master, 0, "posix_openpt");
	cr_assert(grantpt(master) == 0 && unlockpt(master) == 0, "setting up the pseudo-terminal");
	const char *slave_name = ptsname(master);
	cr_assert_not_null(slave_name);
	int slave = open(slave_name, O_RDWR | O_NOCTTY);
	cr_assert_geq(slave, 0, "opening %s", slave_name);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(slave, STDERR_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(127);
		const char *argv[16] = { kf_cli_kforge_path() };
		for (int i = 0; args[i] && i < 14; i++)
			argv[i + 1] = args[i];
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	kf_buf out = KF_BUF_INIT;
	int status = 0;
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		poll(&p, 1, TERMINAL_POLL_MS);
		drain(master, &out);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	drain(master, &out);
	close(slave);
	close(master);
	cr_expect(WIFEXITED(status), "kforge did not exit by itself");
	return out.data ? kf_buf_detach(&out) : kf_xstrdup("");
}

Test(cli, submit_shows_its_stages_on_a_terminal, .timeout = TEST_TIMEOUT_S)
{
	char path[PATH_MAX + 64];
	write_kernel("my_kernel.c", syntax_error, path);
	const char *args[] = { "submit", "--task", "vector_add", "--db", db, path, NULL };
	char *shown = run_on_a_terminal(args);
	size_t len = strlen(shown);
	const char *tail = shown + (len > 400 ? len - 400 : 0);
	/* Stages shorter than the display's tick may never be drawn (a cached compile): any stage will do. */
	const char *const stages[] = { "loading the task", "measuring the machine", "compiling", "recording" };
	bool staged = false;
	for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
		char line[64];
		snprintf(line, sizeof line, "\r\033[Kkforge: %s... ", stages[i]);
		staged = staged || strstr(shown, line);
	}
	cr_expect(staged, "no progress line: ...\"%s\"", tail);
	cr_expect(strstr(shown, " s\r"), "no elapsed time: ...\"%s\"", tail);
	cr_expect(len >= 4 && !strcmp(shown + len - 4, "\r\033[K"), "the line is not cleared at the end: ...\"%s\"",
		  tail);
	free(shown);
}

/* Every option a command's --help describes is in its usage lines too (the long name, or the short
 * form the usage shows), so the first lines of --help are the whole synopsis. */
Test(cli, every_usage_line_shows_every_option)
{
	const char *const commands[] = { "tasks", "submit", "show", "leaderboard", "export", "rank" };
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		const char *args[] = { commands[i], "--help", NULL };
		const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
		const char *blank = strstr(r->out, "\n\n");
		cr_assert_not_null(blank, "kforge %s --help has no usage paragraph", commands[i]);
		char *usage = kf_xstrdup(r->out);
		usage[blank - r->out] = '\0';
		for (const char *line = r->out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
			char shorts[3] = "", name[64];
			const char *o = line;
			if (!strncmp(o, "  -", 3) && o[3] != '-' && !strncmp(o + 4, ", --", 4)) {
				snprintf(shorts, sizeof shorts, "%.2s", o + 2);
				o += 6;
			} else if (!strncmp(o, "  --", 4)) {
				o += 2;
			} else {
				continue;
			}
			snprintf(name, sizeof name, "%.*s", (int)strcspn(o, " =\n"), o);
			if (!strcmp(name, "--help"))
				continue;
			cr_expect(strstr(usage, name) || (shorts[0] && strstr(usage, shorts)),
				  "the usage of kforge %s omits %s: %s", commands[i], name, usage);
		}
		free(usage);
	}
}

Test(cli, help_documents_the_environment)
{
	const char *args[] = { "--help", NULL };
	const struct kf_cli_result *r = run(args, NULL, QUICK_TIMEOUT_S);
	const char *const vars[] = { "KFORGE_DB", "KFORGE_HOME", "KFORGE_TASKS", "KFORGE_PROMPTS", "KFORGE_CACHE",
				     "KFORGE_CC" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		cr_expect(strstr(r->out, vars[i]), "kforge --help does not document %s", vars[i]);
}

Test(cli, kforges_own_fault_is_exit_3, .timeout = TEST_TIMEOUT_S)
{
	/* A kforge copied away from its runner (no build/, no ../libexec/kforge beside it). */
	char lone[PATH_MAX + 16], *binary = NULL;
	size_t len = 0;
	kf_err err;
	snprintf(lone, sizeof lone, "%s/kforge", tmpdir);
	cr_assert_eq(kf_read_file(kf_cli_kforge_path(), KFORGE_BINARY_MAX, &binary, &len, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_write_file(lone, binary, len, &err), KF_OK, "%s", err.msg);
	free(binary);
	cr_assert_eq(chmod(lone, 0755), 0);
	char command[PATH_MAX * 4];
	snprintf(command, sizeof command,
		 "KFORGE_HOME='%s' '%s' submit --task vector_add --db '%s' '%s' > /dev/null 2> '%s/err'", kf_home(), lone,
		 db, candidate, tmpdir);
	int status = system(command);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == KF_EINTERNAL, "a kforge without its runner: exit %d",
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	char errpath[PATH_MAX + 16], *msg = NULL;
	snprintf(errpath, sizeof errpath, "%s/err", tmpdir);
	cr_assert_eq(kf_read_file(errpath, SPEC_MAX_BYTES, &msg, &len, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(msg, "kforge-runner-cpu") && strstr(msg, "libexec"), "the error does not say what is missing: %s",
		  msg);
	free(msg);
}
