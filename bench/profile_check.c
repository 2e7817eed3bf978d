/* Profiler feedback end to end (issue 21), for bench/gpu-check.sh --profile and by hand:
 *
 * Part 1: `kforge run` (the kforge program next to this one, or $KFORGE_BIN) on vector_add against
 * the scripted loopback server's feedback-driven mode: round 1 gets a latency-bound kernel, the
 * refinement gets the fast one only when its feedback says "latency-bound". Prints the stored
 * profile of the kept candidate, the profile part of the refinement prompt, and the run's token
 * cost per refinement. Exit 1 unless the profile has a bound (on CUDA: and CUPTI's metrics) and the
 * refinement quoted it and got the fast kernel.
 * Part 2 (--hostile DIR, CUDA): every kernel of the hostile corpus (--sample: the first of each
 * expected verdict) is profiled (a profiled run in the runner jail), then judged; its verdict must
 * still be the one its header expects. Exit 1 otherwise.
 *
 * Usage: build/bench/profile_check [--backend cpu|cuda] [--hostile DIR [--sample]] [--db PATH]
 * KFORGE_HOME must point at the repository (tasks/, examples/, prompts/). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/profile_cost.h"
#include "agent/prompt.h"
#include "common/fs.h"
#include "eval/judge/judge.h"
#include "eval/judge/profile.h"

/* The Makefile builds each benchmark from one file, so the test server comes in as source. */
#include "tests/support/llm_server.c"

#define BOUND_MARKER "latency-bound"
#define SOURCE_MAX (1u << 20)
#define HOSTILE_CALL_TIMEOUT_S 3.0
#define HOSTILE_TIMING_BUDGET_S 0.5 /* the verdict is what is checked, not the time */
#define HOSTILE_MAX 64

extern char **environ;

/* Latency-bound vector_add kernels, nothing near a peak: the CPU one is the test server's
 * (kf_llm_slow_vector_add_cpu); this CUDA one has eight blocks for the whole array, a few percent of
 * the SMs' warps, a sliver of one wave. */
static const char slow_cuda[] =
	"__global__ static void add(const float *x, const float *y, float *out, int n)\n"
	"{\n"
	"\tfor (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
	"\t\tout[i] = x[i] + y[i];\n"
	"}\n"
	"\n"
	"extern \"C\" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)\n"
	"{\n"
	"\tadd<<<8, 256, 0, stream>>>(x, y, out, n);\n"
	"\treturn cudaGetLastError() != cudaSuccess;\n"
	"}\n";

static int run_kforge(const char *backend, const char *url, const char *db)
{
	char exe[PATH_MAX];
	const char *env = getenv("KFORGE_BIN");
	snprintf(exe, sizeof exe, "%s", env && *env ? env : "build/kforge");
	const char *argv[] = { exe, "run", "--task", "vector_add", "--backend", backend, "--model", "scripted",
			       "--samples", "1", "--rounds", "2", "--keep", "1", "--verify", "off", "--seeds", "1",
			       "--timing-budget", "0.5", "--base-url", url, "--db", db, NULL };
	pid_t pid;
	int err = posix_spawn(&pid, exe, NULL, NULL, (char *const *)argv, environ);
	if (err) {
		fprintf(stderr, "profile_check: cannot start %s: %s\n", exe, strerror(err));
		return -1;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Prints the run's stored profiles; *ok when one has a bound (and, on CUDA, CUPTI's DRAM share). */
static int print_profiles(struct kf_store *s, bool cuda, bool *ok, kf_err *err)
{
	sqlite3 *db = kf_store_db(s);
	sqlite3_stmt *st;
	*ok = false;
	if (sqlite3_prepare_v2(db, "SELECT e.candidate_id, p.profile FROM profiles p JOIN evaluations e ON "
				   "e.id = p.evaluation_id ORDER BY p.evaluation_id", -1, &st, NULL) != SQLITE_OK)
		return kf_store_fail(db, err, "reading profiles");
	while (sqlite3_step(st) == SQLITE_ROW) {
		cJSON *p = cJSON_Parse((const char *)sqlite3_column_text(st, 1));
		printf("stored profile of candidate %lld:\n", (long long)sqlite3_column_int64(st, 0));
		kf_profile_print(stdout, p, "  ");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "metrics");
		*ok = *ok || (cJSON_GetObjectItemCaseSensitive(p, "bound") &&
			      (!cuda || cJSON_GetObjectItemCaseSensitive(m, "dram_pct")));
		cJSON_Delete(p);
	}
	sqlite3_finalize(st);
	return KF_OK;
}

static int part_run(const char *backend, const char *db, kf_err *err)
{
	bool cuda = !strcmp(backend, "cuda");
	char path[PATH_MAX], *fast = NULL;
	snprintf(path, sizeof path, "%s/examples/%s/vector_add.%s", kf_home(), backend, cuda ? "cu" : "c");
	if (kf_read_file(path, SOURCE_MAX, &fast, NULL, err) != KF_OK)
		return err->code;
	struct kf_llm_server_config sc = { .backend = backend,
					   .slow_source = cuda ? slow_cuda : kf_llm_slow_vector_add_cpu,
					   .fast_source = fast, .bound_marker = BOUND_MARKER };
	struct kf_llm_server *srv = NULL;
	int rc = kf_llm_server_start(&sc, &srv, err);
	if (rc != KF_OK) {
		free(fast);
		return rc;
	}
	unlink(db);
	int code = run_kforge(backend, kf_llm_server_url(srv), db);
	char *feedback = kf_llm_server_last_feedback(srv);
	int fast_replies = kf_llm_server_replies(srv, KF_LLM_FAST);
	kf_llm_server_stop(srv);
	struct kf_store *s = NULL;
	bool profiled = false;
	struct kf_profile_cost cost = { 0 };
	if ((rc = kf_store_open(db, &s, err)) == KF_OK && (rc = print_profiles(s, cuda, &profiled, err)) == KF_OK)
		rc = kf_profile_cost(s, 1, &cost, err);
	kf_store_close(s);
	if (rc == KF_OK) {
		printf("refinement feedback as the model received it:\n%s\n", feedback ? feedback : "(no refinement was sent)");
		printf("kforge run exit %d; refinements quoting a profile: %d of %d, %.0f bytes (about %.0f tokens) each;"
		       " fast kernel sent: %s\n",
		       code, cost.profiled, cost.refinements, cost.bytes_mean, cost.tokens_mean, fast_replies ? "yes" : "no");
		bool pass = profiled && cost.profiled == 1 && fast_replies == 1;
		printf("profile check (%s): %s\n", backend, pass ? "PASS" : "FAIL");
		rc = pass ? KF_OK : kf_errf(err, KF_EINTERNAL, "the profile did not reach the refinement");
	}
	free(feedback);
	free(fast);
	return rc;
}

/* "task=NAME expect=VERDICT" from a corpus kernel's first line. */
static bool header_field(const char *text, const char *key, char *out, size_t len)
{
	const char *eol = strchr(text, '\n'), *p = strstr(text, key);
	if (!p || (eol && p > eol))
		return false;
	p += strlen(key);
	size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
	snprintf(out, len, "%.*s", (int)n, p);
	return n > 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .cu files of dir, sorted. */
static int list_kernels(const char *dir, char ***out, int *n, kf_err *err)
{
	DIR *d = opendir(dir);
	int cap = 0;
	*out = NULL;
	*n = 0;
	if (!d)
		return kf_errno(err, KF_EINPUT, "cannot read %s", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".cu"))
			continue;
		*out = kf_xgrow(*out, *n, &cap, sizeof **out);
		(*out)[(*n)++] = kf_xstrdup(e->d_name);
	}
	closedir(d);
	qsort(*out, (size_t)*n, sizeof **out, cmp_names);
	return KF_OK;
}

/* Whether an earlier kernel of the corpus already expects this verdict (--sample keeps one each). */
static bool seen_verdict(char seen[][64], int *n_seen, const char *expect)
{
	for (int i = 0; i < *n_seen; i++)
		if (!strcmp(seen[i], expect))
			return true;
	if (*n_seen < HOSTILE_MAX)
		snprintf(seen[(*n_seen)++], 64, "%s", expect);
	return false;
}

static int part_hostile(const char *dir, bool sample, const char *db, kf_err *err)
{
	char seen[HOSTILE_MAX][64];
	int n_seen = 0;
	struct kf_store *s = NULL;
	struct kf_peaks peaks = { 0 };
	int rc = kf_store_open(db, &s, err), checked = 0, failed = 0;
	if (rc == KF_OK)
		rc = kf_sol_peaks(s, KF_BACKEND_CUDA, 0, &peaks, err);
	char **names = NULL;
	int n = 0;
	if (rc == KF_OK)
		rc = list_kernels(dir, &names, &n, err);
	for (int i = 0; i < n && i < HOSTILE_MAX && rc == KF_OK; i++) {
		char path[PATH_MAX], task_name[64], expect[64];
		char *src = NULL;
		size_t len = 0;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if ((rc = kf_read_file(path, SOURCE_MAX, &src, &len, err)) != KF_OK)
			break;
		struct kf_task *t = NULL;
		if (!header_field(src, "task=", task_name, sizeof task_name) || !header_field(src, "expect=", expect, sizeof expect) ||
		    (sample && seen_verdict(seen, &n_seen, expect)) || kf_task_find(NULL, task_name, &t, err) != KF_OK) {
			free(src);
			continue;
		}
		struct kf_profile_opts po;
		kf_profile_opts_default(&po);
		po.backend = KF_BACKEND_CUDA;
		po.call_timeout_s = HOSTILE_CALL_TIMEOUT_S;
		cJSON *profile = NULL, *res = NULL;
		struct kf_judge_opts jo;
		kf_judge_opts_default(&jo);
		jo.backend = KF_BACKEND_CUDA;
		jo.call_timeout_s = HOSTILE_CALL_TIMEOUT_S;
		jo.timing_budget_s = HOSTILE_TIMING_BUDGET_S;
		jo.store = s;
		rc = kf_profile_candidate(t, &peaks, src, len, NULL, &po, &profile, err);
		if (rc == KF_OK)
			rc = kf_judge_evaluate(t, &peaks, src, len, &jo, &res, err);
		if (rc == KF_OK) {
			const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "verdict"));
			const char *perr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(profile, "error"));
			bool same = got && !strcmp(got, expect);
			checked++;
			failed += !same;
			printf("%-44s expect %-18s got %-18s profiled run: %s\n", names[i], expect, got ? got : "?",
			       perr ? perr : "profiled");
		}
		cJSON_Delete(profile);
		cJSON_Delete(res);
		kf_task_free(t);
		free(src);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	kf_sol_peaks_free(&peaks);
	kf_store_close(s);
	if (rc == KF_OK) {
		printf("hostile corpus with profiling: %d of %d verdicts as expected: %s\n", checked - failed, checked,
		       failed || !checked ? "FAIL" : "PASS");
		if (failed || !checked)
			rc = kf_errf(err, KF_EINTERNAL, "%d hostile verdicts changed", failed);
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *backend = "cpu", *hostile = NULL, *db = "/tmp/kforge-profile-check.db";
	bool sample = false;
	for (int i = 1; i < argc; i++) {
		bool has_value = i + 1 < argc;
		if (!strcmp(argv[i], "--sample"))
			sample = true;
		else if (!strcmp(argv[i], "--backend") && has_value)
			backend = argv[++i];
		else if (!strcmp(argv[i], "--hostile") && has_value)
			hostile = argv[++i];
		else if (!strcmp(argv[i], "--db") && has_value)
			db = argv[++i];
		else {
			fprintf(stderr, "usage: profile_check [--backend cpu|cuda] [--hostile DIR [--sample]] [--db PATH]\n");
			return 2;
		}
	}
	kf_err err = { 0 };
	int rc = part_run(backend, db, &err);
	if (rc == KF_OK && hostile)
		rc = part_hostile(hostile, sample, db, &err);
	if (rc != KF_OK)
		fprintf(stderr, "profile_check: %s\n", err.msg);
	return rc == KF_OK ? 0 : 1;
}
