/* `kforge tasks`: the task suite, as a table or JSON; --check proves each task well posed. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/multi.h"
#include "eval/judge/judge.h"
#include "eval/tasks/task.h"

static const char *const help_text =
	"usage: kforge tasks [--suite DIR] [--json] [--check] [--db PATH]\n"
	"\n"
	"Lists every task under the task directory (--suite DIR, else $KFORGE_TASKS, else tasks/ in\n"
	"kforge's home): name, level and the CPU entry point (--json adds the signature of every backend\n"
	"and the benchmark shapes). Every error of every\n"
	"broken task file is reported, one FILE:FIELD: reason line each, and the exit code is then 2;\n"
	"the other tasks are still listed (and checked).\n"
	"\n"
	"  -j, --json    print a JSON array of tasks (name, level, description, signature per backend, shapes)\n"
	"  --suite DIR   the task suite to read (a folder of levelN/ folders); reference and oracle paths\n"
	"                of its specs are found under kforge's home or, failing that, under DIR\n"
	"  --check       also verify each task is well posed: zeros, a constant and a copy of an input must\n"
	"                fail its tolerance, and its output must depend on its inputs (compiles the oracles);\n"
	"                an ill-posed task is reported and the check goes on with the next\n"
	"  --db PATH     accepted for symmetry with the other commands; tasks reads no database\n"
	"  -h, --help    print this help\n"
	"\n"
	"Exit codes: 0 ok, 2 some task is broken or ill-posed (or a usage error), 3 internal error.\n"
	"Example: kforge tasks --json\n";

static cJSON *shape_obj(const struct kf_task *t, const struct kf_shape *s)
{
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < t->n_symbols; i++)
		cJSON_AddNumberToObject(o, t->symbols[i], (double)s->v[i]);
	return o;
}

static cJSON *task_json(const struct kf_task *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", t->name);
	cJSON_AddNumberToObject(o, "level", t->level);
	cJSON_AddStringToObject(o, "description", t->description);
	cJSON_AddStringToObject(o, "file", t->path);
	cJSON_AddStringToObject(o, "spec_hash", t->spec_hash);
	cJSON *sig = cJSON_AddObjectToObject(o, "signature");
	cJSON *bench = cJSON_AddObjectToObject(o, "bench_shape");
	for (int b = 0; b < KF_BACKEND_COUNT; b++) {
		kf_buf p = KF_BUF_INIT;
		kf_abi_prototype(t, (enum kf_backend)b, &p);
		cJSON_AddStringToObject(sig, kf_backend_name((enum kf_backend)b), p.data ? p.data : "");
		kf_buf_free(&p);
		cJSON_AddItemToObject(bench, kf_backend_name((enum kf_backend)b), shape_obj(t, &t->bench[b]));
	}
	cJSON_AddBoolToObject(o, "has_cuda_reference", t->reference[KF_BACKEND_CUDA] != NULL);
	cJSON_AddBoolToObject(o, "multi_gpu", kf_task_multi_gpu(t)); /* level 4: CUDA only, --gpus N */
	return o;
}

/* Each error line as the CLI prints errors: "kforge: FILE:FIELD: reason". */
static void print_errors(const char *text)
{
	while (text && *text) {
		size_t n = strcspn(text, "\n");
		fprintf(stderr, "kforge: %.*s\n", (int)n, text);
		text += n + (text[n] == '\n');
	}
}

int kf_cmd_tasks(int argc, char **argv)
{
	const char *db = NULL, *suite = NULL;
	bool json = false, check = false, help = false;
	const struct kf_cli_opt opts[] = { { .name = "json", .short_name = 'j', .arg = KF_CLI_SWITCH, .flag = &json },
					   { .name = "check", .arg = KF_CLI_SWITCH, .flag = &check },
					   { .name = "db", .arg = KF_CLI_VALUE, .value = &db },
					   { .name = "suite", .arg = KF_CLI_VALUE, .value = &suite },
					   { .name = NULL } };
	const char *pos[KF_CLI_MAX_POSITIONAL];
	int n_pos = 0;
	kf_err err = { 0 };
	if (kf_cli_parse_opts(argc, argv, opts, pos, 0, &n_pos, &help, &err) != KF_OK)
		return kf_cli_fail(&err);
	if (help) {
		fputs(help_text, stdout);
		return KF_EXIT_OK;
	}
	if (suite)
		kf_tasks_set_dir(suite);
	struct kf_task **ts = NULL;
	int n = 0, n_broken = 0, n_ill = 0;
	kf_buf report = KF_BUF_INIT;
	if (kf_task_list_report(NULL, &ts, &n, &report, &n_broken, &err) != KF_OK) {
		kf_buf_free(&report);
		return kf_cli_fail(&err);
	}
	print_errors(report.data);
	kf_buf_free(&report);
	int rc = n_broken ? KF_EXIT_USAGE : KF_EXIT_OK;
	for (int i = 0; i < n && check; i++) {
		int crc = kf_judge_check_task(ts[i], &err);
		if (crc == KF_OK)
			continue;
		/* An ill-posed task is reported and the others are still checked; kforge's own
		 * failure stops the check. */
		if (crc != KF_EINPUT) {
			rc = kf_cli_fail(&err);
			goto out;
		}
		print_errors(err.msg);
		n_ill++;
		rc = KF_EXIT_USAGE;
	}
	if (json) {
		cJSON *arr = cJSON_CreateArray();
		for (int i = 0; i < n; i++)
			cJSON_AddItemToArray(arr, task_json(ts[i]));
		kf_cli_print_json(arr);
		cJSON_Delete(arr);
	} else {
		int width = (int)strlen("task");
		for (int i = 0; i < n; i++)
			if ((int)strlen(ts[i]->name) > width)
				width = (int)strlen(ts[i]->name);
		printf("%-*s %-5s %s\n", width, "task", "level", "CPU entry point");
		for (int i = 0; i < n; i++) {
			kf_buf p = KF_BUF_INIT;
			if (kf_task_multi_gpu(ts[i])) /* level 4 has no CPU entry point */
				kf_buf_adds(&p, "(CUDA only, multi-GPU: --backend cuda --gpus N; see kforge tasks --json)");
			else
				kf_abi_prototype(ts[i], KF_BACKEND_CPU, &p);
			printf("%-*s %-5d %s\n", width, ts[i]->name, ts[i]->level, p.data ? p.data : "");
			kf_buf_free(&p);
		}
		if (n_broken || n_ill)
			printf("%d tasks loaded, %d broken, %d ill-posed\n", n, n_broken, n_ill);
		else
			printf("%d tasks%s\n", n, check ? ", all well posed" : "");
	}
out:
	kf_task_list_free(ts, n);
	return rc;
}
