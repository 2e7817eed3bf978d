/* Per-evaluation cost breakdown. CPU (issue 2), for a trivial kernel: compile cold, compile
 * cached, sandbox start (fork, namespaces, seccomp, load, ready), correctness battery and timing
 * loop. CUDA (issue 3), on the GPU machine, for each starter task's example kernel judged REPS
 * times in one process with one judge session (as `kforge run` judges a task's candidates): the
 * per-candidate overhead, everything but the compile and the timing loop, against its 0.6 s target. Prints medians and each target as a
 * measured ratio.
 * Usage: build/bench/eval_cost [REPS] | build/bench/eval_cost --backend cuda [REPS]
 * (run from the repository root, after make) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"
#include "db/store.h"
#include "eval/tasks/abi.h"
#include "eval/judge/area.h"
#include "eval/judge/judge.h"
#include "eval/judge/stats.h"
#include "sandbox/sandbox.h"

#define DEFAULT_REPS 10
#define FULL_EVAL_REPS 3
#define TARGET_CACHED_MS 10.0
#define TARGET_START_MS 50.0
#define SHM_BYTES (1u << 20)
#define CUDA_DEFAULT_REPS 5
#define TARGET_OVERHEAD_MS 600.0

static const char *const cuda_tasks[] = { "vector_add", "softmax_rows", "layernorm_bf16", "matmul_bf16" };

static const char *const kernel =
	"/* rep %d */\n"
	"int kf_launch(const float *x, const float *y, float *out, int n) {\n"
	"#pragma omp parallel for\n"
	"  for (int i = 0; i < n; i++) out[i] = x[i] + y[i];\n"
	"  return 0;\n}\n";

static void row(const char *name, double *ms, int n, double target)
{
	struct kf_stats s;
	kf_stats_compute(ms, n, &s);
	printf("%-26s %10.2f %10.2f %10.2f %4d", name, s.median, s.min, s.max, n);
	if (target > 0)
		printf("   target < %.0f ms: %s (%.2fx of budget)", target, s.median < target ? "PASS" : "FAIL",
		       s.median / target);
	printf("\n");
}

static void die(const kf_err *e)
{
	fprintf(stderr, "eval_cost: %s\n", e->msg);
	exit(3);
}

static double phase(const cJSON *res, const char *name)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "phases"), name);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* One task's example judged reps times; the first evaluation also pays for the judge's own CUDA
 * context and builds the session (trusted kernels, buffers, reference runners), so the
 * per-candidate figures are the medians of the later ones. */
static void cuda_task(const char *name, int reps, const struct kf_peaks *peaks)
{
	kf_err err;
	struct kf_task *t;
	char path[4096], *src = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "%s/examples/cuda/%s.cu", kf_home(), name);
	if (kf_task_find(NULL, name, &t, &err) != KF_OK || kf_read_file(path, 1u << 20, &src, &len, &err) != KF_OK)
		die(&err);
	double *over = calloc((size_t)reps, sizeof *over), *corr = calloc((size_t)reps, sizeof *corr);
	double *start = calloc((size_t)reps, sizeof *start), *ref = calloc((size_t)reps, sizeof *ref);
	double *timing = calloc((size_t)reps, sizeof *timing), first = 0;
	int n = 0;
	struct kf_judge_session *session = kf_judge_session_new();
	for (int r = 0; r < reps; r++) {
		struct kf_judge_opts jo;
		kf_judge_opts_default(&jo);
		jo.backend = KF_BACKEND_CUDA;
		jo.session = session;
		cJSON *res;
		int64_t t0 = kf_now_ns();
		if (kf_judge_evaluate(t, peaks, src, len, &jo, &res, &err) != KF_OK)
			die(&err);
		double total = kf_ns_to_ms(kf_now_ns() - t0);
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(res, "verdict"));
		if (strcmp(v, "ok") != 0) {
			fprintf(stderr, "eval_cost: the %s example got %s: %s\n", name, v,
				cJSON_GetStringValue(cJSON_GetObjectItem(res, "reason")));
			exit(3);
		}
		double o = total - phase(res, "compile_ms") - phase(res, "timing_ms");
		if (r == 0) {
			first = o;
		} else {
			over[n] = o;
			corr[n] = phase(res, "correctness_ms");
			start[n] = phase(res, "sandbox_start_ms");
			ref[n] = phase(res, "reference_ms");
			timing[n++] = phase(res, "timing_ms");
		}
		cJSON_Delete(res);
	}
	printf("%s\n", name);
	row("  first evaluation", &first, 1, 0);
	row("  trusted kernels+buffers", ref, n, 0);
	row("  sandbox start", start, n, 0);
	row("  correctness battery", corr, n, 0);
	row("  timing loop (excluded)", timing, n, 0);
	row("  per-candidate overhead", over, n, TARGET_OVERHEAD_MS);
	kf_judge_session_free(session);
	free(over), free(corr), free(start), free(ref), free(timing), free(src);
	kf_task_free(t);
}

static int cuda_main(int reps)
{
	char dir[] = "/tmp/kforge-bench-XXXXXX";
	if (!mkdtemp(dir))
		return 3;
	char db[4200];
	snprintf(db, sizeof db, "%s/bench.db", dir);
	kf_err err;
	struct kf_store *store;
	struct kf_peaks peaks;
	if (kf_store_open(db, &store, &err) != KF_OK || kf_sol_peaks(store, KF_BACKEND_CUDA, 0, &peaks, &err) != KF_OK)
		die(&err);
	printf("per-candidate overhead, CUDA backend (%s), %d evaluations per task in one process\n", peaks.device, reps);
	printf("overhead = whole evaluation - compile - timing loop; figures over evaluations 2..%d\n", reps);
	printf("%-26s %10s %10s %10s %4s\n", "stage", "median ms", "min ms", "max ms", "n");
	for (size_t i = 0; i < sizeof cuda_tasks / sizeof cuda_tasks[0]; i++)
		cuda_task(cuda_tasks[i], reps, &peaks);
	kf_sol_peaks_free(&peaks);
	kf_store_close(store);
	kf_rm_rf(dir);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--backend") && !strcmp(argv[2], "cuda")) {
		int reps = argc > 3 ? atoi(argv[3]) : CUDA_DEFAULT_REPS;
		return cuda_main(reps < 2 ? CUDA_DEFAULT_REPS : reps);
	}
	int reps = argc > 1 ? atoi(argv[1]) : DEFAULT_REPS;
	if (reps < 1)
		reps = DEFAULT_REPS;
	char dir[] = "/tmp/kforge-bench-XXXXXX";
	if (!mkdtemp(dir))
		return 3;
	setenv("KFORGE_CACHE", dir, 1);
	kf_err err;
	struct kf_task *t;
	if (kf_task_find(NULL, "vector_add", &t, &err) != KF_OK)
		die(&err);
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT, src = KF_BUF_INIT;
	kf_abi_header(t, KF_BACKEND_CPU, &hdr);
	kf_abi_shim(t, KF_BACKEND_CPU, &shim);
	double *cold = calloc((size_t)reps, sizeof *cold), *cached = calloc((size_t)reps, sizeof *cached);
	double *start = calloc((size_t)reps, sizeof *start);
	char so[4096] = "";
	for (int r = 0; r < reps; r++) {
		kf_buf_reset(&src);
		kf_buf_addf(&src, kernel, r);
		struct kf_compile_req req = { .backend = KF_BACKEND_CPU, .source = src.data, .source_len = src.len,
					      .header = hdr.data, .shim = shim.data };
		struct kf_compile_res res;
		if (kf_compile(&req, &res, &err) != KF_OK || res.verdict != KF_V_OK)
			die(&err);
		cold[r] = res.ms;
		kf_compile_res_free(&res);
		if (kf_compile(&req, &res, &err) != KF_OK || !res.cached)
			die(&err);
		cached[r] = res.ms;
		snprintf(so, sizeof so, "%s", res.so_path);
		kf_compile_res_free(&res);
	}
	const struct kf_area_ops *ops;
	struct kf_area *area;
	if (kf_area_ops_for(KF_BACKEND_CPU, &ops, &err) != KF_OK || ops->create(SHM_BYTES, 0, &area, &err) != KF_OK)
		die(&err);
	for (int r = 0; r < reps; r++) {
		struct kf_runner_opts o = { .backend = KF_BACKEND_CPU, .so_path = so, .call_timeout_s = 10,
					    .cpu_limit_s = 60, .mem_limit_bytes = 1ull << 30 };
		o.shm_fd = ops->runner_fd(area, &o.shm_bytes);
		struct kf_runner *run;
		struct kf_call_result died;
		int64_t t0 = kf_now_ns();
		if (kf_runner_start(&o, &run, &died, &err) != KF_OK || !run)
			die(&err);
		start[r] = kf_ns_to_ms(kf_now_ns() - t0);
		kf_runner_stop(run);
	}
	ops->destroy(area);
	char db[4200];
	snprintf(db, sizeof db, "%s/bench.db", dir);
	struct kf_store *store;
	struct kf_peaks peaks;
	if (kf_store_open(db, &store, &err) != KF_OK || kf_sol_peaks(store, KF_BACKEND_CPU, 0, &peaks, &err) != KF_OK)
		die(&err);
	double corr[FULL_EVAL_REPS], timing[FULL_EVAL_REPS], total[FULL_EVAL_REPS];
	for (int r = 0; r < FULL_EVAL_REPS; r++) {
		struct kf_judge_opts jo;
		kf_judge_opts_default(&jo);
		cJSON *res;
		int64_t t0 = kf_now_ns();
		if (kf_judge_evaluate(t, &peaks, src.data, src.len, &jo, &res, &err) != KF_OK)
			die(&err);
		total[r] = kf_ns_to_ms(kf_now_ns() - t0);
		cJSON *ph = cJSON_GetObjectItem(res, "phases");
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(res, "verdict"));
		if (strcmp(v, "ok") != 0) {
			fprintf(stderr, "eval_cost: the trivial kernel got %s: %s\n", v,
				cJSON_GetStringValue(cJSON_GetObjectItem(res, "reason")));
			return 3;
		}
		corr[r] = cJSON_GetNumberValue(cJSON_GetObjectItem(ph, "correctness_ms"));
		timing[r] = cJSON_GetNumberValue(cJSON_GetObjectItem(ph, "timing_ms"));
		cJSON_Delete(res);
	}
	printf("per-evaluation cost, trivial vector_add kernel, CPU backend (%s)\n", peaks.device);
	printf("%-26s %10s %10s %10s %4s\n", "stage", "median ms", "min ms", "max ms", "n");
	row("compile (cold)", cold, reps, 0);
	row("compile (cached)", cached, reps, TARGET_CACHED_MS);
	row("sandbox start", start, reps, TARGET_START_MS);
	row("correctness battery", corr, FULL_EVAL_REPS, 0);
	row("timing loop", timing, FULL_EVAL_REPS, 0);
	row("whole evaluation", total, FULL_EVAL_REPS, 0);
	kf_sol_peaks_free(&peaks);
	kf_store_close(store);
	kf_task_free(t);
	kf_rm_rf(dir);
	return 0;
}
