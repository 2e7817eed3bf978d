/* kforge's entry point: the top-level options (--help, --version), then the subcommand, dispatched.
 * Nothing else lives here. */
#include <getopt.h>
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
	fprintf(f, "usage: kforge [-h | --help] [-V | --version] <command> [options]\n\n"
		   "kforge judges kernels written by people or LLMs: it compiles each candidate in a jail, runs it\n"
		   "in a seccomp sandbox against a trusted reference over many seeds and shapes, times it, places\n"
		   "it against the hardware's speed of light, and records everything in SQLite.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "options:\n"
	      "  -h, --help     print this help ('kforge <command> --help' describes a command's options)\n"
	      "  -V, --version  print kforge's version\n"
	      "\n"
	      "environment:\n"
	      "  KFORGE_DB       database of every command (default ./kforge.db; --db overrides it)\n"
	      "  KFORGE_HOME     where kforge's data is (tasks/, reference_kernels/, prompts/); default: the\n"
	      "                   share/kforge folder beside an installed kforge, else the source tree it was built in\n"
	      "  KFORGE_TASKS    the task suite (default <home>/tasks; --suite overrides it)\n"
	      "  KFORGE_PROMPTS  the prompt templates of kforge run (default <home>/prompts)\n"
	      "  KFORGE_CACHE    compile cache and calibration (default $XDG_CACHE_HOME/kforge, else\n"
	      "                   ~/.cache/kforge, else /tmp/kforge-cache-UID)\n"
	      "  KFORGE_CC       the C compiler candidates are built with (default cc)\n"
	      "\n"
	      "exit status:\n"
	      "  0  ok (the candidate passed; every task has a correct kernel)\n"
	      "  1  the candidate was rejected (any verdict but ok); kforge run: some task has no correct kernel\n"
	      "  2  usage or input error: a bad option, file, task, database or ID\n"
	      "  3  internal error: kforge's own fault (the message says what failed)\n",
	      f);
}

int main(int argc, char **argv)
{
	/* A runner (any candidate) that dies leaves a broken pipe; writing to it must fail with
	 * EPIPE, which the judge turns into that candidate's verdict, never end kforge. */
	signal(SIGPIPE, SIG_IGN);
	static const struct option top[] = { { "help", no_argument, NULL, 'h' },
					     { "version", no_argument, NULL, 'V' },
					     { NULL, 0, NULL, 0 } };
	/* "+": options end at the command's name; what follows is the command's. */
	opterr = 0;
	int c = getopt_long(argc, argv, "+:hV", top, NULL);
	if (c == 'h') {
		usage(stdout);
		return KF_EXIT_OK;
	}
	if (c == 'V') {
		printf("kforge %s\n", KF_VERSION_STRING);
		return KF_EXIT_OK;
	}
	if (c != -1) {
		fprintf(stderr, "kforge: unknown option '%s' (see kforge --help)\n", argv[optind - 1]);
		return KF_EXIT_USAGE;
	}
	if (optind >= argc) {
		usage(stderr);
		return KF_EXIT_USAGE;
	}
	const char *cmd = argv[optind];
	if (!strcmp(cmd, "help")) {
		usage(stdout);
		return KF_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - optind - 1, argv + optind + 1);
	fprintf(stderr, "kforge: unknown command '%s' (see kforge --help)\n", cmd);
	return KF_EXIT_USAGE;
}
