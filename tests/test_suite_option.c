/* `--suite DIR` on every command that takes tasks: a task that exists only in an out-of-tree suite is found,
 * judged and read back through it (and unknown without it), each command's help names the option, and the suite
 * reaches the kforge processes a command starts through $KFORGE_TASKS. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "eval/tasks/task.h"
#include "tests/support/cli.h"

#define QUICK_TIMEOUT_S 30.0
#define JUDGE_LIMIT_S 120.0
#define SPEC_MAX_BYTES (1u << 20)
#define OOT_TASK "vector_add_oot" /* vector_add under a name only the temporary suite has */

static char tmpdir[PATH_MAX], suite[PATH_MAX], db[PATH_MAX], example[PATH_MAX];
static struct kf_cli_result result;

/* tmpdir/suite/level1/vector_add_oot.json: vector_add's spec renamed; its reference and oracle paths still
 * resolve under kforge's home. */
static void make_suite(void)
{
	kf_err err;
	char path[PATH_MAX], *text = NULL;
	size_t len = 0;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
	snprintf(suite, sizeof suite, "%s/suite", tmpdir);
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	snprintf(path, sizeof path, "%s/level1", suite);
	cr_assert_eq(kf_mkdir_p(path, &err), KF_OK, "%s", err.msg);
	snprintf(path, sizeof path, "%s/tasks/level1/vector_add.json", getenv("KFORGE_HOME"));
	snprintf(example, sizeof example, "%s/examples/cpu/vector_add.c", getenv("KFORGE_HOME"));
	cr_assert_eq(kf_read_file(path, SPEC_MAX_BYTES, &text, &len, &err), KF_OK, "%s", err.msg);
	const char *from = "\"name\": \"vector_add\"";
	char *at = strstr(text, from);
	cr_assert_not_null(at, "vector_add's spec names itself as %s", from);
	char *renamed = NULL;
	cr_assert(asprintf(&renamed, "%.*s\"name\": \"" OOT_TASK "\"%s", (int)(at - text), text, at + strlen(from)) > 0);
	snprintf(path, sizeof path, "%s/level1/" OOT_TASK ".json", suite);
	cr_assert_eq(kf_write_file(path, renamed, strlen(renamed), &err), KF_OK, "%s", err.msg);
	free(renamed);
	free(text);
}

static void clean_up(void)
{
	kf_cli_result_free(&result);
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(suite_option, .init = make_suite, .fini = clean_up);

static const struct kf_cli_result *run(const char *const *args, double timeout_s)
{
	kf_err err;
	kf_cli_result_free(&result);
	cr_assert_eq(kf_cli_run(args, NULL, timeout_s, &result, &err), KF_OK, "%s", err.msg);
	cr_assert(!result.timed_out && result.exit_code >= 0, "kforge %s did not finish by itself", args[0]);
	return &result;
}

Test(suite_option, every_command_that_takes_tasks_documents_it)
{
	static const char *const commands[] = { "tasks", "submit", "show", "rank", "leaderboard", "export", "run" };
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		const struct kf_cli_result *r = run((const char *[]){ commands[i], "--help", NULL }, QUICK_TIMEOUT_S);
		cr_expect_eq(r->exit_code, 0, "kforge %s --help", commands[i]);
		cr_expect_not_null(strstr(r->out, "--suite DIR"), "kforge %s --help does not name --suite:\n%s", commands[i],
				   r->out);
	}
}

Test(suite_option, submit_judges_a_task_that_only_the_suite_has, .timeout = 300)
{
	const struct kf_cli_result *r = run((const char *[]){ "submit", "--task", OOT_TASK, "--db", db, "--json", example,
							      NULL },
					    QUICK_TIMEOUT_S);
	cr_expect_eq(r->exit_code, 2, "without --suite the task is unknown: %s", r->err);
	cr_expect_not_null(strstr(r->err, OOT_TASK), "the error names the task: %s", r->err);

	r = run((const char *[]){ "submit", "--suite", suite, "--task", OOT_TASK, "--db", db, "--json", example, NULL },
		JUDGE_LIMIT_S);
	cr_assert_eq(r->exit_code, 0, "stdout %.400s stderr %.400s", r->out, r->err);
	cr_assert_not_null(r->json, "%.400s", r->out);
	cr_expect_str_eq(kf_cli_json_str(r->json, "verdict"), "ok");
	cr_expect_str_eq(kf_cli_json_str(r->json, "task"), OOT_TASK);

	r = run((const char *[]){ "show", "--suite", suite, "--db", db, "--json", "1", NULL }, QUICK_TIMEOUT_S);
	cr_expect_eq(r->exit_code, 0, "show with --suite: %s", r->err);
	cr_expect_not_null(strstr(r->out, OOT_TASK), "%.400s", r->out);
	r = run((const char *[]){ "leaderboard", "--suite", suite, "--db", db, "--format", "csv", NULL }, QUICK_TIMEOUT_S);
	cr_expect_eq(r->exit_code, 0, "leaderboard with --suite: %s", r->err);
	cr_expect_not_null(strstr(r->out, OOT_TASK), "%.400s", r->out);
}

Test(suite_option, tasks_lists_the_suite_given_and_not_the_home_one)
{
	const struct kf_cli_result *r = run((const char *[]){ "tasks", "--suite", suite, "--json", NULL }, QUICK_TIMEOUT_S);
	cr_assert_eq(r->exit_code, 0, "%s", r->err);
	cr_assert(cJSON_IsArray(r->json), "%.400s", r->out);
	cr_expect_eq(cJSON_GetArraySize(r->json), 1, "only the suite's one task: %.400s", r->out);
	cr_expect_str_eq(kf_cli_json_str(cJSON_GetArrayItem(r->json, 0), "name"), OOT_TASK);
}

/* In process: what the option table stored is where tasks are found, and kforge's children inherit it. */
Test(suite_option, the_parsed_suite_is_the_task_directory_and_is_exported)
{
	unsetenv("KFORGE_TASKS");
	*kf_tasks_suite_slot() = suite;
	cr_expect_str_eq(kf_tasks_dir(), suite);
	cr_expect_str_eq(getenv("KFORGE_TASKS"), suite, "child processes read the suite from the environment");
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_expect_eq(kf_task_find(NULL, OOT_TASK, &t, &err), KF_OK, "%s", err.msg);
	kf_task_free(t);
	kf_tasks_set_dir(NULL);
	unsetenv("KFORGE_TASKS");
}
