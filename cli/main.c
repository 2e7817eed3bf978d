/* kforge's entry point: parses the subcommand and dispatches. Nothing else lives here. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/version.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "tasks", kf_cmd_tasks, "list the task suite (and check that every task is well posed)" },
	{ "submit", kf_cmd_submit, "judge one kernel file: verdict, time, speedup, speed-of-light fraction" },
	{ "show", kf_cmd_show, "show a recorded submission and its evaluations" },
	{ "run", kf_cmd_run, "ask an LLM for kernels for a task suite: sample, judge, refine, resumable" },
	{ "leaderboard", kf_cmd_leaderboard, "fast_p, SOL and pass@k tables per source and task (csv, json, md, html)" },
	{ "export", kf_cmd_export, "write a run's selected kernels and a JSON Lines record of every candidate" },
	{ "rank", kf_cmd_rank, "rank a run's candidates: weak verifiers, label-model P(correct), then SOL fraction" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kforge <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'kforge <command> --help' describes a command's options.\n"
		   "Exit codes: 0 ok, 1 candidate rejected, 2 usage or input error, 3 internal error.\n");
}

int main(int argc, char **argv)
{
	/* A runner (any candidate) that dies leaves a broken pipe; writing to it must fail with
	 * EPIPE, which the judge turns into that candidate's verdict, never end kforge. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return KF_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return KF_EXIT_OK;
	}
	if (!strcmp(cmd, "--version")) {
		printf("kforge %s\n", KF_VERSION_STRING);
		return KF_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 2, argv + 2);
	fprintf(stderr, "kforge: unknown command '%s' (see kforge --help)\n", cmd);
	return KF_EXIT_USAGE;
}
