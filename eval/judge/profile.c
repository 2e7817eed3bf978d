/* Profiles of judged candidates (see profile.h): the profiled run, the CPU's counters, the
 * compiler's vectorisation report, the bound, and the `profiles` table. */
#include "eval/judge/profile.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/version.h"
#include "eval/judge/area.h"
#include "eval/judge/judge.h"
#include "eval/judge/judge_common.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/tensor.h"
#include "sandbox/sandbox.h"

#define PROFILE_DEFAULT_CALLS 3
#define PROFILE_CALL_TIMEOUT_S 60.0 /* CUDA replays a call once per profiler pass */
#define PROFILE_BUF_ALIGN 4096
#define PROFILE_MAX_THREADS 256
#define PROFILE_MISSED_KEPT 3
#define PERCENT 100.0

/* The judge's limits, with room for a call replayed once per profiler pass. */
void kf_profile_opts_default(struct kf_profile_opts *o)
{
	struct kf_judge_opts jo;
	kf_judge_opts_default(&jo);
	memset(o, 0, sizeof *o);
	o->backend = KF_BACKEND_CPU;
	o->calls = PROFILE_DEFAULT_CALLS;
	o->call_timeout_s = jo.call_timeout_s > PROFILE_CALL_TIMEOUT_S ? jo.call_timeout_s : PROFILE_CALL_TIMEOUT_S;
	o->cpu_limit_s = jo.cpu_limit_s;
	o->mem_limit_bytes = jo.mem_limit_bytes;
}

/* ---- the compiler's report ---- */

struct loop_seen {
	int line;
	bool vectorised;
	char why[96];
};

static struct loop_seen *loop_at(struct loop_seen *loops, int *n, int max, int line)
{
	for (int i = 0; i < *n; i++)
		if (loops[i].line == line)
			return &loops[i];
	if (*n >= max)
		return NULL;
	loops[*n] = (struct loop_seen){ .line = line };
	return &loops[(*n)++];
}

#define REPORT_MAX_LOOPS 256

void kf_profile_vector_report(const char *log, const char *file, cJSON *metrics)
{
	struct loop_seen loops[REPORT_MAX_LOOPS];
	int n = 0, last_missed = -1;
	size_t flen = strlen(file);
	for (const char *p = log ? log : ""; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
		p = eol ? eol + 1 : p + len;
		/* "candidate.c:12:5: optimized: loop vectorized using 32 byte vectors" */
		const char *at = strstr(line, file);
		if (!at || (at != line && at[-1] != '/') || at[flen] != ':')
			continue;
		int lno = atoi(at + flen + 1);
		if (lno <= 0)
			continue;
		bool vec = strstr(line, "optimized: loop vectorized") != NULL;
		bool missed = strstr(line, "missed: couldn't vectorize loop") != NULL;
		const char *why = strstr(line, "missed: not vectorized: ");
		/* GCC gives the reason on the next line, at the statement that stopped it. */
		if (why && last_missed >= 0 && !loops[last_missed].why[0]) {
			why += strlen("missed: not vectorized: ");
			int k = (int)strlen(why);
			while (k && (why[k - 1] == '.' || why[k - 1] == ' '))
				k--;
			snprintf(loops[last_missed].why, sizeof loops[last_missed].why, "%.*s (line %d)", k, why, lno);
		}
		last_missed = -1;
		struct loop_seen *l = vec || missed ? loop_at(loops, &n, REPORT_MAX_LOOPS, lno) : NULL;
		if (!l)
			continue;
		l->vectorised = l->vectorised || vec;
		if (missed && !l->vectorised)
			last_missed = (int)(l - loops);
	}
	if (!n)
		return;
	int vec = 0;
	cJSON *missed = cJSON_CreateArray();
	for (int i = 0; i < n; i++) {
		vec += loops[i].vectorised;
		if (!loops[i].vectorised && cJSON_GetArraySize(missed) < PROFILE_MISSED_KEPT) {
			cJSON *m = cJSON_CreateObject();
			cJSON_AddNumberToObject(m, "line", loops[i].line);
			cJSON_AddStringToObject(m, "why", loops[i].why[0] ? loops[i].why : "not vectorized");
			cJSON_AddItemToArray(missed, m);
		}
	}
	cJSON_AddNumberToObject(metrics, "loops", n);
	cJSON_AddNumberToObject(metrics, "vector_loops", vec);
	cJSON_AddNumberToObject(metrics, "vector_share", (double)vec / n);
	cJSON_AddItemToObject(metrics, "missed_loops", missed);
}

/* ---- the CPU's counters ---- */

enum counter { C_TASK_CLOCK, C_INSTRUCTIONS, C_CYCLES, C_CACHE_REFS, C_CACHE_MISSES, C_COUNT };

static const struct {
	uint32_t type;
	uint64_t config;
} counter_kind[C_COUNT] = {
	[C_TASK_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	[C_INSTRUCTIONS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	[C_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[C_CACHE_REFS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	[C_CACHE_MISSES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
};

struct counters {
	int fd[PROFILE_MAX_THREADS][C_COUNT];
	int n_threads;
	bool hw;          /* hardware counters opened on every thread */
	char why_sw[128]; /* why not even the task clock could be counted */
	char why_hw[128];
};

static int perf_open(pid_t tid, enum counter c)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = counter_kind[c].type;
	a.config = counter_kind[c].config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
}

/* Every thread of the runner, counted from here (the judge's side of the jail): the candidate can
 * neither see nor forge these counts. Threads the candidate starts later are not counted. */
static void counters_open(struct counters *k, pid_t pid)
{
	memset(k->fd, -1, sizeof k->fd);
	k->hw = true;
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
	DIR *d = pid > 0 ? opendir(dir) : NULL;
	if (!d) {
		snprintf(k->why_sw, sizeof k->why_sw, "cannot list the runner's threads");
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) && k->n_threads < PROFILE_MAX_THREADS) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid <= 0)
			continue;
		int *fd = k->fd[k->n_threads];
		if ((fd[C_TASK_CLOCK] = perf_open(tid, C_TASK_CLOCK)) < 0) {
			snprintf(k->why_sw, sizeof k->why_sw, "perf_event_open: %s", strerror(errno));
			break;
		}
		for (int c = C_INSTRUCTIONS; c < C_COUNT && k->hw; c++)
			if ((fd[c] = perf_open(tid, (enum counter)c)) < 0) {
				k->hw = false;
				snprintf(k->why_hw, sizeof k->why_hw, "perf_event_open: %s", strerror(errno));
			}
		k->n_threads++;
	}
	closedir(d);
}

static void counters_ioctl(struct counters *k, unsigned long req)
{
	for (int i = 0; i < k->n_threads; i++)
		for (int c = 0; c < C_COUNT; c++)
			if (k->fd[i][c] >= 0)
				ioctl(k->fd[i][c], req, 0);
}

static void counters_sum(const struct counters *k, uint64_t sum[C_COUNT])
{
	memset(sum, 0, sizeof(uint64_t) * C_COUNT);
	for (int i = 0; i < k->n_threads; i++)
		for (int c = 0; c < C_COUNT; c++) {
			uint64_t v = 0;
			if (k->fd[i][c] >= 0 && read(k->fd[i][c], &v, sizeof v) == (ssize_t)sizeof v)
				sum[c] += v;
		}
}

static void counters_close(struct counters *k)
{
	for (int i = 0; i < k->n_threads; i++)
		for (int c = 0; c < C_COUNT; c++)
			if (k->fd[i][c] >= 0)
				close(k->fd[i][c]);
}

static void cpu_metrics(const struct counters *k, int64_t wall_ns, pid_t pid, cJSON *metrics, cJSON *unavailable)
{
	if (k->why_sw[0] || !k->n_threads) {
		cJSON_AddStringToObject(unavailable, "counters", k->why_sw[0] ? k->why_sw : "no runner thread to count");
		return;
	}
	uint64_t v[C_COUNT];
	counters_sum(k, v);
	cpu_set_t set;
	int cores = sched_getaffinity(pid, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (wall_ns > 0)
		cJSON_AddNumberToObject(metrics, "cores_used", (double)v[C_TASK_CLOCK] / (double)wall_ns);
	cJSON_AddNumberToObject(metrics, "cores", cores);
	cJSON_AddNumberToObject(metrics, "threads", k->n_threads);
	if (!k->hw) {
		cJSON_AddStringToObject(unavailable, "hardware_counters", k->why_hw);
		return;
	}
	if (v[C_CYCLES])
		cJSON_AddNumberToObject(metrics, "ipc", (double)v[C_INSTRUCTIONS] / (double)v[C_CYCLES]);
	if (v[C_CACHE_REFS])
		cJSON_AddNumberToObject(metrics, "cache_miss_pct", PERCENT * (double)v[C_CACHE_MISSES] / (double)v[C_CACHE_REFS]);
	if (v[C_INSTRUCTIONS])
		cJSON_AddNumberToObject(metrics, "cache_misses_per_kinst", 1000.0 * (double)v[C_CACHE_MISSES] /
										   (double)v[C_INSTRUCTIONS]);
}

/* ---- the CUDA runner's report ---- */

cJSON *kf_profile_from_output(const char *output)
{
	const char *last = NULL;
	for (const char *p = output ? output : ""; (p = strstr(p, KF_PROFILE_LINE_MARK)); p++)
		if (p == output || p[-1] == '\n')
			last = p;
	if (!last)
		return NULL;
	last += strlen(KF_PROFILE_LINE_MARK);
	size_t n = strcspn(last, "\n");
	cJSON *j = cJSON_ParseWithLength(last, n);
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

/* ---- the bound ---- */

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static double max_of(double a, double b)
{
	if (isnan(a))
		return b;
	return isnan(b) || a >= b ? a : b;
}

/* What stands in for a device counter the profiler could not read (a driver that keeps counters
 * to administrators): the judge's time against the peaks, the occupancy calculator's figure. */
static const char *const stand_ins[][2] = {
	{ "dram_pct", "bw_pct" },
	{ "tensor_pct", "flop_pct" },
	{ "sm_pct", "flop_pct" },
	{ "occupancy_pct", "occupancy_theoretical_pct" },
};

static void add_keys(cJSON *profile, const char *const *names, int n)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(profile, "metrics");
	cJSON *key = cJSON_CreateArray();
	for (int i = 0; i < n; i++) {
		const char *name = names[i];
		for (size_t k = 0; k < sizeof stand_ins / sizeof stand_ins[0]; k++)
			if (!cJSON_GetObjectItemCaseSensitive(m, name) && !strcmp(name, stand_ins[k][0]))
				name = stand_ins[k][1];
		bool dup = false;
		const cJSON *have;
		cJSON_ArrayForEach(have, key)
			dup = dup || !strcmp(have->valuestring, name);
		if (!dup && cJSON_GetObjectItemCaseSensitive(m, name))
			cJSON_AddItemToArray(key, cJSON_CreateString(name));
	}
	cJSON_AddItemToObject(profile, "key", key);
}

void kf_profile_classify(cJSON *profile)
{
	cJSON_DeleteItemFromObjectCaseSensitive(profile, "bound");
	cJSON_DeleteItemFromObjectCaseSensitive(profile, "bound_why");
	cJSON_DeleteItemFromObjectCaseSensitive(profile, "key");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(profile, "metrics");
	const char *backend = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(profile, "backend"));
	bool gpu = backend && !strcmp(backend, "cuda");
	/* Measured shares where the profiler gave them, the judge's time against the peaks otherwise. */
	double mem = max_of(num(m, "dram_pct"), num(m, "l2_pct"));
	if (isnan(mem))
		mem = num(m, "bw_pct");
	double comp = max_of(num(m, "sm_pct"), num(m, "tensor_pct"));
	if (isnan(comp))
		comp = num(m, "flop_pct");
	double sfu = num(m, "sfu_pct");
	const char *bound = "latency";
	double top = max_of(max_of(mem, comp), sfu);
	if (!isnan(top) && top >= KF_PROFILE_SATURATED_PCT)
		bound = top == mem ? "memory" : top == comp ? "compute" : "sfu";
	char why[256], sfu_part[32] = "";
	if (gpu && !isnan(sfu)) /* only where it was measured: CPUs have no special-function units */
		snprintf(sfu_part, sizeof sfu_part, ", SFU at %.0f%%", sfu);
	snprintf(why, sizeof why, "memory at %.0f%%, compute at %.0f%%%s of peak; %s", isnan(mem) ? 0 : mem,
		 isnan(comp) ? 0 : comp, sfu_part,
		 strcmp(bound, "latency") ? "that unit is the limit" : "none near saturation");
	cJSON_AddStringToObject(profile, "bound", bound);
	cJSON_AddStringToObject(profile, "bound_why", why);
	/* The two or three numbers that say what to change for this bound, in order. */
	static const char *const gpu_keys[][3] = {
		{ "dram_pct", "l2_pct", "bank_conflict_pct" },          /* memory */
		{ "tensor_pct", "sm_pct", "occupancy_pct" },            /* compute */
		{ "sfu_pct", "sm_pct", "occupancy_pct" },               /* sfu */
		{ "occupancy_pct", "top_stall", "waves" },              /* latency */
	};
	static const char *const cpu_keys[][3] = {
		{ "bw_pct", "cache_miss_pct", "cores_used" },
		{ "flop_pct", "vector_share", "ipc" },
		{ "flop_pct", "vector_share", "ipc" },
		{ "cores_used", "vector_share", "ipc" },
	};
	int which = !strcmp(bound, "memory") ? 0 : !strcmp(bound, "compute") ? 1 : !strcmp(bound, "sfu") ? 2 : 3;
	add_keys(profile, gpu ? gpu_keys[which] : cpu_keys[which], 3);
}

/* ---- the profiled run ---- */

struct run {
	const struct kf_task *t;
	const struct kf_profile_opts *o;
	const struct kf_area_ops *ops;
	struct kf_area *area;
	struct kf_runner *runner;
	char so_path[PATH_MAX];
	char *log;
	size_t off[KF_MAX_TENSORS];
};

static int n_tensors(const struct kf_task *t)
{
	return t->n_inputs + t->n_outputs;
}

static const char *const cpu_report_flags[] = { "-fopt-info-vec-optimized", "-fopt-info-vec-missed", NULL };

/* The judge's own compile (the same flags, so the same code) with the compiler's report added;
 * *why is set when it does not build. */
static int compile(struct run *r, const char *source, size_t len, char *why, size_t why_len, kf_err *err)
{
	struct kf_compile_res res;
	int rc = kf_judge_compile(r->t, r->o->backend, r->o->device, source, len,
				  r->o->backend == KF_BACKEND_CPU ? cpu_report_flags : NULL, &res, err);
	if (rc != KF_OK)
		return rc;
	if (res.verdict != KF_V_OK)
		snprintf(why, why_len, "it does not build: %s", res.reason);
	snprintf(r->so_path, sizeof r->so_path, "%s", res.so_path);
	r->log = res.log;
	res.log = NULL;
	kf_compile_res_free(&res);
	return KF_OK;
}

/* The benchmark shape's inputs, drawn from the task's distributions, in an area of the judge's kind. */
static int prepare(struct run *r, const struct kf_shape *s, kf_err *err)
{
	const struct kf_task *t = r->t;
	size_t total = 0;
	for (int i = 0; i < n_tensors(t); i++) {
		size_t bytes = kf_task_tensor_bytes(t, i, s);
		r->off[i] = total;
		total += (bytes + PROFILE_BUF_ALIGN - 1) / PROFILE_BUF_ALIGN * PROFILE_BUF_ALIGN;
	}
	if (r->ops->create(total ? total : PROFILE_BUF_ALIGN, r->o->device, &r->area, err) != KF_OK)
		return err->code;
	struct kf_sampler *sampler = kf_sampler_new();
	kf_rng rng;
	kf_rng_seed(&rng, r->o->seed);
	int rc = KF_OK;
	for (int i = 0; i < t->n_inputs && rc == KF_OK; i++) {
		int64_t n = kf_task_numel(t, i, s);
		size_t bytes = (size_t)n * kf_dtype_size(t->tensors[i].dtype);
		const struct kf_dist d = kf_task_dist(t, i, NULL, s);
		/* Where the data lives when the area can (a GPU's benchmark shapes are gigabytes). */
		if (r->ops->fill) {
			rc = r->ops->fill(r->area, r->off[i], t->tensors[i].dtype, n, &d, kf_rng_next(&rng), err);
			continue;
		}
		void *host = kf_xmalloc(bytes ? bytes : 1);
		kf_tensor_fill(sampler, &rng, &d, t->tensors[i].dtype, host, n);
		rc = r->ops->upload(r->area, r->off[i], host, bytes, err);
		free(host);
	}
	kf_sampler_free(sampler);
	if (rc == KF_OK)
		rc = r->ops->sync(r->area, err);
	return rc;
}

static int call(struct run *r, const struct kf_shape *s, int64_t *wall_ns, char *why, size_t why_len, kf_err *err)
{
	long long ints[KF_TASK_MAX_INTS];
	int n_ints = kf_task_call_ints(r->t, s, ints);
	struct kf_call_result cr;
	if (kf_runner_call(r->runner, r->off, n_tensors(r->t), ints, n_ints, &cr, err) != KF_OK)
		return err->code;
	if (cr.status == KF_CALL_DIED)
		snprintf(why, why_len, "the profiled run died: %s: %s", kf_verdict_name(cr.verdict), cr.reason);
	else if (cr.status == KF_CALL_FAILED)
		snprintf(why, why_len, "kf_launch returned %d in the profiled run", cr.rc);
	*wall_ns += cr.wall_ns;
	return KF_OK;
}

/* The shares of peak bandwidth and arithmetic that the judge's own median time implies. */
static void model_metrics(const struct kf_task *t, const struct kf_shape *s, const struct kf_peaks *peaks,
			  const cJSON *judge_result, cJSON *metrics)
{
	double ms = num(judge_result, "time_ms");
	if (isnan(ms) || ms <= 0)
		return;
	double secs = ms / 1e3;
	if (peaks->bw_bytes_s > 0)
		cJSON_AddNumberToObject(metrics, "bw_pct", PERCENT * kf_task_bytes(t, s) / secs / peaks->bw_bytes_s);
	double flops = peaks->flops_s[t->compute_dtype];
	if (flops > 0)
		cJSON_AddNumberToObject(metrics, "flop_pct", PERCENT * kf_task_flops(t, s) / secs / flops);
	cJSON_AddNumberToObject(metrics, "time_ms", ms);
}

/* CUDA replays its one profiled call once per profiler pass. */
static int profiled_calls(const struct kf_profile_opts *o)
{
	return o->backend == KF_BACKEND_CPU || o->calls < 1 ? o->calls : 1;
}

static int profiled_run(struct run *r, const struct kf_shape *s, cJSON *metrics, cJSON *unavailable, char *why,
			size_t why_len, kf_err *err)
{
	const struct kf_profile_opts *o = r->o;
	struct kf_runner_opts ro = { .backend = o->backend, .so_path = r->so_path, .device = o->device,
				     .call_timeout_s = o->call_timeout_s, .cpu_limit_s = o->cpu_limit_s,
				     .mem_limit_bytes = o->mem_limit_bytes, .vendor_libs = r->t->vendor_libs_allowed,
				     .profile = true };
	ro.shm_fd = r->ops->runner_fd(r->area, &ro.shm_bytes);
	if (r->ops->uuid)
		r->ops->uuid(o->device, ro.visible_gpu, sizeof ro.visible_gpu);
	int ro_fd = r->ops->runner_ro_fd ? r->ops->runner_ro_fd(r->area, &ro.shm_ro_bytes) : -1;
	ro.shm_ro_fd = ro_fd;
	struct kf_call_result died;
	if (kf_runner_start(&ro, &r->runner, &died, err) != KF_OK)
		return err->code;
	if (!r->runner) {
		snprintf(why, why_len, "the candidate could not start in the profiled run: %s", died.reason);
		return KF_OK;
	}
	/* CPU: one warm-up call first (page faults, OpenMP's threads). CUDA: the runner profiles exactly
	 * one call (its profiler session is set up before the filter), module loading left out of the
	 * device's counters anyway. */
	int64_t warm = 0, wall = 0;
	int rc = o->backend == KF_BACKEND_CPU ? call(r, s, &warm, why, why_len, err) : KF_OK;
	if (rc != KF_OK || why[0])
		return rc;
	struct counters k = { .n_threads = 0 };
	if (o->backend == KF_BACKEND_CPU) {
		counters_open(&k, kf_runner_pid(r->runner));
		counters_ioctl(&k, PERF_EVENT_IOC_RESET);
		counters_ioctl(&k, PERF_EVENT_IOC_ENABLE);
	}
	for (int i = 0; i < profiled_calls(o) && rc == KF_OK && !why[0]; i++)
		rc = call(r, s, &wall, why, why_len, err);
	if (o->backend == KF_BACKEND_CPU) {
		counters_ioctl(&k, PERF_EVENT_IOC_DISABLE);
		if (rc == KF_OK && !why[0])
			cpu_metrics(&k, wall, kf_runner_pid(r->runner), metrics, unavailable);
		counters_close(&k);
	} else if (rc == KF_OK && !why[0]) {
		cJSON *rep = kf_profile_from_output(kf_runner_output(r->runner));
		const cJSON *item;
		cJSON_ArrayForEach(item, rep) {
			cJSON *target = !strcmp(item->string, "unavailable") ? unavailable : metrics;
			if (cJSON_IsObject(item) && target == unavailable) {
				const cJSON *u;
				cJSON_ArrayForEach(u, item)
					cJSON_AddItemToObject(unavailable, u->string, cJSON_Duplicate(u, true));
			} else {
				cJSON_AddItemToObject(metrics, item->string, cJSON_Duplicate(item, true));
			}
		}
		if (!rep)
			cJSON_AddStringToObject(unavailable, "cupti", "the runner reported no profile (CUPTI missing or refused)");
		cJSON_Delete(rep);
	}
	return rc;
}

int kf_profile_candidate(const struct kf_task *t, const struct kf_peaks *peaks, const char *source, size_t len,
			 const cJSON *judge_result, const struct kf_profile_opts *o, cJSON **profile, kf_err *err)
{
	*profile = NULL;
	int64_t t0 = kf_now_ns();
	struct run r = { .t = t, .o = o };
	const struct kf_shape *s = &t->bench[o->backend];
	char why[512] = "";
	cJSON *p = cJSON_CreateObject(), *metrics = cJSON_CreateObject(), *unavailable = cJSON_CreateObject();
	kf_buf shape = KF_BUF_INIT;
	kf_task_shape_format(t, s, &shape);
	cJSON_AddStringToObject(p, "backend", kf_backend_name(o->backend));
	cJSON_AddStringToObject(p, "shape", shape.data ? shape.data : "");
	cJSON_AddNumberToObject(p, "calls", profiled_calls(o));
	kf_buf_free(&shape);
	kf_err area_why;
	int rc = KF_OK;
	if (kf_area_ops_for(o->backend, &r.ops, &area_why) != KF_OK)
		snprintf(why, sizeof why, "this machine cannot run %s kernels: %s", kf_backend_name(o->backend), area_why.msg);
	if (!why[0])
		rc = compile(&r, source, len, why, sizeof why, err);
	if (rc == KF_OK && !why[0] && o->backend == KF_BACKEND_CPU)
		kf_profile_vector_report(r.log, "candidate.c", metrics);
	if (rc == KF_OK && !why[0])
		rc = prepare(&r, s, err);
	if (rc == KF_OK && !why[0])
		rc = profiled_run(&r, s, metrics, unavailable, why, sizeof why, err);
	kf_runner_stop(r.runner);
	if (r.ops && r.area)
		r.ops->destroy(r.area);
	free(r.log);
	if (rc != KF_OK) {
		cJSON_Delete(p);
		cJSON_Delete(metrics);
		cJSON_Delete(unavailable);
		return rc;
	}
	model_metrics(t, s, peaks, judge_result, metrics);
	cJSON_AddItemToObject(p, "metrics", metrics);
	cJSON_AddItemToObject(p, "unavailable", unavailable);
	cJSON_AddNumberToObject(p, "seconds", (double)(kf_now_ns() - t0) / 1e9);
	if (why[0])
		cJSON_AddStringToObject(p, "error", why);
	else
		kf_profile_classify(p);
	*profile = p;
	return KF_OK;
}

/* ---- the store ---- */

int kf_profile_put(struct kf_store *s, int64_t evaluation_id, const cJSON *profile, double seconds, kf_err *err)
{
	sqlite3 *db = kf_store_db(s);
	char *text = cJSON_PrintUnformatted(profile);
	const char *backend = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(profile, "backend"));
	sqlite3_stmt *st = NULL;
	int rc = kf_store_begin(s, err);
	if (rc == KF_OK && sqlite3_prepare_v2(db,
			"INSERT OR REPLACE INTO profiles (evaluation_id, backend, profile, seconds, kforge_version) "
			"VALUES (?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		rc = kf_store_fail(db, err, "storing a profile");
	if (rc == KF_OK) {
		sqlite3_bind_int64(st, 1, evaluation_id);
		sqlite3_bind_text(st, 2, backend ? backend : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, text, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 4, seconds);
		sqlite3_bind_text(st, 5, KF_VERSION_STRING, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = kf_store_fail(db, err, "storing a profile");
	}
	sqlite3_finalize(st);
	if (rc == KF_OK)
		rc = kf_store_commit(s, err);
	else
		kf_store_rollback(s);
	free(text);
	return rc;
}

static int read_profile(struct kf_store *s, const char *sql, int64_t id, int64_t *evaluation_id, cJSON **out,
			kf_err *err)
{
	sqlite3 *db = kf_store_db(s);
	sqlite3_stmt *st = NULL;
	*out = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return kf_store_fail(db, err, "reading a profile");
	sqlite3_bind_int64(st, 1, id);
	int step = sqlite3_step(st), rc = KF_OK;
	if (step == SQLITE_ROW) {
		if (evaluation_id)
			*evaluation_id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			*out = cJSON_Parse((const char *)sqlite3_column_text(st, 1));
	} else if (step != SQLITE_DONE) {
		rc = kf_store_fail(db, err, "reading a profile");
	}
	sqlite3_finalize(st);
	return rc;
}

int kf_profile_get(struct kf_store *s, int64_t evaluation_id, cJSON **out, kf_err *err)
{
	return read_profile(s, "SELECT evaluation_id, profile FROM profiles WHERE evaluation_id = ?", evaluation_id, NULL,
			    out, err);
}

int kf_profile_latest(struct kf_store *s, int64_t candidate_id, int64_t *evaluation_id, cJSON **out, kf_err *err)
{
	*evaluation_id = 0;
	return read_profile(s,
			    "SELECT e.id, p.profile FROM evaluations e LEFT JOIN profiles p ON p.evaluation_id = e.id "
			    "WHERE e.candidate_id = ? ORDER BY e.id DESC LIMIT 1",
			    candidate_id, evaluation_id, out, err);
}

int kf_profile_attach(struct kf_store *s, cJSON *candidate, kf_err *err)
{
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(candidate, "evaluations")) {
		double id = num(e, "evaluation_id");
		cJSON *p = NULL;
		if (!isnan(id) && kf_profile_get(s, (int64_t)id, &p, err) != KF_OK)
			return err->code;
		if (p)
			cJSON_AddItemToObject(e, "profile", p);
	}
	return KF_OK;
}

void kf_profile_print(FILE *f, const cJSON *profile, const char *indent)
{
	const char *error = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(profile, "error"));
	if (error) {
		fprintf(f, "%sprofile: none (%s)\n", indent, error);
		return;
	}
	fprintf(f, "%sprofile (%s, %s): %s-bound; %s\n", indent,
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(profile, "backend")),
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(profile, "shape")),
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(profile, "bound")),
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(profile, "bound_why")));
	const cJSON *m;
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(profile, "metrics")) {
		if (cJSON_IsNumber(m)) {
			fprintf(f, "%s  %s: %.3g\n", indent, m->string, m->valuedouble);
			continue;
		}
		char *v = cJSON_PrintUnformatted(m);
		fprintf(f, "%s  %s: %s\n", indent, m->string, v);
		free(v);
	}
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(profile, "unavailable"))
		fprintf(f, "%s  unavailable: %s (%s)\n", indent, m->string, cJSON_GetStringValue(m));
}
