/* `kforge leaderboard`: the fast_p / SOL / pass@k tables of the database in CSV, JSON, Markdown or one
 * HTML page. Parses the command line and writes the output; the tables are eval/report/leaderboard.c's, the
 * formats eval/report_*.c's. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/fs.h"
#include "db/store.h"
#include "eval/report/leaderboard.h"
#include "eval/report/report.h"
#include "eval/tasks/task.h"

#define DEFAULT_FORMAT "md"
#define LIST_SEPARATORS ","

static const char *const help_text =
	"usage: kforge leaderboard [--run ID...] [--task T...] [--backend cpu|cuda] [--device NAME] [--merge]\n"
	"                          [--format csv|json|md|html] [--table rows|summaries] [-o FILE] [--db PATH]\n"
	"\n"
	"Builds the leaderboard from the database: one row per (source, task) with the selected kernel's\n"
	"verdict, time, speedup over the reference and the vendor baseline, SOL fraction and SOL score; and\n"
	"one summary per source with fast_p, geometric-mean speedup, mean SOL fraction and score, pass@1,\n"
	"pass@k, tokens and cost. A source is the submitter of a candidate (--as NAME for kforge submit, the\n"
	"model and strategy for agent runs). Each (backend, device) is its own group and ranking.\n"
	"\n"
	"  --run ID        only candidates of agent run ID (repeat, or ID,ID,...)\n"
	"  --task T        only task T (repeat, or T,T,...)\n"
	"  --backend B     only the cpu or the cuda backend\n"
	"  --device NAME   only devices whose name contains NAME (case-insensitive)\n"
	"  --merge         pool every backend and device into one ranking (off by default)\n"
	"  --format F      csv, json, md (default) or html (one self-contained page with charts)\n"
	"  --table T       with csv: rows (default, one line per source and task) or summaries\n"
	"  -o, --output F  write to file F instead of standard output\n"
	"  --db PATH       database (default: $KFORGE_DB, else ./kforge.db)\n"
	KF_SUITE_OPT_HELP
	"\n"
	"Formulas (also in docs/leaderboard.md):\n";

static const char *const help_tail =
	"\n"
	"Exit codes: 0 ok, 2 usage or input error (also: no evaluation matches), 3 internal error.\n"
	"Example: kforge leaderboard --backend cpu --format html -o leaderboard.html\n";

static void print_help(void)
{
	fputs(help_text, stdout);
	for (int i = 0; i < KF_LB_N_FORMULAS; i++)
		printf("  %s: %s\n", kf_lb_formulas[i].name, kf_lb_formulas[i].text);
	fputs(help_tail, stdout);
}

/* --run and --task may repeat; the shared parser keeps one value per option, so they (and -o, the
 * one short option) are taken out of argv before it sees the rest. */
struct lists {
	int64_t *runs;
	int n_runs;
	char **tasks;
	int n_tasks;
	const char *output;
};

static int add_runs(struct lists *l, const char *value, kf_err *err)
{
	char *copy = kf_xstrdup(value), *save = NULL;
	int ret = KF_OK, before = l->n_runs;
	for (char *tok = strtok_r(copy, LIST_SEPARATORS, &save); tok; tok = strtok_r(NULL, LIST_SEPARATORS, &save)) {
		char *end;
		errno = 0;
		long long id = strtoll(tok, &end, 10);
		if (*end || id <= 0 || errno) {
			ret = kf_errf(err, KF_EINPUT, "--run takes run IDs (positive integers), not '%s'", tok);
			break;
		}
		l->runs = kf_xrealloc(l->runs, sizeof *l->runs * (size_t)(l->n_runs + 1));
		l->runs[l->n_runs++] = id;
	}
	if (ret == KF_OK && l->n_runs == before)
		ret = kf_errf(err, KF_EINPUT, "--run needs a run ID");
	free(copy);
	return ret;
}

static int add_tasks(struct lists *l, const char *value, kf_err *err)
{
	char *copy = kf_xstrdup(value), *save = NULL;
	int before = l->n_tasks;
	for (char *tok = strtok_r(copy, LIST_SEPARATORS, &save); tok; tok = strtok_r(NULL, LIST_SEPARATORS, &save)) {
		l->tasks = kf_xrealloc(l->tasks, sizeof *l->tasks * (size_t)(l->n_tasks + 1));
		l->tasks[l->n_tasks++] = kf_xstrdup(tok);
	}
	free(copy);
	return l->n_tasks > before ? KF_OK : kf_errf(err, KF_EINPUT, "--task needs a task name");
}

static void lists_free(struct lists *l)
{
	for (int i = 0; i < l->n_tasks; i++)
		free(l->tasks[i]);
	free(l->tasks);
	free(l->runs);
}

/* The value of option `name` at argv[*i] ("--name V" or "--name=V"), or NULL when argv[*i] is not it. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
	size_t n = strlen(name);
	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

static int take_lists(int argc, char **argv, char **rest, int *n_rest, struct lists *l, kf_err *err)
{
	*n_rest = 0;
	for (int i = 0; i < argc; i++) {
		bool missing = false;
		const char *v;
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				rest[(*n_rest)++] = argv[i++];
			break;
		}
		int ret = KF_OK;
		if ((v = option_value(argc, argv, &i, "--run", &missing)))
			ret = add_runs(l, v, err);
		else if ((v = option_value(argc, argv, &i, "--task", &missing)))
			ret = add_tasks(l, v, err);
		else if ((v = option_value(argc, argv, &i, "--output", &missing)) ||
			 (v = option_value(argc, argv, &i, "-o", &missing)))
			l->output = v;
		else if (!missing)
			rest[(*n_rest)++] = argv[i];
		if (missing)
			return kf_errf(err, KF_EINPUT, "option '%s' needs a value", argv[i]);
		if (ret != KF_OK)
			return ret;
	}
	return KF_OK;
}

struct settings {
	const char *backend, *device, *format, *table, *db;
	bool merge;
};

static int check_settings(const struct settings *st, struct kf_report_opts *ro, kf_err *err)
{
	enum kf_backend b;
	if (st->backend && kf_backend_parse(st->backend, &b) != 0)
		return kf_errf(err, KF_EINPUT, "unknown backend '%s' (cpu or cuda)", st->backend);
	if (!kf_report_find(st->format))
		return kf_errf(err, KF_EINPUT, "unknown format '%s' (" KF_REPORT_FORMATS ")", st->format);
	ro->table = KF_REPORT_ROWS;
	if (!st->table)
		return KF_OK;
	if (strcmp(st->format, "csv") != 0)
		return kf_errf(err, KF_EINPUT, "--table applies to --format csv only");
	if (!strcmp(st->table, "summaries"))
		ro->table = KF_REPORT_SUMMARIES;
	else if (strcmp(st->table, "rows") != 0)
		return kf_errf(err, KF_EINPUT, "unknown table '%s' (rows or summaries)", st->table);
	return KF_OK;
}

static int no_match(const struct lists *l, const struct settings *st, const char *db, kf_err *err)
{
	if (!l->n_runs && !l->n_tasks && !st->backend && !st->device)
		return kf_errf(err, KF_EINPUT, "the database %s holds no evaluation yet (kforge submit records one)", db);
	return kf_errf(err, KF_EINPUT, "no evaluation in %s matches the filters (--run, --task, --backend, --device)", db);
}

static int write_output(const char *path, const kf_buf *b, kf_err *err)
{
	if (path)
		return kf_write_file(path, b->data, b->len, err);
	if (fwrite(b->data, 1, b->len, stdout) != b->len || fflush(stdout) != 0)
		return kf_errno(err, KF_EINTERNAL, "writing the leaderboard to standard output");
	return KF_OK;
}

int kf_cmd_leaderboard(int argc, char **argv)
{
	struct settings st = { .format = DEFAULT_FORMAT };
	struct lists l = { 0 };
	bool help = false;
	const struct kf_opt opts[] = {
		{ "backend", true, &st.backend, NULL }, { "device", true, &st.device, NULL },
		{ "format", true, &st.format, NULL },   { "table", true, &st.table, NULL },
		{ "db", true, &st.db, NULL },           { "merge", false, NULL, &st.merge },
		KF_SUITE_OPT, { NULL, false, NULL, NULL },
	};
	const char *pos[KF_CLI_MAX_POSITIONAL];
	char **rest = kf_xmalloc(sizeof *rest * (size_t)(argc ? argc : 1));
	int n_rest = 0, n_pos = 0, rc;
	kf_err err = { 0 };
	struct kf_store *store = NULL;
	struct kf_leaderboard *lb = NULL;
	struct kf_report_opts ro;
	kf_buf out = KF_BUF_INIT;

	if (take_lists(argc, argv, rest, &n_rest, &l, &err) != KF_OK ||
	    kf_cli_parse(n_rest, rest, opts, pos, 0, &n_pos, &help, &err) != KF_OK)
		goto fail;
	if (help) {
		print_help();
		rc = KF_EXIT_OK;
		goto done;
	}
	if (check_settings(&st, &ro, &err) != KF_OK)
		goto fail;
	const char *db = kf_cli_db_path(st.db);
	struct kf_lb_query q = { l.runs, l.n_runs, (const char *const *)l.tasks, l.n_tasks, st.backend, st.device,
				 st.merge };
	if (kf_store_open(db, &store, &err) != KF_OK || kf_leaderboard_build(store, &q, &lb, &err) != KF_OK)
		goto fail;
	if (lb->n_evals == 0) {
		no_match(&l, &st, db, &err);
		goto fail;
	}
	kf_report_find(st.format)(lb, &ro, &out);
	if (write_output(l.output, &out, &err) != KF_OK)
		goto fail;
	rc = KF_EXIT_OK;
	goto done;
fail:
	rc = kf_cli_fail(&err);
done:
	kf_buf_free(&out);
	kf_leaderboard_free(lb);
	kf_store_close(store);
	lists_free(&l);
	free(rest);
	return rc;
}
