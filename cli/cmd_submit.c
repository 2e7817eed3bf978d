/* `kforge submit`: judge one kernel file by hand, record it, print the verdict (with the compiler's
 * messages against the user's file name, and every warning), showing progress on a terminal. */
#include <math.h>
#include <pthread.h>
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
/* The compiler's log in the text report: its first lines when the source was rejected. */
#define KF_SUBMIT_LOG_LINES 20
/* How the compile jail names the candidate's source (sandbox/compile.c), which the compiler's
 * messages then name: the report puts the user's file name back. */
static const char *const jail_sources[] = { "candidate.cu", "candidate.c" };
#define KF_PROGRESS_TICK_NS 100000000L /* the progress line's refresh */
#define KF_NS_PER_S 1000000000L

static const char *const help_text =
	"usage: kforge submit --task NAME [--backend cpu|cuda] [--as NAME] [--db PATH] [--seed N] [--call-timeout S]\n"
	"                     [--deadline S] [--mem-limit-mib N] [--device N] [--gpus N] [--suite DIR] [--json] FILE\n"
	"\n"
	"Compiles FILE in the compile jail, runs it in the sandboxed runner against the task's reference,\n"
	"checks it over several seeds x test, ragged and stress shapes, times it at the benchmark shape\n"
	"interleaved with the reference, and records everything in the database.\n"
	"\n"
	"  -t, --task NAME     task to judge against (see kforge tasks)\n"
	"  -b, --backend B     cpu (default) or cuda\n"
	"  --as NAME           submitter name recorded with the result (default: $USER)\n"
	"  --db PATH           database (default: $KFORGE_DB, else ./kforge.db)\n"
	"  -s, --seed N        base seed for every drawn input (default: random, recorded)\n"
	KF_SUITE_OPT_HELP
	"  --call-timeout S    wall-clock limit of one kf_launch call in seconds (default 10)\n"
	"  --deadline S        wall-clock limit of the whole evaluation in seconds; past it the verdict\n"
	"                      is timeout (default 300)\n"
	"  --mem-limit-mib N   memory cap of the runner: host data on the CPU, device allocations on\n"
	"                      CUDA (default 4096)\n"
	"  -d, --device N      GPU ordinal for the cuda backend (default 0)\n"
	"  --gpus N            level-4 (multi-GPU) tasks: judge on N GPUs from --device on (default: every GPU)\n"
	"  -j, --json          print one JSON object: verdict, reason, task, backend, time_ms, ref_time_ms,\n"
	"                      vendor_time_ms, speedup, sol_fraction, sol_score, t_sol_ms, max_abs_err,\n"
	"                      max_rel_err, submission_id, and the full record\n"
	"  -h, --help          print this help\n"
	"\n"
	"The text report names the compiler's first errors against FILE and prints every warning; on a\n"
	"terminal, standard error shows one line of progress (the stage and the time so far).\n"
	"\n"
	"Exit codes: 0 ok, 1 candidate rejected (any verdict but ok), 2 usage or input error (a bad option,\n"
	"FILE unreadable or not text, unknown task, a database that cannot be opened or written),\n"
	"3 internal error (verdict internal_error, or kforge's own failure).\n"
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

/* line (n bytes) with the jail's name of the source, and any folder before it, replaced by file. */
static void put_renamed(FILE *f, const char *line, size_t n, const char *file)
{
	size_t i = 0, start = 0;
	while (i < n) {
		size_t len = 0;
		for (size_t k = 0; k < sizeof jail_sources / sizeof jail_sources[0] && !len; k++) {
			size_t l = strlen(jail_sources[k]);
			if (i + l <= n && !strncmp(line + i, jail_sources[k], l) &&
			    (i + l == n || strchr(":' \")", line[i + l])))
				len = l;
		}
		if (!len) {
			i++;
			continue;
		}
		size_t path = i; /* a folder written before the name belongs to the jail too */
		while (path > start && !strchr(" '\"(", line[path - 1]))
			path--;
		fprintf(f, "%.*s%s", (int)(path - start), line + start, file);
		i += len;
		start = i;
	}
	fprintf(f, "%.*s\n", (int)(n - start), line + start);
}

/* The compiler's messages: when it rejected the source, its first lines; otherwise its warnings. */
static void print_compiler_log(const char *log, const char *file, bool rejected)
{
	int shown = 0, total = 0;
	for (const char *p = log; p && *p;) {
		size_t n = strcspn(p, "\n");
		bool warning = memmem(p, n, ": warning:", strlen(": warning:")) != NULL;
		if (n && rejected && shown < KF_SUBMIT_LOG_LINES) {
			fputs("  ", stdout);
			put_renamed(stdout, p, n, file);
			shown++;
		} else if (!rejected && warning) {
			fputs("  ", stdout);
			put_renamed(stdout, p, n, file);
		}
		total += n > 0;
		p += n + (p[n] == '\n');
	}
	if (rejected && total > shown)
		printf("  ... %d more line%s of compiler output (--json has the whole log)\n", total - shown,
		       total - shown == 1 ? "" : "s");
}

static void print_human(const cJSON *r, const char *file)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict"));
	const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(r, "reason"));
	printf("submission %.0f: %s — %s\n", cJSON_GetNumberValue(cJSON_GetObjectItem(r, "submission_id")), v, reason);
	const char *log = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "compile"), "log"));
	bool rejected = v && (!strcmp(v, "compile_error") || !strcmp(v, "link_error") || !strcmp(v, "compile_timeout"));
	print_compiler_log(log, file, rejected);
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
	const cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(r, "warnings"))
		if (cJSON_IsString(w))
			printf("  warning: %s\n", w->valuestring);
}

/* ---- the progress line: on a terminal only, one line on stderr, redrawn in place ---- */

struct progress {
	bool on;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const char *stage; /* what is being done now */
	bool stop;
	struct timespec t0;
};

/* The stage that follows each phase the judge reports done (eval/judge/judge.c's phases). */
static const struct {
	const char *phase, *next;
} next_stage[] = {
	{ "compile_ms", "preparing the reference" },   { "reference_ms", "starting the sandbox" },
	{ "sandbox_start_ms", "checking correctness" }, { "correctness_ms", "checking determinism" },
	{ "determinism_ms", "starting the timing runners" }, { "runners_ms", "timing" },
	{ "timing_ms", "stopping the runners" },        { "stop_ms", "recording" },
};

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / KF_NS_PER_S;
}

static void *progress_loop(void *arg)
{
	struct progress *p = arg;
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		fprintf(stderr, "\r\033[Kkforge: %s... %.1f s", p->stage, seconds_since(&p->t0));
		fflush(stderr);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += KF_PROGRESS_TICK_NS;
		if (until.tv_nsec >= KF_NS_PER_S) {
			until.tv_sec++;
			until.tv_nsec -= KF_NS_PER_S;
		}
		pthread_cond_timedwait(&p->cv, &p->mu, &until);
	}
	fputs("\r\033[K", stderr); /* the line goes away: the report follows on stdout */
	fflush(stderr);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void progress_set(struct progress *p, const char *stage)
{
	if (!p->on)
		return;
	pthread_mutex_lock(&p->mu);
	p->stage = stage;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void progress_phase(void *ctx, const char *phase)
{
	for (size_t i = 0; i < sizeof next_stage / sizeof next_stage[0]; i++)
		if (!strcmp(next_stage[i].phase, phase))
			progress_set(ctx, next_stage[i].next);
}

static void progress_start(struct progress *p, const char *stage)
{
	memset(p, 0, sizeof *p);
	if (!isatty(STDERR_FILENO))
		return;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->stage = stage;
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
	p->on = pthread_create(&p->thread, NULL, progress_loop, p) == 0;
}

static void progress_stop(struct progress *p)
{
	if (!p->on)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	p->on = false;
}

int kf_cmd_submit(int argc, char **argv)
{
	const char *task_name = NULL, *backend = "cpu", *as = NULL, *db = NULL, *seed = NULL, *timeout = NULL,
		   *mem = NULL, *device = NULL, *gpus = NULL,
		   *deadline = NULL;
	bool json = false, help = false;
	const struct kf_cli_opt opts[] = {
		{ .name = "task", .short_name = 't', .arg = KF_CLI_VALUE, .value = &task_name },
		{ .name = "backend", .short_name = 'b', .arg = KF_CLI_VALUE, .value = &backend },
		{ .name = "as", .arg = KF_CLI_VALUE, .value = &as },
		{ .name = "db", .arg = KF_CLI_VALUE, .value = &db },
		{ .name = "seed", .short_name = 's', .arg = KF_CLI_VALUE, .value = &seed },
		{ .name = "call-timeout", .arg = KF_CLI_VALUE, .value = &timeout },
		{ .name = "mem-limit-mib", .arg = KF_CLI_VALUE, .value = &mem },
		{ .name = "device", .short_name = 'd', .arg = KF_CLI_VALUE, .value = &device },
		{ .name = "json", .short_name = 'j', .arg = KF_CLI_SWITCH, .flag = &json },
		{ .name = "deadline", .arg = KF_CLI_VALUE, .value = &deadline },
		{ .name = "gpus", .arg = KF_CLI_VALUE, .value = &gpus },
		KF_SUITE_OPT,
		{ .name = NULL },
	};
	const char *pos[KF_CLI_MAX_POSITIONAL];
	int n_pos = 0;
	kf_err err = { 0 };
	struct kf_task *task = NULL;
	struct kf_store *store = NULL;
	struct kf_peaks peaks = { 0 };
	char *source = NULL;
	cJSON *result = NULL;
	struct progress progress = { 0 };
	int rc;

	if (kf_cli_parse_opts(argc, argv, opts, pos, 1, &n_pos, &help, &err) != KF_OK)
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
	if (rc == KF_OK && gpus) { /* level-4 (multi-GPU) tasks: docs/multi-gpu.md */
		char *end;
		long g = strtol(gpus, &end, 10);
		if (*end || !*gpus || g < 2 || g > 8)
			rc = kf_errf(&err, KF_EINPUT, "--gpus must be a GPU count from 2 to 8, not '%s'", gpus);
		jo.gpus = (int)g;
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
	progress_start(&progress, "loading the task");
	if ((rc = kf_read_file(pos[0], KF_SUBMIT_MAX_SOURCE, &source, &len, &err)) != KF_OK)
		goto out;
	const char *nul = memchr(source, '\0', len);
	if (nul) {
		rc = kf_errf(&err, KF_EINPUT, "%s has a NUL byte at offset %zu: a kernel is C or CUDA source text", pos[0],
			     (size_t)(nul - source));
		goto out;
	}
	if ((rc = kf_task_find(NULL, task_name, &task, &err)) != KF_OK)
		goto out;
	if ((rc = kf_cli_open_db(kf_cli_db_path(db), false, &store, &err)) != KF_OK)
		goto out;
	/* The machine (and, for cuda, the device) is checked before anything is recorded: a backend that
	 * cannot run here leaves no submission without a verdict behind. */
	progress_set(&progress, "measuring the machine");
	if ((rc = kf_sol_peaks(store, jo.backend, jo.device, &peaks, &err)) != KF_OK)
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
	jo.store = store;
	jo.on_phase = progress_phase;
	jo.on_phase_ctx = &progress;
	char started[KF_STORE_TIMESTAMP_LEN], finished[KF_STORE_TIMESTAMP_LEN];
	kf_store_utc_now(started);
	progress_set(&progress, "compiling");
	if ((rc = kf_judge_evaluate(task, &peaks, source, len, &jo, &result, &err)) != KF_OK)
		goto out;
	kf_store_utc_now(finished);
	cJSON_AddStringToObject(result, "started_at", started);
	cJSON_AddStringToObject(result, "finished_at", finished);
	cJSON_AddNumberToObject(result, "submission_id", (double)id);
	int64_t eval_id = 0;
	progress_set(&progress, "recording");
	if ((rc = kf_store_add_evaluation(store, id, result, &eval_id, &err)) != KF_OK)
		goto out;
	progress_stop(&progress);
	cJSON_AddNumberToObject(result, "evaluation_id", (double)eval_id);
	if (json)
		kf_cli_print_json(result);
	else
		print_human(result, pos[0]);
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(result, "verdict"));
	rc = v && !strcmp(v, "ok") ? KF_EXIT_OK : !strcmp(v, "internal_error") ? KF_EXIT_INTERNAL : KF_EXIT_REJECTED;
	goto done;
out:
	progress_stop(&progress);
	rc = kf_cli_fail(&err);
done:
	cJSON_Delete(result);
	kf_sol_peaks_free(&peaks);
	kf_store_close(store);
	kf_task_free(task);
	free(source);
	return rc;
}
