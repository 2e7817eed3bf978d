/* `kforge show ID`: a recorded submission and its evaluations. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "db/store.h"

static const char *const help_text =
	"usage: kforge show ID [--db PATH] [--json]\n"
	"\n"
	"Prints a recorded submission (task, backend, submitter, source hash) and every evaluation of it\n"
	"with its verdict, reason and timings. With --json, the whole record as one JSON object,\n"
	"including the source and each evaluation's full result.\n"
	"\n"
	"  --db PATH   database (default: $KFORGE_DB, else ./kforge.db)\n"
	"  --json      print JSON\n"
	"\n"
	"Example: kforge show 3 --json\n";

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
	const char *db = NULL;
	bool json = false, help = false;
	const struct kf_opt opts[] = { { "db", true, &db, NULL }, { "json", false, NULL, &json }, { NULL, false, NULL, NULL } };
	const char *pos[KF_CLI_MAX_POSITIONAL];
	int n_pos = 0;
	kf_err err = { 0 };
	if (kf_cli_parse(argc, argv, opts, pos, 1, &n_pos, &help, &err) != KF_OK)
		return kf_cli_fail(&err);
	if (help) {
		fputs(help_text, stdout);
		return KF_EXIT_OK;
	}
	if (n_pos != 1) {
		kf_errf(&err, KF_EINPUT, "show needs one submission ID");
		return kf_cli_fail(&err);
	}
	char *end;
	long long id = strtoll(pos[0], &end, 10);
	if (*end || id <= 0) {
		kf_errf(&err, KF_EINPUT, "'%s' is not a submission ID (a positive integer)", pos[0]);
		return kf_cli_fail(&err);
	}
	struct kf_store *store = NULL;
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
