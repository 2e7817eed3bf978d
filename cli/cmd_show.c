/* `kforge show ID`: a recorded submission and its evaluations; `kforge show --run ID`: an agent run
 * as stored, every task of it included (agent/run_report.h formats it). */
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/run_report.h"
#include "cli/cli.h"
#include "db/store.h"
#include "eval/tasks/task.h"

static const char *const help_text =
	"usage: kforge show ID [--db PATH] [--json]\n"
	"       kforge show --run RUN_ID [--db PATH] [--json]\n"
	"\n"
	"Prints a recorded submission (task, backend, submitter, source hash) and every evaluation of it\n"
	"with its verdict, reason and timings. With --json, the whole record as one JSON object,\n"
	"including the source and each evaluation's full result.\n"
	"With --run, prints an agent run as stored instead: its status and stop reason, and for every task\n"
	"of the run (those with nothing judged too) the requests, failures, candidates extracted and judged,\n"
	"and the selected kernel with its verdict, time, speedup and SOL; then the requests finished, failed\n"
	"and never sent, fast_p and pass@1 over all the run's tasks, tokens, cost (\"unknown\" where no price\n"
	"is recorded) and the most frequent errors of failed requests. `kforge leaderboard --run RUN_ID`\n"
	"ranks the run's judged candidates against other sources instead.\n"
	"\n"
	"  --run RUN_ID a run's summary instead of a submission\n"
	"  --db PATH    database (default: $KFORGE_DB, else ./kforge.db)\n"
	KF_SUITE_OPT_HELP
	"  --json       print JSON\n"
	"\n"
	"Examples: kforge show 3 --json\n"
	"          kforge show --run 1\n";

static int parse_id(const char *text, const char *what, int64_t *out, kf_err *err)
{
	char *end;
	long long id = strtoll(text, &end, 10);
	if (*end || !*text || id <= 0)
		return kf_errf(err, KF_EINPUT, "'%s' is not a %s (a positive integer)", text, what);
	*out = id;
	return KF_OK;
}

/* A run's summary as stored; KF_EINPUT "no run with id N" when there is no such run. */
static int show_run(struct kf_store *store, int64_t run, bool json, kf_err *err)
{
	struct kf_agent_summary sum;
	if (kf_agent_summarize(store, run, &sum, err) != KF_OK)
		return err->code;
	if (json) {
		cJSON *j = kf_run_report_json(&sum);
		kf_cli_print_json(j);
		cJSON_Delete(j);
	} else {
		kf_run_report_table(stdout, &sum);
	}
	kf_agent_summary_free(&sum);
	return KF_OK;
}

static void print_human(const cJSON *c)
{
	printf("submission %.0f: task %s, backend %s, by %s (%s), file %s\n",
	       cJSON_GetNumberValue(cJSON_GetObjectItem(c, "submission_id")),
	       cJSON_GetStringValue(cJSON_GetObjectItem(c, "task")), cJSON_GetStringValue(cJSON_GetObjectItem(c, "backend")),
	       cJSON_GetStringValue(cJSON_GetObjectItem(c, "submitter")), cJSON_GetStringValue(cJSON_GetObjectItem(c, "origin")),
	       cJSON_IsString(cJSON_GetObjectItem(c, "file_name")) ? cJSON_GetStringValue(cJSON_GetObjectItem(c, "file_name")) : "-");
	printf("  source sha256 %s, recorded %s\n", cJSON_GetStringValue(cJSON_GetObjectItem(c, "source_hash")),
	       cJSON_GetStringValue(cJSON_GetObjectItem(c, "created_at")));
	const cJSON *evals = cJSON_GetObjectItem(c, "evaluations");
	if (cJSON_GetArraySize(evals) == 0)
		printf("  no evaluation recorded (the run was interrupted before the verdict)\n");
	const cJSON *e;
	cJSON_ArrayForEach(e, evals) {
		printf("  evaluation %.0f: %s — %s\n", cJSON_GetNumberValue(cJSON_GetObjectItem(e, "evaluation_id")),
		       cJSON_GetStringValue(cJSON_GetObjectItem(e, "verdict")), cJSON_GetStringValue(cJSON_GetObjectItem(e, "reason")));
		cJSON *t = cJSON_GetObjectItem(e, "time_ms");
		if (cJSON_IsNumber(t))
			printf("    %.4g ms (reference %.4g ms, speedup %.3gx, SOL fraction %.3g)\n", t->valuedouble,
			       cJSON_GetNumberValue(cJSON_GetObjectItem(e, "ref_time_ms")),
			       cJSON_GetNumberValue(cJSON_GetObjectItem(e, "speedup")),
			       cJSON_GetNumberValue(cJSON_GetObjectItem(e, "sol_fraction")));
	}
}

int kf_cmd_show(int argc, char **argv)
{
	const char *db = NULL, *run = NULL;
	bool json = false, help = false;
	const struct kf_opt opts[] = { { "db", true, &db, NULL }, { "run", true, &run, NULL }, { "json", false, NULL, &json },
				       KF_SUITE_OPT, { NULL, false, NULL, NULL } };
	const char *pos[KF_CLI_MAX_POSITIONAL];
	int n_pos = 0;
	kf_err err = { 0 };
	if (kf_cli_parse(argc, argv, opts, pos, 1, &n_pos, &help, &err) != KF_OK)
		return kf_cli_fail(&err);
	if (help) {
		fputs(help_text, stdout);
		return KF_EXIT_OK;
	}
	int64_t id = 0;
	if (run ? n_pos != 0 : n_pos != 1)
		kf_errf(&err, KF_EINPUT, run ? "show --run takes no submission ID" : "show needs one submission ID (or --run RUN_ID)");
	else if (parse_id(run ? run : pos[0], run ? "run ID" : "submission ID", &id, &err) == KF_OK)
		err.code = KF_OK;
	if (err.code != KF_OK)
		return kf_cli_fail(&err);
	struct kf_store *store = NULL;
	if (run) {
		int rc = kf_store_open(kf_cli_db_path(db), &store, &err);
		if (rc == KF_OK)
			rc = show_run(store, id, json, &err);
		kf_store_close(store);
		return rc == KF_OK ? KF_EXIT_OK : kf_cli_fail(&err);
	}
	cJSON *c = NULL;
	if (kf_store_open(kf_cli_db_path(db), &store, &err) != KF_OK || kf_store_get_candidate(store, id, &c, &err) != KF_OK) {
		kf_store_close(store);
		return kf_cli_fail(&err);
	}
	if (json)
		kf_cli_print_json(c);
	else
		print_human(c);
	cJSON_Delete(c);
	kf_store_close(store);
	return KF_EXIT_OK;
}
