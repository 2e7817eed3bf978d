/* `kforge submit`: judge one kernel file by hand, record it, print the verdict. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "db/store.h"
#include "eval/judge/judge.h"
#include "eval/tasks/task.h"

#define KF_SUBMIT_MAX_SOURCE (1u << 20)
#define KF_SUBMIT_MIB (1024.0 * 1024.0)

static const char *const help_text =
	"usage: kforge submit --task NAME [--backend cpu|cuda] [--as NAME] [--db PATH] [--seed N] [--json] FILE\n"
	"\n"
	"Compiles FILE in the compile jail, runs it in the sandboxed runner against the task's reference,\n"
	"checks it over several seeds x test, ragged and stress shapes, times it at the benchmark shape\n"
	"interleaved with the reference, and records everything in the database.\n"
	"\n"
	"  --task NAME         task to judge against (see kforge tasks)\n"
	"  --backend B         cpu (default) or cuda\n"
	"  --as NAME           submitter name recorded with the result (default: $USER)\n"
	"  --db PATH           database (default: $KFORGE_DB, else ./kforge.db)\n"
	KF_SUITE_OPT_HELP
	"  --seed N            base seed for every drawn input (default: random, recorded)\n"
	"  --call-timeout S    wall-clock limit of one kf_launch call in seconds (default 10)\n"
	"  --deadline S        wall-clock limit of the whole evaluation in seconds; past it the verdict\n"
	"                      is timeout (default 300)\n"
	"  --mem-limit-mib N   memory cap of the runner: host data on the CPU, device allocations on\n"
	"                      CUDA (default 4096)\n"
	"  --device N          GPU ordinal for the cuda backend (default 0)\n"
	"  --json              print one JSON object: verdict, reason, task, backend, time_ms, ref_time_ms,\n"
	"                      vendor_time_ms, speedup, sol_fraction, sol_score, t_sol_ms, max_abs_err,\n"
	"                      max_rel_err, submission_id, and the full record\n"
	"\n"
	"Exit codes: 0 ok, 1 candidate rejected, 2 usage or input error, 3 internal error.\n"
	"Example: kforge submit --task vector_add examples/cpu/vector_add.c --json\n";

static int parse_positive(const char *what, const char *s, double *out, kf_err *err)
{
	char *end;
	double v = strtod(s, &end);
	if (*end || !(v > 0) || !isfinite(v))
		return kf_errf(err, KF_EINPUT, "%s must be a positive number, not '%s'", what, s);
	*out = v;
	return KF_OK;
}

static void print_human(const cJSON *r)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict"));
	const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(r, "reason"));
	printf("submission %.0f: %s — %s\n", cJSON_GetNumberValue(cJSON_GetObjectItem(r, "submission_id")), v, reason);
	cJSON *t = cJSON_GetObjectItem(r, "time_ms");
	if (cJSON_IsNumber(t)) {
		printf("  %s on %s: %.4g ms, reference %.4g ms, speedup %.3gx\n",
		       cJSON_GetStringValue(cJSON_GetObjectItem(r, "task")),
		       cJSON_GetStringValue(cJSON_GetObjectItem(r, "backend")), t->valuedouble,
		       cJSON_GetNumberValue(cJSON_GetObjectItem(r, "ref_time_ms")),
		       cJSON_GetNumberValue(cJSON_GetObjectItem(r, "speedup")));
		cJSON *score = cJSON_GetObjectItem(r, "sol_score");
		printf("  speed of light: %.4g ms (%s-bound); SOL fraction %.3g; SOL score %s%.3g\n",
		       cJSON_GetNumberValue(cJSON_GetObjectItem(r, "t_sol_ms")),
		       cJSON_GetStringValue(cJSON_GetObjectItem(r, "bound")),
		       cJSON_GetNumberValue(cJSON_GetObjectItem(r, "sol_fraction")), cJSON_IsNumber(score) ? "" : "n/a ",
		       cJSON_IsNumber(score) ? score->valuedouble : 0.0);
		printf("  max abs error %.3g, max rel error %.3g\n",
		       cJSON_GetNumberValue(cJSON_GetObjectItem(r, "max_abs_err")),
		       cJSON_GetNumberValue(cJSON_GetObjectItem(r, "max_rel_err")));
	}
}

int kf_cmd_submit(int argc, char **argv)
{
	const char *task_name = NULL, *backend = "cpu", *as = NULL, *db = NULL, *seed = NULL, *timeout = NULL,
		   *mem = NULL, *device = NULL,
		   *deadline = NULL;
	bool json = false, help = false;
	const struct kf_opt opts[] = {
		{ "task", true, &task_name, NULL }, { "backend", true, &backend, NULL }, { "as", true, &as, NULL },
		{ "db", true, &db, NULL },          { "seed", true, &seed, NULL },       { "call-timeout", true, &timeout, NULL },
		{ "mem-limit-mib", true, &mem, NULL }, { "device", true, &device, NULL }, { "json", false, NULL, &json },
		{ "deadline", true, &deadline, NULL },
		KF_SUITE_OPT, { NULL, false, NULL, NULL },
	};
	const char *pos[KF_CLI_MAX_POSITIONAL];
	int n_pos = 0;
	kf_err err = { 0 };
	struct kf_task *task = NULL;
	struct kf_store *store = NULL;
	struct kf_peaks peaks = { 0 };
	char *source = NULL;
	cJSON *result = NULL;
	int rc;

	if (kf_cli_parse(argc, argv, opts, pos, 1, &n_pos, &help, &err) != KF_OK)
		return kf_cli_fail(&err);
	if (help) {
		fputs(help_text, stdout);
		return KF_EXIT_OK;
	}
	struct kf_judge_opts jo;
	kf_judge_opts_default(&jo);
	if (!task_name)
		rc = kf_errf(&err, KF_EINPUT, "submit needs --task NAME (see kforge tasks)");
	else if (n_pos != 1)
		rc = kf_errf(&err, KF_EINPUT, "submit needs exactly one kernel FILE");
	else if (kf_backend_parse(backend, &jo.backend) != 0)
		rc = kf_errf(&err, KF_EINPUT, "unknown backend '%s' (cpu or cuda)", backend);
	else
		rc = KF_OK;
	if (rc == KF_OK && seed) {
		char *end;
		jo.seed = strtoull(seed, &end, 0);
		if (*end || !*seed || jo.seed >= KF_SEED_LIMIT)
			rc = kf_errf(&err, KF_EINPUT, "--seed must be an integer from 0 to 2^53-1, not '%s'", seed);
	}
	if (rc == KF_OK && device) {
		char *end;
		long d = strtol(device, &end, 10);
		if (*end || !*device || d < 0 || d > INT32_MAX)
			rc = kf_errf(&err, KF_EINPUT, "--device must be a GPU ordinal (0, 1, ...), not '%s'", device);
		jo.device = (int)d;
	}
	if (rc == KF_OK && timeout)
		rc = parse_positive("--call-timeout", timeout, &jo.call_timeout_s, &err);
	if (rc == KF_OK && deadline)
		rc = parse_positive("--deadline", deadline, &jo.deadline_s, &err);
	double mib = 0;
	if (rc == KF_OK && mem && (rc = parse_positive("--mem-limit-mib", mem, &mib, &err)) == KF_OK)
		jo.mem_limit_bytes = (size_t)(mib * KF_SUBMIT_MIB);
	if (rc != KF_OK)
		return kf_cli_fail(&err);

	size_t len = 0;
	if ((rc = kf_read_file(pos[0], KF_SUBMIT_MAX_SOURCE, &source, &len, &err)) != KF_OK)
		goto out;
	if ((rc = kf_task_find(NULL, task_name, &task, &err)) != KF_OK)
		goto out;
	if ((rc = kf_store_open(kf_cli_db_path(db), &store, &err)) != KF_OK)
		goto out;
	if ((rc = kf_store_put_task(store, task->name, task->spec_hash, task->spec_text, &err)) != KF_OK)
		goto out;
	char hash[KF_SHA256_HEX_LEN];
	kf_sha256_hex(source, len, hash);
	const char *user = getenv("USER");
	struct kf_candidate_rec rec = { task->name, task->spec_hash, kf_backend_name(jo.backend), "submit",
					as ? as : (user && *user ? user : "anonymous"), pos[0], source, hash, 0 };
	int64_t id = 0;
	if ((rc = kf_store_add_candidate(store, &rec, &id, &err)) != KF_OK)
		goto out;
	if ((rc = kf_sol_peaks(store, jo.backend, jo.device, &peaks, &err)) != KF_OK)
		goto out;
	jo.store = store;
	char started[KF_STORE_TIMESTAMP_LEN], finished[KF_STORE_TIMESTAMP_LEN];
	kf_store_utc_now(started);
	if ((rc = kf_judge_evaluate(task, &peaks, source, len, &jo, &result, &err)) != KF_OK)
		goto out;
	kf_store_utc_now(finished);
	cJSON_AddStringToObject(result, "started_at", started);
	cJSON_AddStringToObject(result, "finished_at", finished);
	cJSON_AddNumberToObject(result, "submission_id", (double)id);
	int64_t eval_id = 0;
	if ((rc = kf_store_add_evaluation(store, id, result, &eval_id, &err)) != KF_OK)
		goto out;
	cJSON_AddNumberToObject(result, "evaluation_id", (double)eval_id);
	if (json)
		kf_cli_print_json(result);
	else
		print_human(result);
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(result, "verdict"));
	rc = v && !strcmp(v, "ok") ? KF_EXIT_OK : !strcmp(v, "internal_error") ? KF_EXIT_INTERNAL : KF_EXIT_REJECTED;
	goto done;
out:
	rc = kf_cli_fail(&err);
done:
	cJSON_Delete(result);
	kf_sol_peaks_free(&peaks);
	kf_store_close(store);
	kf_task_free(task);
	free(source);
	return rc;
}
