/* Command-line plumbing shared by the subcommands: a small option parser that accepts
 * --flag VALUE and --flag=VALUE, the database path rule, and exit codes. main.c only parses
 * the subcommand name and dispatches. */
#ifndef KF_CLI_H
#define KF_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <cJSON.h>

#include "common/err.h"

/* Exit codes (STYLE.md): 0 ok, 1 candidate rejected / task failed, 2 usage or input, 3 internal. */
#define KF_EXIT_OK 0
#define KF_EXIT_REJECTED 1
#define KF_EXIT_USAGE 2
#define KF_EXIT_INTERNAL 3

#define KF_CLI_MAX_POSITIONAL 8

struct kf_opt {
	const char *name;  /* without the leading dashes */
	bool takes_value;
	const char **value; /* where a value goes (takes_value) */
	bool *flag;         /* where a switch goes (!takes_value) */
};

/* Parses argv (after the subcommand). Positional arguments land in pos. --help sets *help. */
int kf_cli_parse(int argc, char **argv, const struct kf_opt *opts, const char **pos, int max_pos, int *n_pos,
		 bool *help, kf_err *err);
/* --db, else $KFORGE_DB, else kforge.db in the working directory. */
const char *kf_cli_db_path(const char *flag);
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
