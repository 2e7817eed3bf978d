/* `kforge export RUN --out DIR`: the selected kernels of a run (or of the whole database) as source
 * files, and one JSON Lines record per evaluated candidate. The selection is the leaderboard's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "db/store.h"
#include "eval/report/leaderboard.h"
#include "eval/report/report.h"
#include "eval/tasks/task.h"

#define ALL_RUNS "all"

static const char *const help_text =
	"usage: kforge export RUN --out DIR [--db PATH]\n"
	"\n"
	"Writes what a run produced. Each selected kernel (per source, task, backend and device, chosen as\n"
	"kforge leaderboard chooses it) goes to DIR/<task>.c or DIR/<task>.cu, or to\n"
	"DIR/<source>/<device>/<task>.<ext> when two selected kernels would share a name; DIR/candidates.jsonl\n"
	"gets one JSON object per line for every evaluated candidate: submission_id, evaluation_id, run_id,\n"
	"task, source, backend, device, verdict, reason, time_ms, iqr_ms, ref_time_ms, vendor_time_ms,\n"
	"speedup, vendor_speedup, t_sol_ms, sol_fraction, sol_score, source_hash, task_hash, compile_key,\n"
	"compiler, selected, file (the kernel's path under DIR, null when not selected).\n"
	"\n"
	"  RUN         an agent run ID, or 'all' for every candidate in the database (manual ones included)\n"
	"  --out DIR   directory to write (created when missing; files of the same name are replaced)\n"
	"  --db PATH   database (default: $KFORGE_DB, else ./kforge.db)\n"
	KF_SUITE_OPT_HELP
	"\n"
	"Exit codes: 0 ok, 2 usage or input error (also: nothing recorded for RUN), 3 internal error.\n"
	"Example: kforge export 3 --out best-kernels\n";

static int parse_run(const char *s, int64_t *id, kf_err *err)
{
	char *end;
	*id = 0;
	if (!strcmp(s, ALL_RUNS))
		return KF_OK;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || v <= 0 || errno)
		return kf_errf(err, KF_EINPUT, "'%s' is not a run ID (a positive integer) or '" ALL_RUNS "'", s);
	*id = v;
	return KF_OK;
}

int kf_cmd_export(int argc, char **argv)
{
	const char *db = NULL, *dir = NULL;
	bool help = false;
	const struct kf_opt opts[] = { { "out", true, &dir, NULL }, { "db", true, &db, NULL }, KF_SUITE_OPT, { NULL, false, NULL, NULL } };
	const char *pos[KF_CLI_MAX_POSITIONAL];
	int n_pos = 0, n_files = 0, rc;
	int64_t run = 0;
	kf_err err = { 0 };
	struct kf_store *store = NULL;
	struct kf_leaderboard *lb = NULL;

	if (kf_cli_parse(argc, argv, opts, pos, 1, &n_pos, &help, &err) != KF_OK)
		goto fail;
	if (help) {
		fputs(help_text, stdout);
		return KF_EXIT_OK;
	}
	if (n_pos != 1) {
		kf_errf(&err, KF_EINPUT, "export needs one RUN (a run ID or '" ALL_RUNS "')");
		goto fail;
	}
	if (!dir || !*dir) {
		kf_errf(&err, KF_EINPUT, "export needs --out DIR");
		goto fail;
	}
	if (parse_run(pos[0], &run, &err) != KF_OK)
		goto fail;
	struct kf_lb_query q = { .run_ids = run ? &run : NULL, .n_run_ids = run ? 1 : 0 };
	if (kf_store_open(kf_cli_db_path(db), &store, &err) != KF_OK || kf_leaderboard_build(store, &q, &lb, &err) != KF_OK)
		goto fail;
	if (lb->n_evals == 0 && run) {
		kf_errf(&err, KF_EINPUT, "no evaluated candidate of run %lld in %s", (long long)run, kf_cli_db_path(db));
		goto fail;
	}
	if (lb->n_evals == 0) {
		kf_errf(&err, KF_EINPUT, "the database %s holds no evaluated candidate", kf_cli_db_path(db));
		goto fail;
	}
	if (kf_report_export(store, lb, dir, &n_files, &err) != KF_OK)
		goto fail;
	printf("exported %d selected kernel%s and %d candidate record%s to %s\n", n_files, n_files == 1 ? "" : "s",
	       lb->n_evals, lb->n_evals == 1 ? "" : "s", dir);
	rc = KF_EXIT_OK;
	goto done;
fail:
	rc = kf_cli_fail(&err);
done:
	kf_leaderboard_free(lb);
	kf_store_close(store);
	return rc;
}
