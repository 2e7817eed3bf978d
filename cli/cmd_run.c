/* `kforge run`: points the agent (agent/agent.h) at a model and a task suite. Parses the command
 * line into the run's configuration, finds the endpoint and its key, loads the tasks, runs, then
 * prints the per-task summary and writes the selected kernels when asked. */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/run_report.h"
#include "cli/cli.h"
#include "common/fs.h"
#include "eval/judge/multi.h"
#include "eval/tasks/multi.h"

#define MAX_TASK_FLAGS 256
#define MAX_OPTIONS 64
#define TASK_EXT ".json"
#define HELP_NAME_WIDTH 22

static const char *const help_head =
	"usage: kforge run (--suite DIR | --task NAME [--task NAME...]) --model M [options]\n"
	"       kforge run --resume RUN_ID [options]\n"
	"       kforge run --replay RUN_ID|FILE.jsonl [judge options]\n"
	"       kforge run --export-replies RUN_ID > FILE.jsonl\n"
	"\n"
	"Asks a model for kernels for every task: --samples requests per task, judged as they arrive;\n"
	"then --rounds - 1 rounds that each refine the --keep best candidates with the judge's feedback\n"
	"(compile errors, the first mismatch, or the time and speed-of-light fraction). Requests run\n"
	"--concurrency at a time while candidates are judged. Every request, HTTP attempt, reply,\n"
	"candidate and evaluation is recorded in the database; a run stopped by a budget, Ctrl-C or a\n"
	"crash continues with --resume RUN_ID, without asking again for a finished sample.\n"
	"\n"
	"Which candidates are refined, and which kernel the summary (and --out) selects, comes from the\n"
	"same ranking as kforge rank: the correct candidates are checked by weak verifiers (hidden and\n"
	"ragged shapes, stress inputs, repeated runs, consensus; about a second each on the CPU, votes\n"
	"stored), a label model gives each P(correct), and trusted ones (P >= --theta) come first, then\n"
	"the fastest. --verify full adds compute-sanitizer (slow); --verify off orders by verdict and SOL\n"
	"fraction only; --llm-judge-model M also asks M (same endpoint) to review each correct candidate.\n"
	"\n"
	"Before a correct candidate is refined it is profiled once, in a separate sandboxed run that never\n"
	"changes a verdict or a time (--profile off skips it): the feedback then names what bounds it\n"
	"(memory, compute, SFU or latency) and the two or three metrics that matter, with their gap to\n"
	"peak. --min-distance keeps the refined candidates different from each other, --explore spends a\n"
	"share of each refinement round on fresh samples, --stop-at-sol ends a task whose best kernel is\n"
	"close enough to the speed of light (docs/agent.md says why the defaults are what they are).\n"
	"\n"
	"Endpoint: --base-url URL of any OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama,\n"
	"Together, DeepSeek...), or the public APIs with OPENAI_API_KEY or ANTHROPIC_API_KEY set.\n"
	"Keys are read from the environment only, and never stored or printed.\n"
	"\n"
	"  --suite DIR            every task under DIR (a tasks/ folder or one level folder)\n"
	"  --task NAME            a task by name (repeatable; see kforge tasks)\n"
	"  --resume RUN_ID        continue a run with its stored settings; the options below marked\n"
	"                         (fixed) cannot change, the others override the stored ones\n"
	"  --replay RUN_ID|FILE   a new run that judges the replies of run RUN_ID (or of an export)\n"
	"                         again, asking no model: other hardware, a changed judge, or no model\n"
	"                         at all (examples/replay/); judge options (--workers, --gpus, --seeds,\n"
	"                         --timing-budget, ...) may be given, the rest is the recorded run's\n"
	"  --export-replies RUN_ID  print run RUN_ID's replies as JSONL (what --replay FILE reads)\n"
	"  --serve-worker         be a judge worker on stdin/stdout (what --dispatch slurm starts)\n"
	"  --out DIR              write each task's selected correct kernel to DIR/<task>.c (.cu)\n"
	"  --db PATH              database (default: $KFORGE_DB, else ./kforge.db)\n"
	"  --json                 print the summary as one JSON object\n";

static const char *const help_tail =
	"\n"
	"Exit codes: 0 every task has a correct kernel, 1 some task has none, 2 usage or input error,\n"
	"3 internal error.\n"
	"Examples:\n"
	"  kforge run --suite tasks/level1 --base-url http://localhost:8000/v1 --model Qwen/Qwen2.5-Coder-32B-Instruct\n"
	"  OPENAI_API_KEY=... kforge run --task softmax_rows --model gpt-4.1 --samples 8 --rounds 3 --budget-usd 2\n"
	"  ANTHROPIC_API_KEY=... kforge run --suite tasks --model claude-sonnet-4-20250514 --out best/\n"
	"  kforge run --resume 3 --max-minutes 30\n"
	"  kforge run --replay examples/replay/level1-cpu.jsonl\n";

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* SA_RESETHAND: a second Ctrl-C ends kforge at once. */
static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void print_help(void)
{
	fputs(help_head, stdout);
	for (const struct kf_agent_option *o = kf_agent_options(); o->flag; o++) {
		char name[64];
		snprintf(name, sizeof name, "--%s %s", o->flag,
			 o->type == KF_OPT_CHOICE ? o->choices : o->type == KF_OPT_STRING ? "S" : "N");
		if (strlen(name) > HELP_NAME_WIDTH)
			printf("  %s\n  %-*s %s%s\n", name, HELP_NAME_WIDTH, "", o->help, o->resume_fixed ? " (fixed)" : "");
		else
			printf("  %-*s %s%s\n", HELP_NAME_WIDTH, name, o->help, o->resume_fixed ? " (fixed)" : "");
	}
	fputs(help_tail, stdout);
}

/* --task may repeat, which kf_cli_parse does not support: take every --task out of argv first. */
static int take_tasks(int *argc, char **argv, const char **names, int *n, kf_err *err)
{
	int out = 0;
	*n = 0;
	for (int i = 0; i < *argc; i++) {
		const char *value = NULL;
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--task")) {
			if (i + 1 >= *argc)
				return kf_errf(err, KF_EINPUT, "option '--task' needs a value");
			value = argv[++i];
		} else if (!strncmp(argv[i], "--task=", strlen("--task="))) {
			value = argv[i] + strlen("--task=");
		} else {
			argv[out++] = argv[i];
			continue;
		}
		if (*n >= MAX_TASK_FLAGS)
			return kf_errf(err, KF_EINPUT, "at most %d --task options", MAX_TASK_FLAGS);
		names[(*n)++] = value;
	}
	*argc = out;
	return KF_OK;
}

static int name_order(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_task_file(const char *name)
{
	size_t len = strlen(name), ext = strlen(TASK_EXT);
	return name[0] != '.' && len > ext && !strcmp(name + len - ext, TASK_EXT);
}

/* The task files directly in one level folder, by name; *n is 0 when it holds none (a tasks/
 * folder with levelN subfolders instead). */
static int load_level_dir(const char *dir, struct kf_task ***tasks, int *n, kf_err *err)
{
	DIR *d = opendir(dir);
	*tasks = NULL;
	*n = 0;
	if (!d)
		return kf_errno(err, KF_EINPUT, "cannot open the suite %s", dir);
	char **names = NULL;
	int count = 0, cap = 0, rc = KF_OK;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!is_task_file(e->d_name))
			continue;
		names = kf_xgrow(names, count, &cap, sizeof *names);
		names[count++] = kf_xstrdup(e->d_name);
	}
	closedir(d);
	if (count)
		qsort(names, (size_t)count, sizeof *names, name_order);
	*tasks = kf_xcalloc((size_t)count + 1, sizeof **tasks);
	for (int i = 0; i < count && rc == KF_OK; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if ((rc = kf_task_load_file(path, &(*tasks)[*n], err)) == KF_OK)
			(*n)++;
	}
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* --suite DIR: a tasks/ folder with levelN subfolders, or one level folder. Tasks without a
 * reference for the backend are left out (and named on stderr). */
static int load_tasks(const char *suite, const char **names, int n_names, enum kf_backend b,
		      struct kf_task ***tasks, int *n, kf_err *err)
{
	int rc = KF_OK, total = 0;
	struct kf_task **all = NULL;
	if (suite) {
		if ((rc = load_level_dir(suite, &all, &total, err)) == KF_OK && total == 0) {
			free(all);
			rc = kf_task_list(suite, &all, &total, err);
		}
	} else {
		all = kf_xcalloc((size_t)n_names + 1, sizeof *all);
		for (; total < n_names && rc == KF_OK; total++)
			if ((rc = kf_task_find(NULL, names[total], &all[total], err)) != KF_OK)
				break;
	}
	*tasks = kf_xcalloc((size_t)total + 1, sizeof **tasks);
	*n = 0;
	for (int i = 0; i < total && rc == KF_OK; i++) {
		kf_err why;
		int gpus = kf_task_multi_gpu(all[i]) && b == KF_BACKEND_CUDA ? kf_judge_multi_visible_gpus() : 2;
		if (gpus < 2) /* level 4 (docs/multi-gpu.md) */
			kf_errf(&why, KF_EINPUT, "task %s is a multi-GPU task: it needs 2 GPUs, this machine shows %d",
				all[i]->name, gpus);
		if (gpus >= 2 && kf_task_check_files(all[i], b, &why) == KF_OK) {
			(*tasks)[(*n)++] = all[i];
			all[i] = NULL;
		} else if (!suite) {
			*err = why;
			rc = why.code;
		} else {
			fprintf(stderr, "kforge run: leaving out %s: %s\n", all[i]->name, why.msg);
		}
	}
	kf_task_list_free(all, total);
	if (rc == KF_OK && *n == 0)
		rc = kf_errf(err, KF_EINPUT, "no task to run on the %s backend in %s", kf_backend_name(b),
			     suite ? suite : "the --task list");
	return rc;
}

static const char *str_of(const cJSON *cfg, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cfg, key));
}

/* Without --provider: the public API whose key is set (Anthropic for claude-* models when its key
 * is), or OpenAI-compatible when a base URL is given. Then an endpoint must exist. */
static int resolve_endpoint(cJSON *cfg, kf_err *err)
{
	const char *model = str_of(cfg, "model"), *base = str_of(cfg, "base_url");
	const char *openai_key = kf_provider_api_key(kf_provider_get(KF_PROVIDER_OPENAI));
	const char *anthropic_key = kf_provider_api_key(kf_provider_get(KF_PROVIDER_ANTHROPIC));
	if (!str_of(cfg, "provider")) {
		const char *p = NULL;
		if (!base && anthropic_key && model && !strncmp(model, "claude", strlen("claude")))
			p = "anthropic";
		else if (base || openai_key)
			p = "openai";
		else if (anthropic_key)
			p = "anthropic";
		if (p && kf_agent_config_set(cfg, "provider", p, err) != KF_OK)
			return err->code;
	}
	const char *provider = str_of(cfg, "provider");
	enum kf_provider_kind k;
	bool has_key = provider && kf_provider_parse_name(provider, &k) == 0 && kf_provider_api_key(kf_provider_get(k));
	if (base || has_key)
		return KF_OK;
	return kf_errf(err, KF_EINPUT,
		       "no LLM endpoint: pass --base-url http://localhost:8000/v1 --model M for a local server "
		       "(vLLM, SGLang, llama.cpp, Ollama), or set %s",
		       provider && !strcmp(provider, "anthropic") ? "ANTHROPIC_API_KEY"
								    : "OPENAI_API_KEY or ANTHROPIC_API_KEY");
}

static int parse_run_id(const char *flag, const char *s, int64_t *out, kf_err *err)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || v <= 0)
		return kf_errf(err, KF_EINPUT, "--%s needs a run id (a positive number), not '%s'", flag, s);
	*out = v;
	return KF_OK;
}

struct run_cli {
	const char *suite, *resume, *out_dir, *db, *replay, *export_replies;
	bool json, serve_worker;
	const char *tasks[MAX_TASK_FLAGS];
	int n_tasks;
	const char *values[MAX_OPTIONS]; /* by index in kf_agent_options() */
};

/* Applies the options given on the command line to cfg. */
static int apply_options(const struct run_cli *c, cJSON *cfg, kf_err *err)
{
	int i = 0;
	for (const struct kf_agent_option *o = kf_agent_options(); o->flag; o++, i++)
		if (c->values[i] && kf_agent_config_set(cfg, o->flag, c->values[i], err) != KF_OK)
			return err->code;
	return KF_OK;
}

static int parse_args(int argc, char **argv, struct run_cli *c, bool *help, kf_err *err)
{
	struct kf_opt opts[MAX_OPTIONS + 8];
	int n = 0, rc;
	memset(c, 0, sizeof *c);
	if ((rc = take_tasks(&argc, argv, c->tasks, &c->n_tasks, err)) != KF_OK)
		return rc;
	for (const struct kf_agent_option *o = kf_agent_options(); o->flag && n < MAX_OPTIONS; o++, n++)
		opts[n] = (struct kf_opt){ o->flag, true, &c->values[n], NULL };
	opts[n++] = (struct kf_opt){ "suite", true, &c->suite, NULL };
	opts[n++] = (struct kf_opt){ "resume", true, &c->resume, NULL };
	opts[n++] = (struct kf_opt){ "replay", true, &c->replay, NULL };
	opts[n++] = (struct kf_opt){ "export-replies", true, &c->export_replies, NULL };
	opts[n++] = (struct kf_opt){ "out", true, &c->out_dir, NULL };
	opts[n++] = (struct kf_opt){ "db", true, &c->db, NULL };
	opts[n++] = (struct kf_opt){ "json", false, NULL, &c->json };
	opts[n++] = (struct kf_opt){ "serve-worker", false, NULL, &c->serve_worker };
	opts[n] = (struct kf_opt){ NULL, false, NULL, NULL };
	const char *pos[KF_CLI_MAX_POSITIONAL];
	int n_pos;
	if ((rc = kf_cli_parse(argc, argv, opts, pos, 0, &n_pos, help, err)) != KF_OK || *help)
		return rc;
	if (c->serve_worker)
		return KF_OK;
	if ((c->resume != NULL) + (c->replay != NULL) + (c->export_replies != NULL) > 1)
		return kf_errf(err, KF_EINPUT, "--resume, --replay and --export-replies go one at a time");
	if ((c->resume || c->replay || c->export_replies) && (c->suite || c->n_tasks))
		return kf_errf(err, KF_EINPUT, "--%s works on a run's own tasks: drop --suite and --task",
			       c->resume ? "resume" : c->replay ? "replay" : "export-replies");
	if (!c->resume && !c->replay && !c->export_replies && !c->suite == !c->n_tasks)
		return kf_errf(err, KF_EINPUT, "kforge run needs --suite DIR or --task NAME (one of the two)");
	return KF_OK;
}

/* The value given for a run option, or NULL. */
static const char *option_value(const struct run_cli *c, const char *flag)
{
	int i = 0;
	for (const struct kf_agent_option *o = kf_agent_options(); o->flag; o++, i++)
		if (!strcmp(o->flag, flag))
			return c->values[i];
	return NULL;
}

/* --serve-worker: a judge worker on stdin and stdout (agent/worker.h), as --dispatch slurm starts
 * them on cluster nodes; --backend, --device and --db say where it judges and what it reads. */
static int serve_worker(const struct run_cli *c)
{
	kf_err err = { 0 };
	const char *backend = option_value(c, "backend"), *device = option_value(c, "device");
	enum kf_backend b = KF_BACKEND_CPU;
	if (backend && kf_backend_parse(backend, &b) != 0) {
		kf_errf(&err, KF_EINPUT, "--backend must be cpu or cuda");
		return kf_cli_fail(&err);
	}
	/* The protocol owns stdout: nothing else may be written there. */
	int rc = kf_worker_serve(STDIN_FILENO, STDOUT_FILENO, b, device ? atoi(device) : 0, NULL, 0,
				 kf_cli_db_path(c->db), NULL, &err);
	return rc == KF_OK ? KF_EXIT_OK : kf_cli_fail(&err);
}

/* --export-replies RUN_ID: the run's replies as JSONL on stdout. */
static int export_replies(const struct run_cli *c)
{
	kf_err err = { 0 };
	struct kf_store *store = NULL;
	int64_t id = 0;
	int rc = parse_run_id("export-replies", c->export_replies, &id, &err);
	if (rc == KF_OK && (rc = kf_store_open(kf_cli_db_path(c->db), &store, &err)) == KF_OK)
		rc = kf_replay_export(store, id, stdout, &err);
	kf_store_close(store);
	return rc == KF_OK ? KF_EXIT_OK : kf_cli_fail(&err);
}

/* --replay RUN_ID|FILE: the recorded run's configuration, marked as a replay, with the judge
 * options given on the command line. A run id is read from --db; anything else is a file. */
static int replay_config(const struct run_cli *c, struct kf_replay *rp, cJSON **cfg, kf_err *err)
{
	int64_t id = 0;
	int rc;
	bool is_id = strspn(c->replay, "0123456789") == strlen(c->replay);
	if (is_id) {
		struct kf_store *store = NULL;
		if ((rc = parse_run_id("replay", c->replay, &id, err)) == KF_OK &&
		    (rc = kf_store_open(kf_cli_db_path(c->db), &store, err)) == KF_OK)
			rc = kf_replay_from_run(store, id, rp, err);
		kf_store_close(store);
	} else {
		rc = kf_replay_from_file(c->replay, rp, err);
	}
	if (rc != KF_OK)
		return rc;
	*cfg = cJSON_Duplicate(rp->config, true);
	/* The recorded run's own judge and worker settings give way to this machine's. */
	static const char *const local[] = { "gpus", "workers", "dispatch", "partition", "gpus_per_worker",
					     "compile_jobs" };
	for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(*cfg, local[i]);
	cJSON_DeleteItemFromObjectCaseSensitive(*cfg, "replay");
	cJSON_DeleteItemFromObjectCaseSensitive(*cfg, "replay_of");
	cJSON_AddTrueToObject(*cfg, "replay");
	cJSON_AddStringToObject(*cfg, "replay_of", c->replay);
	return apply_options(c, *cfg, err);
}

static int finish(const struct run_cli *c, struct kf_store *store, const struct kf_agent_summary *sum, kf_err *err)
{
	int written = 0;
	if (c->out_dir && kf_agent_write_best(store, sum, c->out_dir, &written, err) != KF_OK)
		return err->code;
	if (c->json) {
		cJSON *j = kf_run_report_json(sum);
		if (c->out_dir)
			cJSON_AddStringToObject(j, "out", c->out_dir);
		kf_cli_print_json(j);
		cJSON_Delete(j);
	} else {
		kf_run_report_table(stdout, sum);
		if (c->out_dir)
			printf("wrote %d kernel%s to %s\n", written, written == 1 ? "" : "s", c->out_dir);
	}
	return KF_OK;
}

int kf_cmd_run(int argc, char **argv)
{
	struct run_cli c;
	bool help = false;
	kf_err err = { 0 };
	struct kf_store *store = NULL;
	struct kf_task **tasks = NULL;
	int n_tasks = 0, rc;
	cJSON *cfg = NULL;
	struct kf_agent_summary sum = { 0 };
	int64_t resume_id = 0;

	if ((rc = parse_args(argc, argv, &c, &help, &err)) != KF_OK)
		return kf_cli_fail(&err);
	if (help) {
		print_help();
		return KF_EXIT_OK;
	}
	if (c.resume && (rc = parse_run_id("resume", c.resume, &resume_id, &err)) != KF_OK)
		return kf_cli_fail(&err);
	if (c.export_replies)
		return export_replies(&c);
	if (c.serve_worker)
		return serve_worker(&c);
	struct kf_agent_config check;
	struct kf_replay replay = { 0 };
	if (c.replay) {
		if ((rc = replay_config(&c, &replay, &cfg, &err)) != KF_OK)
			goto fail;
	} else if (!resume_id) {
		cfg = kf_agent_config_default();
		if ((rc = apply_options(&c, cfg, &err)) != KF_OK || (rc = resolve_endpoint(cfg, &err)) != KF_OK ||
		    (rc = kf_agent_config_read(cfg, &check, &err)) != KF_OK)
			goto fail;
	}
	if ((rc = kf_store_open(kf_cli_db_path(c.db), &store, &err)) != KF_OK)
		goto fail;
	if (resume_id && ((rc = kf_agent_run_config(store, resume_id, &cfg, &err)) != KF_OK ||
			  (rc = apply_options(&c, cfg, &err)) != KF_OK || (rc = resolve_endpoint(cfg, &err)) != KF_OK))
		goto fail;
	if (resume_id && (rc = kf_agent_config_read(cfg, &check, &err)) != KF_OK)
		goto fail;
	if (c.replay && (rc = kf_agent_config_read(cfg, &check, &err)) != KF_OK)
		goto fail;
	if (!resume_id && !c.replay && (rc = load_tasks(c.suite, c.tasks, c.n_tasks, check.backend, &tasks, &n_tasks, &err)) != KF_OK)
		goto fail;
	struct kf_run_report report;
	kf_run_report_init(&report, stderr, isatty(STDERR_FILENO));
	const struct kf_agent_observer observer = { kf_run_report_event, &report };
	struct kf_agent_run_args args = { .store = store, .resume_id = resume_id, .config = cfg, .tasks = tasks,
					  .n_tasks = n_tasks,
					  .api_key = kf_provider_api_key(kf_provider_get(check.provider)),
					  .observer = &observer, .stop = &stop_requested,
					  .replay = c.replay ? &replay : NULL };
	install_signals();
	rc = kf_agent_run(&args, &sum, &err);
	kf_run_report_finish(&report);
	if (rc != KF_OK || (rc = finish(&c, store, &sum, &err)) != KF_OK)
		goto fail;
	rc = sum.ok_tasks == sum.n_tasks ? KF_EXIT_OK : KF_EXIT_REJECTED;
	goto out;
fail:
	rc = kf_cli_fail(&err);
out:
	kf_agent_summary_free(&sum);
	kf_replay_free(&replay);
	kf_task_list_free(tasks, n_tasks);
	cJSON_Delete(cfg);
	kf_store_close(store);
	return rc;
}
