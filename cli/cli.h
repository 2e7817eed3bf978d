/* Command-line plumbing shared by the subcommands: the one option parser (getopt_long: --flag VALUE,
 * --flag=VALUE, unambiguous abbreviations, short options -x VALUE and -xVALUE, -- ends options), the
 * database path rule, and exit codes. main.c only parses the top-level options and the subcommand
 * name and dispatches. */
#ifndef KF_CLI_H
#define KF_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <cJSON.h>

#include "common/err.h"
#include "eval/tasks/task.h"

/* Exit codes (STYLE.md, README "Exit codes", kforge(1) EXIT STATUS): 0 ok, 1 candidate rejected / task
 * failed, 2 usage or input (a bad option, file, database or task), 3 internal (kforge's own fault). */
#define KF_EXIT_OK 0
#define KF_EXIT_REJECTED 1
#define KF_EXIT_USAGE 2
#define KF_EXIT_INTERNAL 3

#define KF_CLI_MAX_POSITIONAL 8

enum kf_cli_arg {
	KF_CLI_SWITCH, /* --name: sets *flag */
	KF_CLI_VALUE,  /* --name VALUE: *value (the last one given wins) */
	KF_CLI_LIST,   /* --name VALUE, repeatable: add() is called for each, in order */
};

/* One option of a subcommand; a table ends with an entry whose name is NULL. */
struct kf_cli_opt {
	const char *name; /* long name, without the leading dashes */
	int short_name;   /* the one-letter form (-x), or 0 */
	enum kf_cli_arg arg;
	const char **value;
	bool *flag;
	int (*add)(void *ctx, const char *value, kf_err *err);
	void *ctx;
};

/* `--suite DIR` for every command that takes tasks: an entry of its option table, and its help line. */
#define KF_SUITE_OPT { .name = "suite", .arg = KF_CLI_VALUE, .value = kf_tasks_suite_slot() }
#define KF_SUITE_OPT_HELP \
	"  --suite DIR         the task suite (a folder of levelN/ folders) instead of $KFORGE_TASKS or tasks/\n"

/* The one parser, getopt_long underneath: parses argv (after the subcommand) against opts; positional
 * arguments land in pos, in order (at most max_pos). -h and --help set *help. Errors are KF_EINPUT
 * naming the option: unknown, ambiguous (with the candidates), missing its value, or given a value
 * it does not take. */
int kf_cli_parse_opts(int argc, char **argv, const struct kf_cli_opt *opts, const char **pos, int max_pos,
		      int *n_pos, bool *help, kf_err *err);

/* The older table form (long options only), kept for callers that build their tables positionally. */
struct kf_opt {
	const char *name;  /* without the leading dashes */
	bool takes_value;
	const char **value; /* where a value goes (takes_value) */
	bool *flag;         /* where a switch goes (!takes_value) */
};
/* kf_cli_parse_opts over a kf_opt table. */
int kf_cli_parse(int argc, char **argv, const struct kf_opt *opts, const char **pos, int max_pos, int *n_pos,
		 bool *help, kf_err *err);
/* --db, else $KFORGE_DB, else kforge.db in the working directory. */
const char *kf_cli_db_path(const char *flag);
struct kf_store;
/* Opens the database at path; with must_exist, a missing file is KF_EINPUT ("no database at ...")
 * rather than a new empty database (commands that only read never create one). */
int kf_cli_open_db(const char *path, bool must_exist, struct kf_store **out, kf_err *err);
/* Prints "kforge: <msg>" on stderr and returns the exit code for err. */
int kf_cli_fail(const kf_err *err);
/* Prints a JSON object on stdout followed by a newline. */
void kf_cli_print_json(const cJSON *j);

int kf_cmd_tasks(int argc, char **argv);
int kf_cmd_submit(int argc, char **argv);
int kf_cmd_show(int argc, char **argv);
int kf_cmd_run(int argc, char **argv);
int kf_cmd_leaderboard(int argc, char **argv);
int kf_cmd_export(int argc, char **argv);
int kf_cmd_rank(int argc, char **argv);

#endif
