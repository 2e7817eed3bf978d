/* Weak verifiers (see verify.h): the extra-trial harness (a candidate in a runner beside the task's
 * oracle and reference), the verifiers that read the judge's record, those that run the candidate
 * again, the static checks, consensus over a task's candidates, and compute-sanitizer for CUDA. */
#include "eval/rank/verify.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/csource.h"
#include "common/fs.h"
#include "common/rng.h"
#include "common/sha256.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/multi.h"
#include "eval/judge/judge.h"
#include "eval/judge/judge_common.h"
#include "eval/judge/area.h"
#include "eval/judge/compare.h"
#include "eval/tasks/tensor.h"
#include "eval/judge/trusted.h"
#include "sandbox/jail.h"
#include "sandbox/sandbox.h"

#define KF_VERIFY_DEFAULT_RAGGED_SEEDS 2
#define KF_VERIFY_DEFAULT_HIDDEN_SEEDS 3
#define KF_VERIFY_DEFAULT_STRESS_SEEDS 2
#define KF_VERIFY_DEFAULT_DETERMINISM_RUNS 3
#define KF_VERIFY_DEFAULT_MARGIN_MAX 0.5
#define KF_VERIFY_DEFAULT_MAX_RSE 0.05
#define KF_VERIFY_DEFAULT_RSE_RATIO 3.0
#define KF_VERIFY_DEFAULT_CLOCK_EXCESS 0.25
#define KF_VERIFY_DEFAULT_PROBE_BLOCKS 256
/* Sees an error on 0.5% of an output's elements with probability 1 - 0.995^512 = 0.92. */
#define KF_VERIFY_DEFAULT_PROBE_SAMPLES 512
#define KF_VERIFY_DEFAULT_CALL_TIMEOUT_S 10.0
#define KF_VERIFY_DEFAULT_CPU_LIMIT_S 600.0
#define KF_VERIFY_DEFAULT_MEM_LIMIT (4ull << 30)
#define KF_VERIFY_DEFAULT_SANITIZER_TIMEOUT_S 120.0
#define KF_VERIFY_BUF_ALIGN 4096
#define KF_VERIFY_MAX_RESTARTS 3     /* runner restarts after a death, per candidate */
#define KF_VERIFY_MAX_FINDINGS 20
/* Consensus: outputs agree within this multiple of the tolerance (each may be off by one tolerance). */
#define KF_CONSENSUS_TOL_FACTOR 2.0
#define KF_CONSENSUS_MIN_CLUSTER 2   /* at least two other candidates must agree on an output */
#define KF_PROBE_VERSION "consensus-probe-v3"
#define KF_PROBE_WEIGHT_MIN 0.5 /* sketch weights are uniform in [0.5, 1.5) */

/* ---- names ---- */

static const struct {
	const char *name, *summary;
} verifiers[KF_VER_COUNT] = {
	[KF_VER_TESTS] = { "tests", "the judge's correctness battery (seeds x test and ragged shapes, stress, bench) passed" },
	[KF_VER_RAGGED] = { "ragged", "the judge's ragged trials passed, and every ragged shape again with fresh seeds" },
	[KF_VER_HIDDEN] = { "hidden", "every hidden shape (never in a prompt, never judged) with several seeds" },
	[KF_VER_STRESS] = { "stress", "every stress input variant on every ragged and hidden shape, with fresh seeds" },
	[KF_VER_DETERMINISM] = { "determinism", "repeated runs on the same inputs agree (bitwise or within tolerance, as the task says)" },
	[KF_VER_ERROR_MARGIN] = { "error_margin", "the judge's worst error stayed under half the tolerance" },
	[KF_VER_STATIC] = { "static", "no forbidden call, extra thread or stream, timer read or token-pasted name in the source" },
	[KF_VER_TIMING] = { "timing", "not faster than light; clocks agree and variance is as low as the reference's" },
	[KF_VER_CONSENSUS] = { "consensus", "its outputs on fixed probe inputs (bench, hidden, stressed ragged and hidden) agree with the largest cluster of the task's other candidates" },
	[KF_VER_MEMCHECK] = { "memcheck", "compute-sanitizer memcheck finds no error (CUDA; abstains without the tool or a GPU)" },
	[KF_VER_RACECHECK] = { "racecheck", "compute-sanitizer racecheck finds no hazard (CUDA; abstains without the tool or a GPU)" },
	[KF_VER_LLM_JUDGE] = { "llm_judge", "a language model shown the task and the source says it is correct (off unless asked for)" },
};

const char *kf_verifier_name(enum kf_verifier v)
{
	return v < KF_VER_COUNT ? verifiers[v].name : "unknown";
}

const char *kf_verifier_summary(enum kf_verifier v)
{
	return v < KF_VER_COUNT ? verifiers[v].summary : "";
}

int kf_verifier_parse(const char *name, enum kf_verifier *out)
{
	for (int v = 0; name && v < KF_VER_COUNT; v++)
		if (!strcmp(name, verifiers[v].name)) {
			*out = (enum kf_verifier)v;
			return 0;
		}
	return -1;
}

void kf_verify_opts_default(struct kf_verify_opts *o)
{
	memset(o, 0, sizeof *o);
	o->backend = KF_BACKEND_CPU;
	o->seed = (uint64_t)kf_now_ns();
	o->ragged_seeds = KF_VERIFY_DEFAULT_RAGGED_SEEDS;
	o->hidden_seeds = KF_VERIFY_DEFAULT_HIDDEN_SEEDS;
	o->stress_seeds = KF_VERIFY_DEFAULT_STRESS_SEEDS;
	o->determinism_runs = KF_VERIFY_DEFAULT_DETERMINISM_RUNS;
	o->margin_max = KF_VERIFY_DEFAULT_MARGIN_MAX;
	o->max_rse = KF_VERIFY_DEFAULT_MAX_RSE;
	o->rse_ratio = KF_VERIFY_DEFAULT_RSE_RATIO;
	o->clock_excess = KF_VERIFY_DEFAULT_CLOCK_EXCESS;
	o->probe_blocks = KF_VERIFY_DEFAULT_PROBE_BLOCKS;
	o->probe_samples = KF_VERIFY_DEFAULT_PROBE_SAMPLES;
	o->call_timeout_s = KF_VERIFY_DEFAULT_CALL_TIMEOUT_S;
	o->cpu_limit_s = KF_VERIFY_DEFAULT_CPU_LIMIT_S;
	o->mem_limit_bytes = KF_VERIFY_DEFAULT_MEM_LIMIT;
	o->sanitizer_timeout_s = KF_VERIFY_DEFAULT_SANITIZER_TIMEOUT_S;
	o->sanitizers = true;
}

/* ---- votes ---- */

static void vote(struct kf_vote_rec *r, enum kf_vote v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void vote(struct kf_vote_rec *r, enum kf_vote v, const char *fmt, ...)
{
	char why[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	r->vote = v;
	if (!r->evidence)
		r->evidence = cJSON_CreateObject();
	cJSON_DeleteItemFromObject(r->evidence, "why");
	cJSON_AddStringToObject(r->evidence, "why", why);
}

static uint64_t draw_seed(uint64_t base, int verifier, int k)
{
	uint64_t x = base ^ ((uint64_t)(verifier + 1) << 48) ^ (uint64_t)k * 0x9e3779b97f4a7c15ULL;
	return kf_splitmix64(&x);
}

/* ---- the extra-trial harness ---- */

struct kf_trials {
	const struct kf_task *t;
	const struct kf_verify_opts *o;
	enum kf_backend b;
	const struct kf_area_ops *ops;
	struct kf_area *area, *refarea;
	struct kf_sampler *sampler;
	struct kf_trusted ref, oracle;
	bool trusted_loaded;
	char so_path[PATH_MAX];
	struct kf_runner *runner;
	int restarts;
	size_t off[KF_MAX_TENSORS];
	int64_t max_n[KF_MAX_TENSORS], max_oracle_n[KF_MAX_TENSORS];
	void *host[KF_MAX_TENSORS];  /* inputs as drawn; outputs as read back */
	void *keep[KF_MAX_TENSORS];  /* the first run's outputs (repeats) */
	void *check[KF_MAX_TENSORS]; /* inputs read back after a call */
	double *dval[KF_MAX_TENSORS];
	char unusable[512];
};

static int n_tensors(const struct kf_task *t)
{
	return t->n_inputs + t->n_outputs;
}

static void note_shape(struct kf_trials *tr, const struct kf_shape *s)
{
	bool oracle = kf_judge_uses_oracle(tr->t, s);
	for (int i = 0; i < n_tensors(tr->t); i++) {
		int64_t n = kf_task_numel(tr->t, i, s);
		if (n > tr->max_n[i])
			tr->max_n[i] = n;
		if (oracle && n > tr->max_oracle_n[i])
			tr->max_oracle_n[i] = n;
	}
}

static int load_trusted_pair(struct kf_trials *tr, kf_err *err)
{
	if (tr->trusted_loaded)
		return KF_OK;
	int rc = kf_trusted_load_pair(tr->t, tr->b, tr->o->device, &tr->ref, &tr->oracle, NULL, err);
	tr->trusted_loaded = rc == KF_OK;
	return rc;
}

static int compile_candidate(struct kf_trials *tr, const char *source, size_t len, kf_err *err)
{
	struct kf_compile_res res;
	int rc = kf_judge_compile(tr->t, tr->b, tr->o->device, source, len, NULL, &res, err);
	if (rc != KF_OK)
		return rc;
	if (res.verdict != KF_V_OK)
		snprintf(tr->unusable, sizeof tr->unusable, "it does not build: %s", res.reason);
	else
		snprintf(tr->so_path, sizeof tr->so_path, "%s", res.so_path);
	kf_compile_res_free(&res);
	return KF_OK;
}

static int alloc_areas(struct kf_trials *tr, kf_err *err)
{
	const struct kf_task *t = tr->t;
	for (int set = KF_SET_TEST; set < KF_SET_COUNT; set++)
		for (int k = 0; k < t->n_shapes[set]; k++)
			note_shape(tr, &t->shapes[set][k]);
	note_shape(tr, &t->bench[tr->b]);
	size_t off = 0;
	for (int i = 0; i < n_tensors(t); i++) {
		size_t bytes = (size_t)tr->max_n[i] * kf_dtype_size(t->tensors[i].dtype);
		tr->off[i] = off;
		off += (bytes + KF_VERIFY_BUF_ALIGN - 1) / KF_VERIFY_BUF_ALIGN * KF_VERIFY_BUF_ALIGN;
		tr->host[i] = kf_xmalloc(bytes ? bytes : 1);
		tr->check[i] = kf_xmalloc(bytes ? bytes : 1);
		tr->keep[i] = t->tensors[i].is_output ? kf_xmalloc(bytes ? bytes : 1) : NULL;
		int64_t dn = t->tensors[i].is_output ? tr->max_n[i] : tr->max_oracle_n[i];
		tr->dval[i] = kf_xmalloc(sizeof(double) * (size_t)(dn > 0 ? dn : 1));
	}
	if (kf_task_n_bufs(t, tr->b) > n_tensors(t)) { /* the CUDA workspace, after the tensors */
		tr->off[n_tensors(t)] = off;
		off += ((size_t)kf_task_workspace_max(t, tr->b) + KF_VERIFY_BUF_ALIGN - 1) / KF_VERIFY_BUF_ALIGN *
		       KF_VERIFY_BUF_ALIGN;
	}
	if (!off)
		off = KF_VERIFY_BUF_ALIGN;
	if (tr->ops->create(off, tr->o->device, &tr->area, err) != KF_OK)
		return err->code;
	return tr->ops->create(off, tr->o->device, &tr->refarea, err);
}

int kf_trials_open(const struct kf_task *t, const char *source, size_t len, const struct kf_verify_opts *o,
		   struct kf_trials **out, kf_err *err)
{
	struct kf_trials *tr = kf_xcalloc(1, sizeof *tr);
	tr->t = t;
	tr->o = o;
	tr->b = o->backend;
	*out = tr;
	if (!kf_task_has_backend(t, tr->b)) {
		snprintf(tr->unusable, sizeof tr->unusable, "task %s has no %s reference kernel", t->name,
			 kf_backend_name(tr->b));
		return KF_OK;
	}
	if (kf_task_multi_gpu(t)) { /* its kernels run only in the multi-GPU judge (eval/judge/multi.c) */
		snprintf(tr->unusable, sizeof tr->unusable, "task %s is a multi-GPU task: no single-GPU trials", t->name);
		return KF_OK;
	}
	kf_err why;
	if (kf_area_ops_for(tr->b, &tr->ops, &why) != KF_OK) {
		snprintf(tr->unusable, sizeof tr->unusable, "this machine cannot run %s kernels: %s", kf_backend_name(tr->b),
			 why.msg);
		return KF_OK;
	}
	int rc = compile_candidate(tr, source, len, err);
	if (rc == KF_OK && !tr->unusable[0]) {
		tr->sampler = kf_sampler_new();
		rc = alloc_areas(tr, err);
	}
	if (rc != KF_OK) {
		kf_trials_close(tr);
		*out = NULL;
	}
	return rc;
}

const char *kf_trials_unusable(const struct kf_trials *tr)
{
	return tr->unusable[0] ? tr->unusable : NULL;
}

void kf_trials_close(struct kf_trials *tr)
{
	if (!tr)
		return;
	kf_runner_stop(tr->runner);
	kf_trusted_unload(&tr->ref);
	kf_trusted_unload(&tr->oracle);
	for (int i = 0; i < KF_MAX_TENSORS; i++) {
		free(tr->host[i]);
		free(tr->keep[i]);
		free(tr->check[i]);
		free(tr->dval[i]);
	}
	if (tr->ops) {
		tr->ops->destroy(tr->area);
		tr->ops->destroy(tr->refarea);
	}
	kf_sampler_free(tr->sampler);
	free(tr);
}

static void fail(struct kf_trial_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct kf_trial_result *res, const char *fmt, ...)
{
	res->pass = false;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->reason, sizeof res->reason, fmt, ap);
	va_end(ap);
}

/* A live runner, or res filled with why none could be had. */
static int ensure_runner(struct kf_trials *tr, struct kf_trial_result *res, kf_err *err)
{
	if (tr->runner)
		return KF_OK;
	if (tr->restarts > KF_VERIFY_MAX_RESTARTS) {
		fail(res, "the runner died %d times; no more restarts", tr->restarts);
		return KF_OK;
	}
	struct kf_runner_opts ro = { .backend = tr->b, .so_path = tr->so_path, .device = tr->o->device,
				     .call_timeout_s = tr->o->call_timeout_s, .cpu_limit_s = tr->o->cpu_limit_s,
				     .mem_limit_bytes = tr->o->mem_limit_bytes, .vendor_libs = tr->t->vendor_libs_allowed };
	ro.shm_fd = tr->ops->runner_fd(tr->area, &ro.shm_bytes);
	if (tr->ops->uuid)
		tr->ops->uuid(tr->o->device, ro.visible_gpu, sizeof ro.visible_gpu);
	struct kf_call_result died;
	if (kf_runner_start(&ro, &tr->runner, &died, err) != KF_OK)
		return err->code;
	if (!tr->runner) {
		tr->restarts++;
		fail(res, "the candidate could not start: %s", died.reason);
	}
	return KF_OK;
}

static void trial_context(const struct kf_trials *tr, const struct kf_trial *trial, char *out, size_t len)
{
	kf_buf b = KF_BUF_INIT;
	kf_task_shape_format(tr->t, trial->shape, &b);
	snprintf(out, len, "at %s, seed %llu%s%s", b.data, (unsigned long long)trial->seed,
		 trial->stress ? ", stress " : "", trial->stress ? trial->stress->name : "");
	kf_buf_free(&b);
}

static void draw_inputs(struct kf_trials *tr, const struct kf_trial *trial)
{
	const struct kf_task *t = tr->t;
	kf_rng r;
	kf_rng_seed(&r, trial->seed);
	for (int i = 0; i < t->n_inputs; i++) {
		const struct kf_dist d = kf_task_dist(t, i, trial->stress, trial->shape);
		kf_tensor_fill(tr->sampler, &r, &d, t->tensors[i].dtype, tr->host[i], kf_task_numel(t, i, trial->shape));
	}
}

/* Uploads the drawn inputs, poisons the outputs, runs the candidate once. On a failed call, res says
 * why and the runner (if it died) is gone; *ran tells whether outputs are there to read. */
static int call_once(struct kf_trials *tr, const struct kf_trial *trial, const char *ctx, bool *ran,
		     struct kf_trial_result *res, kf_err *err)
{
	const struct kf_task *t = tr->t;
	const struct kf_shape *s = trial->shape;
	*ran = false;
	if (ensure_runner(tr, res, err) != KF_OK)
		return err->code;
	if (!tr->runner)
		return KF_OK;
	for (int i = 0; i < t->n_inputs; i++)
		if (tr->ops->upload(tr->area, tr->off[i], tr->host[i], kf_task_tensor_bytes(t, i, s), err) != KF_OK)
			return err->code;
	for (int i = t->n_inputs; i < n_tensors(t); i++)
		if (tr->ops->poison(tr->area, tr->off[i], t->tensors[i].dtype, kf_task_numel(t, i, s), err) != KF_OK)
			return err->code;
	if (tr->ops->sync(tr->area, err) != KF_OK)
		return err->code;
	long long ints[KF_TASK_MAX_INTS];
	int n_ints = kf_task_call_ints(t, s, ints);
	struct kf_call_result cr;
	if (kf_runner_call(tr->runner, tr->off, kf_task_n_bufs(t, tr->b), ints, n_ints, &cr, err) != KF_OK)
		return err->code;
	if (cr.status == KF_CALL_DIED) {
		kf_runner_stop(tr->runner);
		tr->runner = NULL;
		tr->restarts++;
		fail(res, "%s: %s %s", kf_verdict_name(cr.verdict), cr.reason, ctx);
		return KF_OK;
	}
	if (cr.status == KF_CALL_FAILED) {
		fail(res, "kf_launch returned %d %s", cr.rc, ctx);
		return KF_OK;
	}
	for (int i = 0; i < t->n_inputs; i++) {
		size_t bytes = kf_task_tensor_bytes(t, i, s);
		if (tr->ops->download(tr->area, tr->off[i], tr->check[i], bytes, err) != KF_OK)
			return err->code;
		if (memcmp(tr->check[i], tr->host[i], bytes)) {
			fail(res, "kf_launch wrote to input '%s' %s", t->tensors[i].name, ctx);
			return KF_OK;
		}
	}
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		int64_t n = kf_task_numel(t, i, s), first;
		if (tr->ops->download(tr->area, tr->off[i], tr->host[i], kf_task_tensor_bytes(t, i, s), err) != KF_OK)
			return err->code;
		int64_t bad = kf_tensor_count_poison(t->tensors[i].dtype, tr->host[i], n, &first);
		if (bad) {
			fail(res, "%lld of %lld elements of output '%s' were never written (first at %lld) %s", (long long)bad,
			     (long long)n, t->tensors[i].name, (long long)first, ctx);
			return KF_OK;
		}
	}
	*ran = true;
	return KF_OK;
}

/* Expected outputs into dval[outputs] for the inputs in host[inputs]. */
static int compute_expected(struct kf_trials *tr, const struct kf_shape *s, kf_err *err)
{
	const struct kf_task *t = tr->t;
	if (load_trusted_pair(tr, err) != KF_OK)
		return err->code;
	long long ints[KF_TASK_MAX_INTS];
	kf_task_call_ints(t, s, ints);
	void *args[KF_MAX_TENSORS];
	int rc;
	bool oracle = kf_judge_uses_oracle(t, s);
	if (oracle) {
		for (int i = 0; i < t->n_inputs; i++)
			kf_tensor_to_double(t->tensors[i].dtype, tr->host[i], tr->dval[i], kf_task_numel(t, i, s));
		for (int i = 0; i < n_tensors(t); i++)
			args[i] = tr->dval[i];
		rc = tr->oracle.call(args, ints, NULL);
	} else {
		for (int i = 0; i < kf_task_n_bufs(t, tr->b); i++) {
			args[i] = tr->ops->ptr(tr->refarea, tr->off[i]);
			if (i < t->n_inputs &&
			    tr->ops->upload(tr->refarea, tr->off[i], tr->host[i], kf_task_tensor_bytes(t, i, s), err) != KF_OK)
				return err->code;
		}
		rc = tr->ref.call(args, ints, tr->ops->stream(tr->refarea));
		if (tr->ops->sync(tr->refarea, err) != KF_OK)
			return err->code;
		for (int i = t->n_inputs; i < n_tensors(t) && rc == 0; i++) {
			if (tr->ops->download(tr->refarea, tr->off[i], tr->check[i], kf_task_tensor_bytes(t, i, s), err) != KF_OK)
				return err->code;
			kf_tensor_to_double(t->tensors[i].dtype, tr->check[i], tr->dval[i], kf_task_numel(t, i, s));
		}
	}
	if (rc != 0)
		return kf_errf(err, KF_EINTERNAL, "the %s of task %s failed (returned %d)",
			       oracle ? "oracle" : "reference kernel", t->name, rc);
	return KF_OK;
}

int kf_trials_check(struct kf_trials *tr, const struct kf_trial *trial, struct kf_trial_result *res, kf_err *err)
{
	const struct kf_task *t = tr->t;
	memset(res, 0, sizeof *res);
	res->pass = true;
	char ctx[256];
	trial_context(tr, trial, ctx, sizeof ctx);
	bool ran;
	draw_inputs(tr, trial);
	if (call_once(tr, trial, ctx, &ran, res, err) != KF_OK)
		return err->code;
	if (!ran)
		return KF_OK;
	if (compute_expected(tr, trial->shape, err) != KF_OK)
		return err->code;
	bool oracle = kf_judge_uses_oracle(t, trial->shape);
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		const struct kf_tensor *ten = &t->tensors[i];
		struct kf_cmp c;
		kf_compare(ten->dtype, tr->host[i], tr->dval[i], kf_task_numel(t, i, trial->shape),
			   kf_judge_tolerance(t, i, oracle), &c);
		if (c.margin > res->margin)
			res->margin = c.margin;
		if (!c.pass) {
			fail(res, "output '%s'[%lld] = %.9g, expected %.9g; %lld elements wrong %s", ten->name,
			     (long long)c.first_bad, c.got, c.want, (long long)c.n_bad, ctx);
			return KF_OK;
		}
	}
	return KF_OK;
}

int kf_trials_repeat(struct kf_trials *tr, const struct kf_trial *trial, int runs, struct kf_trial_result *res,
		     kf_err *err)
{
	const struct kf_task *t = tr->t;
	memset(res, 0, sizeof *res);
	res->pass = res->bitwise = true;
	char ctx[256];
	trial_context(tr, trial, ctx, sizeof ctx);
	draw_inputs(tr, trial);
	for (int k = 0; k < runs; k++) {
		bool ran;
		if (call_once(tr, trial, ctx, &ran, res, err) != KF_OK)
			return err->code;
		if (!ran)
			return KF_OK;
		for (int i = t->n_inputs; i < n_tensors(t); i++) {
			const struct kf_tensor *ten = &t->tensors[i];
			int64_t n = kf_task_numel(t, i, trial->shape);
			size_t bytes = kf_task_tensor_bytes(t, i, trial->shape);
			if (k == 0) {
				memcpy(tr->keep[i], tr->host[i], bytes);
				continue;
			}
			if (!memcmp(tr->keep[i], tr->host[i], bytes))
				continue;
			res->bitwise = false;
			kf_tensor_to_double(ten->dtype, tr->keep[i], tr->dval[i], n);
			struct kf_cmp c;
			kf_compare(ten->dtype, tr->host[i], tr->dval[i], n, kf_task_tolerance(t, i), &c);
			if (c.margin > res->margin)
				res->margin = c.margin;
			if (t->determinism == KF_DET_BITWISE || !c.pass) {
				fail(res, "output '%s'[%lld] was %.9g in run 1 and %.9g in run %d on the same inputs %s", ten->name,
				     (long long)(c.first_bad >= 0 ? c.first_bad : 0), c.first_bad >= 0 ? c.want : 0,
				     c.first_bad >= 0 ? c.got : 0, k + 1, ctx);
				return KF_OK;
			}
		}
	}
	return KF_OK;
}

/* The probe input of a task at a shape and distribution: the same for every candidate of the task,
 * in any session. */
static void probe_identity(const struct kf_task *t, const struct kf_shape *s, const struct kf_stress *stress,
			   const struct kf_verify_opts *o, char key[KF_PROBE_KEY_LEN], uint64_t *seed)
{
	kf_buf b = KF_BUF_INIT;
	kf_buf_addf(&b, "%s|%s|%d|%d|%s|", KF_PROBE_VERSION, t->spec_hash, o->probe_blocks, o->probe_samples,
		    stress ? stress->name : "");
	kf_task_shape_format(t, s, &b);
	kf_sha256_hex(b.data, b.len, key);
	kf_buf_free(&b);
	char head[17];
	memcpy(head, key, 16);
	head[16] = '\0';
	*seed = strtoull(head, NULL, 16);
}

/* Weighted sums of one output, block by block, then the sampled elements (see kf_probe_out). */
static void sketch(enum kf_dtype d, const void *x, int64_t n, int blocks, int samples, kf_rng *r, double *out)
{
	int64_t size = (n + blocks - 1) / blocks;
	for (int b = 0; b < blocks; b++) {
		double sum = 0, abs_sum = 0, w_sum = 0;
		for (int64_t i = b * size; i < n && i < (b + 1) * size; i++) {
			double w = KF_PROBE_WEIGHT_MIN + kf_rng_uniform(r), v = kf_tensor_get(d, x, i);
			sum += w * v;
			abs_sum += w * fabs(v);
			w_sum += w;
		}
		out[KF_PROBE_FIELDS * b] = sum;
		out[KF_PROBE_FIELDS * b + 1] = abs_sum;
		out[KF_PROBE_FIELDS * b + 2] = w_sum;
	}
	for (int k = 0; k < samples; k++) {
		double v = kf_tensor_get(d, x, (int64_t)(kf_rng_uniform(r) * (double)n)), *at = out + KF_PROBE_FIELDS * (blocks + k);
		at[0] = v;
		at[1] = fabs(v);
		at[2] = 1;
	}
}

int kf_trials_probe(struct kf_trials *tr, const struct kf_shape *shape, const struct kf_stress *stress,
		    struct kf_probe_out *out, kf_err *err)
{
	const struct kf_task *t = tr->t;
	const int blocks = tr->o->probe_blocks;
	memset(out, 0, sizeof *out);
	uint64_t seed;
	probe_identity(t, shape, stress, tr->o, out->key, &seed);
	kf_buf b = KF_BUF_INIT;
	kf_task_shape_format(t, shape, &b);
	if (stress)
		kf_buf_addf(&b, " (stress %s)", stress->name);
	snprintf(out->shape, sizeof out->shape, "%s", b.data);
	kf_buf_free(&b);
	struct kf_trial trial = { shape, seed, stress };
	struct kf_trial_result res = { .pass = true };
	char ctx[256];
	trial_context(tr, &trial, ctx, sizeof ctx);
	bool ran;
	draw_inputs(tr, &trial);
	if (call_once(tr, &trial, ctx, &ran, &res, err) != KF_OK)
		return err->code;
	out->n_outputs = t->n_outputs;
	out->ran = ran;
	if (!ran)
		return KF_OK;
	int samples[KF_MAX_TENSORS];
	for (int i = 0; i < t->n_outputs; i++) {
		int64_t n = kf_task_numel(t, t->n_inputs + i, shape);
		samples[i] = n > blocks ? tr->o->probe_samples : 0;
		out->count[i] = (n < blocks ? (int)n : blocks) + samples[i];
		out->n += out->count[i];
	}
	out->values = kf_xmalloc(sizeof *out->values * KF_PROBE_FIELDS * (size_t)(out->n ? out->n : 1));
	kf_rng r;
	kf_rng_seed(&r, seed);
	for (int i = 0, at = 0; i < t->n_outputs; at += out->count[i++])
		sketch(t->tensors[t->n_inputs + i].dtype, tr->host[t->n_inputs + i],
		       kf_task_numel(t, t->n_inputs + i, shape), out->count[i] - samples[i], samples[i], &r,
		       out->values + KF_PROBE_FIELDS * at);
	return KF_OK;
}

/* ---- verifiers that read the judge's record ---- */

static const char *jstr(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static bool jnum(const cJSON *o, const char *k, double *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(x))
		return false;
	*out = x->valuedouble;
	return true;
}

/* Verdicts of a candidate that never ran: no verifier that runs it can say anything. */
static bool never_ran(const char *verdict)
{
	static const char *const v[] = { "compile_error", "compile_timeout", "link_error", "policy_violation",
					 "internal_error" };
	if (!verdict)
		return true;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!strcmp(verdict, v[i]))
			return true;
	return false;
}

/* Verdicts after which running the candidate again costs a timeout per call or is pointless. */
static bool not_worth_running(const char *verdict)
{
	static const char *const v[] = { "timeout", "cpu_timeout", "memory_limit", "sandbox_violation" };
	if (never_ran(verdict))
		return true;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!strcmp(verdict, v[i]))
			return true;
	return false;
}

static void tests_vote(const cJSON *jr, struct kf_vote_rec *out)
{
	const char *v = jstr(jr, "verdict");
	if (never_ran(v)) {
		vote(out, KF_VOTE_ABSTAIN, "the candidate never ran (%s)", v ? v : "no verdict");
		return;
	}
	cJSON_AddStringToObject(out->evidence = cJSON_CreateObject(), "verdict", v);
	const cJSON *trials = cJSON_GetObjectItemCaseSensitive(jr, "trials"), *tr;
	int n = 0;
	cJSON_ArrayForEach(tr, trials)
		n++;
	cJSON_AddNumberToObject(out->evidence, "trials", n);
	if (!strcmp(v, "ok") || !strcmp(v, "faster_than_light"))
		vote(out, KF_VOTE_PASS, "the judge's correctness battery passed (%d trials)", n);
	else
		vote(out, KF_VOTE_FAIL, "the judge said %s: %.300s", v, jstr(jr, "reason") ? jstr(jr, "reason") : "");
}

static void margin_vote(const cJSON *jr, const struct kf_verify_opts *o, struct kf_vote_rec *out)
{
	const char *v = jstr(jr, "verdict");
	const cJSON *trials = cJSON_GetObjectItemCaseSensitive(jr, "trials"), *tr;
	bool compared = v && !strcmp(v, "wrong_answer");
	cJSON_ArrayForEach(tr, trials)
		compared = compared || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tr, "pass"));
	double m;
	bool known = jnum(jr, "error_margin", &m);
	/* A stored infinite margin (non-finite outputs) reads back as null. */
	if (!known && v && !strcmp(v, "wrong_answer")) {
		m = INFINITY;
		known = true;
	}
	if (!compared || !known) {
		vote(out, KF_VOTE_ABSTAIN, "no output of the candidate was compared with the reference");
		return;
	}
	out->evidence = cJSON_CreateObject();
	if (isfinite(m))
		cJSON_AddNumberToObject(out->evidence, "error_margin", m);
	else
		cJSON_AddNullToObject(out->evidence, "error_margin");
	cJSON_AddNumberToObject(out->evidence, "limit", o->margin_max);
	if (m < o->margin_max)
		vote(out, KF_VOTE_PASS, "worst error %.3g of the tolerance", m);
	else
		vote(out, KF_VOTE_FAIL, "worst error %.3g of the tolerance (limit %.3g)", m, o->margin_max);
}

static void timing_vote(const cJSON *jr, const struct kf_verify_opts *o, struct kf_vote_rec *out)
{
	const cJSON *timing = cJSON_GetObjectItemCaseSensitive(jr, "timing");
	const cJSON *cand = cJSON_GetObjectItemCaseSensitive(timing, "candidate");
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(timing, "reference");
	double rse, n, clk, ref_rse = 0, ref_n = 0, ref_clk = 0, sol;
	if (!cand || !jnum(cand, "rse", &rse) || !jnum(cand, "n", &n) || !jnum(cand, "clock_disagreements", &clk) || n < 1) {
		vote(out, KF_VOTE_ABSTAIN, "the candidate was not timed");
		return;
	}
	jnum(ref, "rse", &ref_rse);
	jnum(ref, "n", &ref_n);
	jnum(ref, "clock_disagreements", &ref_clk);
	double clk_share = clk / n, ref_clk_share = ref_n > 0 ? ref_clk / ref_n : 0;
	double rse_limit = fmax(o->max_rse, o->rse_ratio * ref_rse);
	out->evidence = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->evidence, "rse", rse);
	cJSON_AddNumberToObject(out->evidence, "rse_limit", rse_limit);
	cJSON_AddNumberToObject(out->evidence, "clock_disagreement_share", clk_share);
	cJSON_AddNumberToObject(out->evidence, "reference_clock_disagreement_share", ref_clk_share);
	if (jnum(jr, "sol_fraction", &sol)) {
		cJSON_AddNumberToObject(out->evidence, "sol_fraction", sol);
		if (sol > 1) {
			vote(out, KF_VOTE_FAIL, "median below the speed-of-light bound (SOL fraction %.3g)", sol);
			return;
		}
	}
	if (clk_share > ref_clk_share + o->clock_excess)
		vote(out, KF_VOTE_FAIL, "the runner's clock disagreed with the judge's on %.0f%% of samples (reference %.0f%%)",
		     100 * clk_share, 100 * ref_clk_share);
	else if (rse < 0 || rse > rse_limit)
		vote(out, KF_VOTE_FAIL, "relative standard error %.3g above %.3g", rse, rse_limit);
	else
		vote(out, KF_VOTE_PASS, "plausible: rse %.3g, clocks agree", rse);
}

/* The judge's own ragged trials: a failure there is already a failure of this verifier. */
static bool judge_ragged_failed(const cJSON *jr, struct kf_vote_rec *out, int *passed)
{
	const cJSON *trials = cJSON_GetObjectItemCaseSensitive(jr, "trials"), *tr;
	*passed = 0;
	cJSON_ArrayForEach(tr, trials) {
		const char *set = jstr(tr, "set");
		if (!set || strcmp(set, "ragged"))
			continue;
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tr, "pass"))) {
			++*passed;
			continue;
		}
		vote(out, KF_VOTE_FAIL, "the judge's ragged trial failed: %.300s",
		     jstr(jr, "reason") ? jstr(jr, "reason") : "");
		return true;
	}
	return false;
}

/* ---- verifiers that run the candidate ---- */

/* Runs every shape of the given sets x seeds x stress variants (none when n_stress is 0); votes fail
 * at the first failing trial, pass when every trial passed. */
static int run_battery(struct kf_trials *tr, enum kf_verifier v, const enum kf_shape_set *sets, int n_sets, int seeds,
		       const struct kf_stress *stress, int n_stress, struct kf_vote_rec *out, kf_err *err)
{
	const struct kf_task *t = tr->t;
	double worst = 0;
	int k = 0;
	for (int st = 0; st < (n_stress ? n_stress : 1); st++)
		for (int si = 0; si < n_sets; si++)
			for (int s = 0; s < t->n_shapes[sets[si]]; s++)
				for (int sd = 0; sd < seeds; sd++, k++) {
					struct kf_trial trial = { &t->shapes[sets[si]][s], draw_seed(tr->o->seed, v, k),
								  n_stress ? &stress[st] : NULL };
					struct kf_trial_result res;
					if (kf_trials_check(tr, &trial, &res, err) != KF_OK)
						return err->code;
					if (!res.pass) {
						cJSON_AddNumberToObject(out->evidence, "trials", k + 1);
						vote(out, KF_VOTE_FAIL, "%s", res.reason);
						return KF_OK;
					}
					if (res.margin > worst)
						worst = res.margin;
				}
	cJSON_AddNumberToObject(out->evidence, "trials", k);
	cJSON_AddNumberToObject(out->evidence, "worst_margin", worst);
	vote(out, KF_VOTE_PASS, "%d trials passed (worst error %.3g of the tolerance)", k, worst);
	return KF_OK;
}

static int ragged_vote(struct kf_trials *tr, const cJSON *jr, struct kf_vote_rec *out, kf_err *err)
{
	static const enum kf_shape_set sets[] = { KF_SET_RAGGED };
	int passed;
	out->evidence = cJSON_CreateObject();
	if (judge_ragged_failed(jr, out, &passed))
		return KF_OK;
	cJSON_AddNumberToObject(out->evidence, "judge_trials", passed);
	return run_battery(tr, KF_VER_RAGGED, sets, 1, tr->o->ragged_seeds, NULL, 0, out, err);
}

static int hidden_vote(struct kf_trials *tr, struct kf_vote_rec *out, kf_err *err)
{
	static const enum kf_shape_set sets[] = { KF_SET_HIDDEN };
	out->evidence = cJSON_CreateObject();
	return run_battery(tr, KF_VER_HIDDEN, sets, 1, tr->o->hidden_seeds, NULL, 0, out, err);
}

/* The judge stresses the test shapes; the stress verifier (and its consensus probes) covers the shapes
 * it never stresses. */
static const enum kf_shape_set stressed_sets[] = { KF_SET_RAGGED, KF_SET_HIDDEN };
#define N_STRESSED_SETS ((int)(sizeof stressed_sets / sizeof stressed_sets[0]))

static int stress_vote(struct kf_trials *tr, struct kf_vote_rec *out, kf_err *err)
{
	const struct kf_task *t = tr->t;
	if (!t->n_stress) {
		vote(out, KF_VOTE_ABSTAIN, "task %s has no stress variants", t->name);
		return KF_OK;
	}
	out->evidence = cJSON_CreateObject();
	return run_battery(tr, KF_VER_STRESS, stressed_sets, N_STRESSED_SETS, tr->o->stress_seeds, t->stress,
			   t->n_stress, out, err);
}

/* The shape of a set with the most output elements. */
static const struct kf_shape *largest(const struct kf_task *t, enum kf_shape_set set)
{
	const struct kf_shape *best = NULL;
	int64_t most = -1;
	for (int k = 0; k < t->n_shapes[set]; k++) {
		int64_t n = kf_task_numel(t, t->n_inputs, &t->shapes[set][k]);
		if (n > most) {
			most = n;
			best = &t->shapes[set][k];
		}
	}
	return best;
}

static int determinism_vote(struct kf_trials *tr, struct kf_vote_rec *out, kf_err *err)
{
	const struct kf_task *t = tr->t;
	const struct kf_shape *shapes[] = { largest(t, KF_SET_TEST), largest(t, KF_SET_RAGGED) };
	bool bitwise = true;
	out->evidence = cJSON_CreateObject();
	cJSON_AddStringToObject(out->evidence, "rule", t->determinism == KF_DET_BITWISE ? "bitwise" : "tolerance");
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		struct kf_trial trial = { shapes[s], draw_seed(tr->o->seed, KF_VER_DETERMINISM, (int)s), NULL };
		struct kf_trial_result res;
		if (kf_trials_repeat(tr, &trial, tr->o->determinism_runs, &res, err) != KF_OK)
			return err->code;
		if (!res.pass) {
			vote(out, KF_VOTE_FAIL, "%s", res.reason);
			return KF_OK;
		}
		bitwise = bitwise && res.bitwise;
	}
	cJSON_AddBoolToObject(out->evidence, "bitwise_equal", bitwise);
	vote(out, KF_VOTE_PASS, "%d runs on the same inputs agreed%s at two shapes", tr->o->determinism_runs,
	     bitwise ? " bit for bit" : " within tolerance");
	return KF_OK;
}

static int add_probe(struct kf_trials *tr, struct kf_verify_result *r, const struct kf_shape *s,
		     const struct kf_stress *stress, kf_err *err)
{
	r->probes = kf_xrealloc(r->probes, sizeof *r->probes * (size_t)(r->n_probes + 1));
	if (kf_trials_probe(tr, s, stress, &r->probes[r->n_probes], err) != KF_OK)
		return err->code;
	r->n_probes++;
	return KF_OK;
}

/* The consensus probes mirror the oracle-based verifiers: the benchmark shape, every hidden shape,
 * and every ragged and hidden shape under every stress variant (the stress verifier's shapes). */
static int probes(struct kf_trials *tr, struct kf_verify_result *r, kf_err *err)
{
	const struct kf_task *t = tr->t;
	if (add_probe(tr, r, &t->bench[tr->b], NULL, err) != KF_OK)
		return err->code;
	for (int k = 0; k < t->n_shapes[KF_SET_HIDDEN]; k++)
		if (add_probe(tr, r, &t->shapes[KF_SET_HIDDEN][k], NULL, err) != KF_OK)
			return err->code;
	for (int st = 0; st < t->n_stress; st++)
		for (int set = 0; set < N_STRESSED_SETS; set++)
			for (int k = 0; k < t->n_shapes[stressed_sets[set]]; k++)
				if (add_probe(tr, r, &t->shapes[stressed_sets[set]][k], &t->stress[st], err) != KF_OK)
					return err->code;
	return KF_OK;
}

/* ---- static checks ---- */

enum finding_kind { F_THREAD, F_PROCESS, F_SYSTEM, F_STREAM, F_TIMER, F_CACHE_PIN, F_ASM_TIMER, F_TOKEN_PASTE,
		    F_GLOBAL_STATE };
static const char *const finding_names[] = { "extra_thread", "process", "system_access", "extra_stream", "timer",
					     "cache_pinning", "asm_timer", "token_pasting", "global_state" };

struct rule {
	const char *ident;
	enum finding_kind kind;
	bool call; /* only when followed by '(' */
};

static const struct rule rules[] = {
	{ "pthread_create", F_THREAD, true }, { "thrd_create", F_THREAD, true }, { "clone", F_THREAD, true },
	{ "thread", F_THREAD, false } /* std::thread */, { "async", F_THREAD, true } /* std::async */,
	{ "fork", F_PROCESS, true }, { "vfork", F_PROCESS, true }, { "execve", F_PROCESS, true },
	{ "execl", F_PROCESS, true }, { "execlp", F_PROCESS, true }, { "execv", F_PROCESS, true },
	{ "execvp", F_PROCESS, true }, { "system", F_PROCESS, true }, { "popen", F_PROCESS, true },
	{ "posix_spawn", F_PROCESS, true }, { "kill", F_PROCESS, true }, { "ptrace", F_PROCESS, true },
	{ "fopen", F_SYSTEM, true }, { "open", F_SYSTEM, true }, { "openat", F_SYSTEM, true },
	{ "socket", F_SYSTEM, true }, { "connect", F_SYSTEM, true }, { "getenv", F_SYSTEM, true },
	{ "secure_getenv", F_SYSTEM, true }, { "setenv", F_SYSTEM, true }, { "dlopen", F_SYSTEM, true },
	{ "dlsym", F_SYSTEM, true }, { "syscall", F_SYSTEM, true }, { "mprotect", F_SYSTEM, true },
	{ "signal", F_SYSTEM, true }, { "sigaction", F_SYSTEM, true },
	{ "cudaStreamCreate", F_STREAM, true }, { "cudaStreamCreateWithFlags", F_STREAM, true },
	{ "cudaStreamCreateWithPriority", F_STREAM, true }, { "cudaLaunchHostFunc", F_STREAM, true },
	{ "cudaStreamAddCallback", F_STREAM, true }, { "cudaStreamPerThread", F_STREAM, false },
	{ "cudaStreamLegacy", F_STREAM, false }, { "cudaGraphLaunch", F_STREAM, true },
	{ "clock_gettime", F_TIMER, true }, { "gettimeofday", F_TIMER, true }, { "clock", F_TIMER, true },
	{ "clock64", F_TIMER, true }, { "__rdtsc", F_TIMER, true }, { "__rdtscp", F_TIMER, true },
	{ "__globaltimer", F_TIMER, true }, { "cudaEventCreate", F_TIMER, true }, { "cudaEventRecord", F_TIMER, true },
	{ "cudaEventElapsedTime", F_TIMER, true }, { "cudaEventSynchronize", F_TIMER, true }, { "chrono", F_TIMER, false },
	{ "cudaCtxResetPersistingL2Cache", F_CACHE_PIN, true }, { "accessPolicyWindow", F_CACHE_PIN, false },
	{ "cudaStreamSetAttribute", F_CACHE_PIN, true }, { "cudaLimitPersistingL2CacheSize", F_CACHE_PIN, false },
	{ "cudaDeviceSetLimit", F_CACHE_PIN, true },
};

/* Substrings of inline assembly (and of any string literal) that read a clock. */
static const char *const asm_timers[] = { "globaltimer", "%clock", "rdtsc", "rdpmc" };

struct findings {
	cJSON *arr;
	int n_fail, n_warn;
};

static void finding(struct findings *f, enum finding_kind kind, int line, const char *text, size_t len)
{
	bool warn = kind == F_GLOBAL_STATE;
	if (warn)
		f->n_warn++;
	else
		f->n_fail++;
	if (cJSON_GetArraySize(f->arr) >= KF_VERIFY_MAX_FINDINGS)
		return;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kind", finding_names[kind]);
	cJSON_AddStringToObject(o, "severity", warn ? "warn" : "fail");
	cJSON_AddNumberToObject(o, "line", line);
	char snippet[96];
	size_t n = len < sizeof snippet - 1 ? len : sizeof snippet - 1;
	memcpy(snippet, text, n);
	snippet[n] = '\0';
	for (char *p = snippet; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	cJSON_AddStringToObject(o, "text", snippet);
	cJSON_AddItemToArray(f->arr, o);
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static int line_of(const char *base, const char *p)
{
	int line = 1;
	for (const char *q = base; q < p; q++)
		line += *q == '\n';
	return line;
}

static void scan_identifiers(const char *code, struct findings *f)
{
	for (const char *p = code; *p; p++) {
		if (!ident_char(*p) || (p > code && ident_char(p[-1])) || isdigit((unsigned char)*p))
			continue;
		size_t len = 0;
		while (ident_char(p[len]))
			len++;
		const char *after = p + len;
		while (*after == ' ' || *after == '\t' || *after == '\n')
			after++;
		for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
			if (strlen(rules[i].ident) != len || strncmp(p, rules[i].ident, len))
				continue;
			if (rules[i].call && *after != '(')
				continue;
			/* "thread" and "chrono" count only as std:: names. */
			if (!rules[i].call && (!strcmp(rules[i].ident, "thread") || !strcmp(rules[i].ident, "chrono")) &&
			    (p - code < 5 || strncmp(p - 5, "std::", 5)))
				continue;
			finding(f, rules[i].kind, line_of(code, p), p, len);
		}
		p += len - 1;
	}
}

/* String literals (inline assembly included) that read a hardware clock. */
static void scan_asm(const char *with_strings, struct findings *f)
{
	for (size_t i = 0; i < sizeof asm_timers / sizeof asm_timers[0]; i++)
		for (const char *p = strstr(with_strings, asm_timers[i]); p; p = strstr(p + 1, asm_timers[i]))
			finding(f, F_ASM_TIMER, line_of(with_strings, p), p, strlen(asm_timers[i]));
}

static void scan_token_paste(const char *code, struct findings *f)
{
	for (const char *p = strstr(code, "##"); p; p = strstr(p + 2, "##"))
		finding(f, F_TOKEN_PASTE, line_of(code, p), p, 2);
}

/* Mutable state that outlives a call: file-scope variables and function-local statics. Braces are
 * classified as bodies (functions), scopes (extern "C", namespace), records (struct, enum) or
 * initializers; only file scope and function bodies hold declarations that matter here. */
enum brace { B_BODY, B_SCOPE, B_RECORD, B_INIT };
#define KF_STATIC_MAX_DEPTH 64

static bool has_word(const char *s, size_t len, const char *w)
{
	size_t wl = strlen(w);
	for (size_t i = 0; i + wl <= len; i++)
		if (!strncmp(s + i, w, wl) && (i == 0 || !ident_char(s[i - 1])) && (i + wl == len || !ident_char(s[i + wl])))
			return true;
	return false;
}

static int count_words(const char *s, size_t len)
{
	int n = 0;
	for (size_t i = 0; i < len; i++)
		n += ident_char(s[i]) && (i == 0 || !ident_char(s[i - 1]));
	return n;
}

static bool is_const_decl(const char *s, size_t len)
{
	return has_word(s, len, "const") || has_word(s, len, "constexpr") || has_word(s, len, "__constant__");
}

static void statement_done(const char *code, const char *start, const char *end, int body_depth, bool in_record,
			   struct findings *f)
{
	while (start < end && isspace((unsigned char)*start))
		start++;
	size_t len = (size_t)(end - start);
	if (!len || in_record)
		return;
	const char *paren = memchr(start, '(', len), *eq = memchr(start, '=', len);
	if (body_depth == 0) {
		bool function = paren && (!eq || paren < eq);
		if (function || has_word(start, len, "typedef") || has_word(start, len, "extern") ||
		    has_word(start, len, "using") || is_const_decl(start, len) || has_word(start, len, "return"))
			return;
		/* "struct s;" declares a type, not a variable */
		if ((has_word(start, len, "struct") || has_word(start, len, "union") || has_word(start, len, "enum")) &&
		    count_words(start, len) <= 2)
			return;
		finding(f, F_GLOBAL_STATE, line_of(code, start), start, len);
	} else if (len > 7 && !strncmp(start, "static", 6) && !ident_char(start[6]) && !is_const_decl(start, len)) {
		finding(f, F_GLOBAL_STATE, line_of(code, start), start, len);
	}
}

static void scan_state(const char *code, struct findings *f)
{
	enum brace stack[KF_STATIC_MAX_DEPTH];
	int depth = 0, body_depth = 0, in_record = 0;
	const char *start = code;
	for (const char *p = code; *p; p++) {
		if (*p == '#' && (p == code || p[-1] == '\n')) { /* a preprocessor line, with continuations */
			while (*p && !(*p == '\n' && p[-1] != '\\'))
				p++;
			start = p + (*p != 0);
			if (!*p)
				break;
			continue;
		}
		if (*p == ';') {
			if (depth == 0 || stack[depth - 1] != B_INIT)
				statement_done(code, start, p, body_depth, in_record > 0, f);
			if (depth == 0 || stack[depth - 1] != B_INIT)
				start = p + 1;
		} else if (*p == '{') {
			size_t len = (size_t)(p - start);
			enum brace kind = B_BODY;
			const char *last = p - 1;
			while (last >= start && isspace((unsigned char)*last))
				last--;
			if ((depth && stack[depth - 1] == B_INIT) || (last >= start && *last == '='))
				kind = B_INIT;
			else if (has_word(start, len, "namespace") || (has_word(start, len, "extern") && !memchr(start, '(', len)))
				kind = B_SCOPE;
			else if (has_word(start, len, "struct") || has_word(start, len, "union") || has_word(start, len, "enum") ||
				 has_word(start, len, "class"))
				kind = B_RECORD;
			else if (body_depth == 0 && !memchr(start, '(', len))
				kind = B_BODY; /* a block we cannot name: treat as code */
			if (depth < KF_STATIC_MAX_DEPTH)
				stack[depth] = kind;
			depth++;
			body_depth += kind == B_BODY;
			in_record += kind == B_RECORD;
			if (kind != B_INIT)
				start = p + 1;
		} else if (*p == '}' && depth > 0) {
			depth--;
			enum brace kind = depth < KF_STATIC_MAX_DEPTH ? stack[depth] : B_BODY;
			body_depth -= kind == B_BODY;
			in_record -= kind == B_RECORD;
			/* After a record's body, "} name;" declares a variable: keep scanning that statement. */
			if (kind == B_BODY || kind == B_SCOPE)
				start = p + 1;
			else if (kind == B_RECORD)
				start = p + 1;
		}
	}
}

void kf_verify_static(const char *source, size_t len, struct kf_vote_rec *out)
{
	char *code = kf_csource_blank(source, len, true);
	char *with_strings = kf_csource_blank(source, len, false);
	struct findings f = { cJSON_CreateArray(), 0, 0 };
	scan_identifiers(code, &f);
	scan_asm(with_strings, &f);
	scan_token_paste(code, &f);
	scan_state(code, &f);
	free(code);
	free(with_strings);
	out->evidence = cJSON_CreateObject();
	cJSON_AddItemToObject(out->evidence, "findings", f.arr);
	if (f.n_fail)
		vote(out, KF_VOTE_FAIL, "%d suspicious construct%s (see findings)", f.n_fail, f.n_fail == 1 ? "" : "s");
	else
		vote(out, KF_VOTE_PASS, "nothing suspicious%s", f.n_warn ? " (state kept across calls noted)" : "");
}

/* ---- consensus ---- */

static bool outputs_agree(const struct kf_task *t, const struct kf_probe_out *a, const struct kf_probe_out *b)
{
	if (a->n != b->n || a->n_outputs != b->n_outputs)
		return false;
	int at = 0;
	for (int i = 0; i < a->n_outputs; i++) {
		struct kf_tolerance tol = kf_task_tolerance(t, t->n_inputs + i);
		if (a->count[i] != b->count[i])
			return false;
		for (int k = 0; k < a->count[i]; k++, at++) {
			const double *x = a->values + KF_PROBE_FIELDS * at, *y = b->values + KF_PROBE_FIELDS * at;
			if (isnan(x[0]) || isnan(y[0])) {
				if (!(isnan(x[0]) && isnan(y[0])))
					return false;
				continue;
			}
			if (isinf(x[0]) || isinf(y[0])) {
				if (x[0] != y[0])
					return false;
				continue;
			}
			/* Each output within atol + rtol |truth| of the truth, element by element. */
			double bound = KF_CONSENSUS_TOL_FACTOR * (tol.atol * x[2] + tol.rtol * (x[1] + y[1]));
			if (fabs(x[0] - y[0]) > bound)
				return false;
		}
	}
	return true;
}

static const struct kf_probe_out *probe_of(const struct kf_probe_set *s, const char *key)
{
	for (int k = 0; k < s->n; k++)
		if (!strcmp(s->probes[k].key, key))
			return &s->probes[k];
	return NULL;
}

/* One probe input: candidate self against the largest cluster among the others. Returns the vote. */
static enum kf_vote consensus_on(const struct kf_task *t, const struct kf_probe_set *sets, const int64_t *ids, int n,
				 int self, const struct kf_probe_out *mine, cJSON *ev)
{
	const struct kf_probe_out **others = kf_xcalloc((size_t)n, sizeof *others);
	int *who = kf_xcalloc((size_t)n, sizeof *who), m = 0;
	for (int k = 0; k < n; k++) {
		const struct kf_probe_out *p = k == self ? NULL : probe_of(&sets[k], mine->key);
		if (p && p->ran) {
			others[m] = p;
			who[m++] = k;
		}
	}
	int best = 0, n_best = 0, agree_best = 0, center = -1;
	int *size = kf_xcalloc((size_t)(m ? m : 1), sizeof *size);
	for (int a = 0; a < m; a++) {
		size[a] = 1;
		for (int b = 0; b < m; b++)
			if (b != a && outputs_agree(t, others[a], others[b]))
				size[a]++;
		if (size[a] > best) {
			best = size[a];
			n_best = 0;
			agree_best = 0;
			center = a;
		}
		if (size[a] == best) {
			n_best++;
			agree_best += mine->ran && outputs_agree(t, mine, others[a]);
		}
	}
	cJSON_AddStringToObject(ev, "probe", mine->shape);
	cJSON_AddNumberToObject(ev, "others", m);
	cJSON_AddNumberToObject(ev, "largest_cluster", best);
	enum kf_vote v;
	if (!mine->ran) {
		v = KF_VOTE_FAIL;
	} else if (best < KF_CONSENSUS_MIN_CLUSTER || (agree_best > 0 && agree_best < n_best)) {
		v = KF_VOTE_ABSTAIN;
	} else {
		cJSON_AddNumberToObject(ev, "cluster_example", (double)ids[who[center]]);
		v = agree_best ? KF_VOTE_PASS : KF_VOTE_FAIL;
	}
	cJSON_AddStringToObject(ev, "vote", kf_vote_name(v));
	free(size);
	free(others);
	free(who);
	return v;
}

void kf_verify_consensus(const struct kf_task *t, const struct kf_probe_set *sets, const int64_t *ids, int n,
			 struct kf_vote_rec *votes)
{
	for (int self = 0; self < n; self++) {
		struct kf_vote_rec *out = &votes[self];
		cJSON_Delete(out->evidence);
		out->evidence = cJSON_CreateObject();
		cJSON *arr = cJSON_AddArrayToObject(out->evidence, "probes");
		int pass = 0;
		const struct kf_probe_out *failed = NULL;
		for (int k = 0; k < sets[self].n; k++) {
			cJSON *ev = cJSON_CreateObject();
			cJSON_AddItemToArray(arr, ev);
			enum kf_vote v = consensus_on(t, sets, ids, n, self, &sets[self].probes[k], ev);
			pass += v == KF_VOTE_PASS;
			if (v == KF_VOTE_FAIL && !failed)
				failed = &sets[self].probes[k];
		}
		if (failed && !failed->ran)
			vote(out, KF_VOTE_FAIL, "it produced no output on the probe input at %s", failed->shape);
		else if (failed)
			vote(out, KF_VOTE_FAIL, "its output at %s disagrees with the largest cluster of the other candidates",
			     failed->shape);
		else if (pass)
			vote(out, KF_VOTE_PASS, "agrees with the largest cluster of the other candidates on %d probe input%s",
			     pass, pass == 1 ? "" : "s");
		else
			vote(out, KF_VOTE_ABSTAIN, "no cluster of at least %d other candidates to compare with",
			     KF_CONSENSUS_MIN_CLUSTER);
	}
}

/* ---- compute-sanitizer (CUDA) ----
 * The sanitizer needs an executable to instrument, so a small trusted harness (below, compiled once
 * per machine with the host compiler) loads the candidate, copies in inputs the verifier drew, runs
 * kf_launch once and synchronises. The tool cannot run under the runner's seccomp filter, so this
 * child gets the rest of the jail: new network, mount and IPC namespaces, an unprivileged uid,
 * rlimits, no inherited descriptors, a scrubbed environment. The harness sends the candidate's own
 * output to /dev/null before loading it; of the tool's report only the summary and whitelisted
 * error kinds are kept, so nothing the candidate could read reaches the record. */

#define KF_SANITIZER_ERROR_EXIT 86  /* --error-exitcode: the tool found errors */
#define KF_HARNESS_EXIT_SETUP 3     /* the harness could not set up (no device, no memory): not the candidate's fault */
#define KF_HARNESS_EXIT_KERNEL 4    /* kf_init or kf_launch failed, or a CUDA error followed */
#define KF_SANITIZER_OUTPUT_MAX (64u << 10)
#define KF_SANITIZER_SHAPES 2       /* the smallest ragged shapes: instrumentation slows kernels 10-100x */
#define KF_SANITIZER_KINDS_MAX 5
#define KF_SANITIZER_FSIZE (64u << 20)
#define KF_SANITIZER_NOFILE 1024
#define KF_DEFAULT_CUDA_HOME "/usr/local/cuda"
#define KF_REPORT_PREFIX "========= "
/* memcheck only sees an access past the end of an allocation once it leaves the allocator's
 * rounding; padding every allocation (where the tool offers it) exposes off-by-one reads. */
#define KF_SANITIZER_PADDING "1024"
#define KF_SANITIZER_HELP_MAX (256u << 10)
/* The harness's command line: inputs, buffers and ints counts, then one number per int and buffer. */
#define KF_HARNESS_COUNTS 3
#define KF_SANITIZER_NUM_LEN 32
#define KF_SANITIZER_FIXED_ARGS 11 /* the tool, six option words, harness, so, dir, final NULL */
#define KF_SANITIZER_MAX_ARGS (KF_SANITIZER_FIXED_ARGS + KF_HARNESS_COUNTS + KF_MAX_SYMBOLS + KF_MAX_TENSORS)

static const char harness_source[] =
	"#include <dlfcn.h>\n#include <fcntl.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
	"#include <cuda_runtime_api.h>\n"
	"#define MAX_ARGS 16\n"
	"typedef int (*call_fn)(void *const *, const long long *, void *);\n"
	"typedef int (*init_fn)(void);\n"
	"/* harness SO DIR N_INPUTS N_BUFS N_INTS INT... BYTES...; DIR/inK holds input K */\n"
	"int main(int argc, char **argv)\n{\n"
	"	if (argc < 6) return 3;\n"
	"	int n_in = atoi(argv[3]), n_bufs = atoi(argv[4]), n_ints = atoi(argv[5]);\n"
	"	if (n_bufs > MAX_ARGS || n_ints > MAX_ARGS || n_in > n_bufs || argc != 6 + n_ints + n_bufs) return 3;\n"
	"	long long ints[MAX_ARGS];\n	void *bufs[MAX_ARGS];\n"
	"	for (int i = 0; i < n_ints; i++) ints[i] = atoll(argv[6 + i]);\n"
	"	if (cudaFree(0) != cudaSuccess) return 3;\n"
	"	for (int k = 0; k < n_bufs; k++) {\n"
	"		size_t bytes = strtoull(argv[6 + n_ints + k], NULL, 10);\n"
	"		if (cudaMalloc(&bufs[k], bytes ? bytes : 1) != cudaSuccess) return 3;\n"
	"		if (k >= n_in) { if (cudaMemset(bufs[k], 0, bytes) != cudaSuccess) return 3; continue; }\n"
	"		char path[4096];\n		snprintf(path, sizeof path, \"%s/in%d\", argv[2], k);\n"
	"		char *host = malloc(bytes ? bytes : 1);\n		FILE *f = fopen(path, \"rb\");\n"
	"		if (!host || !f || fread(host, 1, bytes, f) != bytes) return 3;\n		fclose(f);\n"
	"		if (cudaMemcpy(bufs[k], host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) return 3;\n"
	"		free(host);\n	}\n"
	"	cudaStream_t stream;\n	if (cudaStreamCreate(&stream) != cudaSuccess) return 3;\n"
	"	int null = open(\"/dev/null\", O_WRONLY);\n"
	"	if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) return 3;\n"
	"	void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);\n	if (!so) return 3;\n"
	"	init_fn init = (init_fn)dlsym(so, \"" KF_SHIM_INIT_SYMBOL "\");\n"
	"	call_fn call = (call_fn)dlsym(so, \"" KF_SHIM_CALL_SYMBOL "\");\n"
	"	if (!call) return 3;\n	if (init && init() != 0) return 4;\n"
	"	int rc = call(bufs, ints, stream);\n"
	"	if (rc != 0 || cudaStreamSynchronize(stream) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) return 4;\n"
	"	return 0;\n}\n";

/* Error kinds the report may name; the text after them (addresses, names) is not kept. */
static const char *const report_kinds[] = { "Invalid __global__", "Invalid __shared__", "Invalid __local__",
					    "Out-of-range", "Misaligned", "Race reported", "Malloc/Free",
					    "Program hit", "Uninitialized", "Cuda API error" };

static const char *cuda_home(void)
{
	const char *h = getenv("CUDA_HOME");
	return h && *h ? h : KF_DEFAULT_CUDA_HOME;
}

static bool find_sanitizer(char *out, size_t len)
{
	snprintf(out, len, "%s/bin/compute-sanitizer", cuda_home());
	if (access(out, X_OK) == 0)
		return true;
	const char *path = getenv("PATH");
	char *copy = kf_xstrdup(path ? path : "");
	bool found = false;
	for (char *save, *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/compute-sanitizer", dir);
		found = access(out, X_OK) == 0;
	}
	free(copy);
	return found;
}

static int wait_child(pid_t pid, int *status);

/* Whether this compute-sanitizer offers --padding (read once from its --help; a trusted tool). */
static bool sanitizer_has_padding(const char *sanitizer)
{
	static int known = -1;
	if (known >= 0)
		return known;
	known = 0;
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return false;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		execl(sanitizer, sanitizer, "--help", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	kf_buf help = KF_BUF_INIT;
	char chunk[4096];
	for (ssize_t n; pid > 0 && (n = read(pfd[0], chunk, sizeof chunk)) > 0;)
		if (help.len + (size_t)n <= KF_SANITIZER_HELP_MAX)
			kf_buf_add(&help, chunk, (size_t)n);
	close(pfd[0]);
	int st;
	if (pid > 0)
		wait_child(pid, &st);
	known = help.data && strstr(help.data, "--padding") != NULL;
	kf_buf_free(&help);
	return known;
}

static int wait_child(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* The harness binary, built once per harness text and CUDA install. */
static int build_harness(char *exe, size_t exe_len, char *why, size_t why_len, kf_err *err)
{
	kf_buf key = KF_BUF_INIT;
	kf_buf_addf(&key, "%s|%s", harness_source, cuda_home());
	char hash[KF_SHA256_HEX_LEN];
	kf_sha256_hex(key.data, key.len, hash);
	kf_buf_free(&key);
	char dir[PATH_MAX], src[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/sanitizer", kf_cache_dir());
	snprintf(exe, exe_len, "%s/harness-%.16s", dir, hash);
	if (access(exe, X_OK) == 0)
		return KF_OK;
	if (kf_mkdir_p(dir, err) != KF_OK)
		return err->code;
	snprintf(src, sizeof src, "%s.c", exe);
	if (kf_write_file(src, harness_source, sizeof harness_source - 1, err) != KF_OK)
		return err->code;
	char inc[PATH_MAX], lib[PATH_MAX], rpath[PATH_MAX + 16], tmp[PATH_MAX + 8];
	snprintf(inc, sizeof inc, "-I%s/include", cuda_home());
	snprintf(lib, sizeof lib, "-L%s/lib64", cuda_home());
	snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s/lib64", cuda_home());
	snprintf(tmp, sizeof tmp, "%s.tmp", exe);
	pid_t pid = fork();
	if (pid < 0)
		return kf_errno(err, KF_EINTERNAL, "cannot start the compiler for the sanitizer harness");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execlp("cc", "cc", "-O1", "-o", tmp, src, inc, lib, rpath, "-lcudart", "-ldl", (char *)NULL);
		_exit(127);
	}
	int st;
	if (wait_child(pid, &st) != 0)
		return kf_errno(err, KF_EINTERNAL, "waiting for the compiler of the sanitizer harness");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, why_len, "the sanitizer harness does not build here (cc exit %d)",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return KF_OK;
	}
	if (rename(tmp, exe) != 0)
		return kf_errno(err, KF_EINTERNAL, "installing the sanitizer harness %s", exe);
	return KF_OK;
}

static int copy_file(const char *from, const char *to, mode_t mode, kf_err *err)
{
	char *data = NULL;
	size_t len = 0;
	if (kf_read_file(from, SIZE_MAX / 2, &data, &len, err) != KF_OK)
		return err->code;
	int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	bool ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;
	if (fd >= 0)
		close(fd);
	free(data);
	if (!ok)
		return kf_errno(err, KF_EINTERNAL, "cannot write %s", to);
	return chmod(to, mode) == 0 ? KF_OK : kf_errno(err, KF_EINTERNAL, "cannot chmod %s", to);
}

/* In a forked child: the jail, then exec. Never returns. */
static void exec_jailed(int out_fd, char *const *argv, char *const *envp, double timeout_s)
{
	setpgid(0, 0);
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	kf_jail_close_from(3);
	const char *step; /* fail closed: the sanitizer never runs a candidate outside its jail */
	if (kf_jail_enter(false, &step) < 0)
		_exit(KF_HARNESS_EXIT_SETUP);
	struct kf_jail_limits lim = { .cpu_s = timeout_s, .fsize_bytes = KF_SANITIZER_FSIZE,
				      .nofile = KF_SANITIZER_NOFILE };
	if (kf_jail_drop_root_to(kf_jail_fresh_uid()) != 0 || kf_jail_set_limits(&lim) != 0)
		_exit(KF_HARNESS_EXIT_SETUP);
	execve(argv[0], argv, envp);
	_exit(KF_HARNESS_EXIT_SETUP);
}

/* Runs argv jailed; collects at most KF_SANITIZER_OUTPUT_MAX bytes of its output until it ends or
 * the time runs out (then *timed_out, and the process group is killed). */
static int run_jailed(char *const *argv, char *const *envp, double timeout_s, kf_buf *output, int *status,
		      bool *timed_out, kf_err *err)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return kf_errno(err, KF_EINTERNAL, "cannot create a pipe for compute-sanitizer");
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return kf_errno(err, KF_EINTERNAL, "cannot start compute-sanitizer");
	}
	if (pid == 0)
		exec_jailed(pfd[1], argv, envp, timeout_s);
	close(pfd[1]);
	int64_t deadline = kf_now_ns() + (int64_t)(timeout_s * 1e9);
	*timed_out = false;
	for (;;) {
		int64_t left = deadline - kf_now_ns();
		if (left <= 0) {
			*timed_out = true;
			break;
		}
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int pr = poll(&p, 1, (int)(left / 1000000 + 1));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		char chunk[4096];
		ssize_t n = read(pfd[0], chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (output->len + (size_t)n <= KF_SANITIZER_OUTPUT_MAX)
			kf_buf_add(output, chunk, (size_t)n);
	}
	close(pfd[0]);
	kill(-pid, SIGKILL);
	if (wait_child(pid, status) != 0)
		return kf_errno(err, KF_EINTERNAL, "waiting for compute-sanitizer");
	return KF_OK;
}

/* The report's summary count (-1 when absent) and the kinds of error it names. */
static int parse_report(const char *text, cJSON *kinds)
{
	int errors = -1;
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		size_t plen = strlen(KF_REPORT_PREFIX);
		if (len > plen && !strncmp(line, KF_REPORT_PREFIX, plen)) {
			const char *body = line + plen;
			const char *sum = strstr(body, "SUMMARY: ");
			if (sum && sum < line + len)
				errors = atoi(sum + strlen("SUMMARY: "));
			for (size_t k = 0; k < sizeof report_kinds / sizeof report_kinds[0]; k++) {
				if (strncmp(body, report_kinds[k], strlen(report_kinds[k])))
					continue;
				bool seen = false;
				const cJSON *it;
				cJSON_ArrayForEach(it, kinds)
					seen = seen || !strcmp(it->valuestring, report_kinds[k]);
				if (!seen && cJSON_GetArraySize(kinds) < KF_SANITIZER_KINDS_MAX)
					cJSON_AddItemToArray(kinds, cJSON_CreateString(report_kinds[k]));
			}
		}
		line = end ? end + 1 : NULL;
	}
	return errors;
}

static int write_inputs(struct kf_trials *tr, const struct kf_shape *s, uint64_t seed, const char *dir, kf_err *err)
{
	const struct kf_task *t = tr->t;
	struct kf_trial trial = { s, seed, NULL };
	draw_inputs(tr, &trial);
	for (int i = 0; i < t->n_inputs; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/in%d", dir, i);
		size_t bytes = kf_task_tensor_bytes(t, i, s);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		bool ok = fd >= 0 && write(fd, tr->host[i], bytes) == (ssize_t)bytes;
		if (fd >= 0)
			close(fd);
		if (!ok)
			return kf_errno(err, KF_EINTERNAL, "cannot write %s", path);
	}
	return KF_OK;
}

struct sanitizer_run {
	const char *tool;
	const char *sanitizer, *harness, *so, *dir;
	double timeout_s;
	int device;
	bool padding;
};

/* One tool at one shape. Returns the vote; evidence gets one entry. */
static int sanitize_shape(struct kf_trials *tr, const struct sanitizer_run *sr, const struct kf_shape *s, cJSON *arr,
			  enum kf_vote *v, kf_err *err)
{
	const struct kf_task *t = tr->t;
	char *argv[KF_SANITIZER_MAX_ARGS];
	char nums[KF_MAX_TENSORS + KF_MAX_SYMBOLS + KF_HARNESS_COUNTS][KF_SANITIZER_NUM_LEN];
	int a = 0, k = 0;
	char exit_code[16];
	snprintf(exit_code, sizeof exit_code, "%d", KF_SANITIZER_ERROR_EXIT);
	argv[a++] = (char *)sr->sanitizer;
	argv[a++] = "--tool";
	argv[a++] = (char *)sr->tool;
	argv[a++] = "--error-exitcode";
	argv[a++] = exit_code;
	if (sr->padding) {
		argv[a++] = "--padding";
		argv[a++] = KF_SANITIZER_PADDING;
	}
	argv[a++] = (char *)sr->harness;
	argv[a++] = (char *)sr->so;
	argv[a++] = (char *)sr->dir;
	snprintf(nums[k], sizeof nums[k], "%d", t->n_inputs);
	argv[a++] = nums[k++];
	snprintf(nums[k], sizeof nums[k], "%d", n_tensors(t));
	argv[a++] = nums[k++];
	snprintf(nums[k], sizeof nums[k], "%d", t->n_symbols);
	argv[a++] = nums[k++];
	for (int i = 0; i < t->n_symbols; i++) {
		snprintf(nums[k], sizeof nums[k], "%lld", (long long)s->v[i]);
		argv[a++] = nums[k++];
	}
	for (int i = 0; i < n_tensors(t); i++) {
		snprintf(nums[k], sizeof nums[k], "%zu", kf_task_tensor_bytes(t, i, s));
		argv[a++] = nums[k++];
	}
	argv[a] = NULL;
	char env_home[PATH_MAX + 8], env_tmp[PATH_MAX + 8], env_dev[32];
	snprintf(env_home, sizeof env_home, "HOME=%s/tmp", sr->dir);
	snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s/tmp", sr->dir);
	snprintf(env_dev, sizeof env_dev, "CUDA_VISIBLE_DEVICES=%d", sr->device);
	char *envp[] = { "PATH=/usr/bin:/bin", env_home, env_tmp, env_dev, "CUDA_CACHE_DISABLE=1", NULL };
	int status = 0;
	bool timed_out = false;
	kf_buf out = KF_BUF_INIT;
	int rc = run_jailed(argv, envp, sr->timeout_s, &out, &status, &timed_out, err);
	if (rc != KF_OK) {
		kf_buf_free(&out);
		return rc;
	}
	cJSON *e = cJSON_CreateObject();
	cJSON_AddItemToArray(arr, e);
	kf_buf shape = KF_BUF_INIT;
	kf_task_shape_format(t, s, &shape);
	cJSON_AddStringToObject(e, "shape", shape.data);
	kf_buf_free(&shape);
	cJSON *kinds = cJSON_AddArrayToObject(e, "kinds");
	int errors = parse_report(out.data ? out.data : "", kinds);
	kf_buf_free(&out);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	cJSON_AddNumberToObject(e, "exit", code);
	cJSON_AddNumberToObject(e, "errors", errors);
	if (timed_out)
		*v = KF_VOTE_ABSTAIN;
	else if (code == KF_SANITIZER_ERROR_EXIT || errors > 0 || code == KF_HARNESS_EXIT_KERNEL)
		*v = KF_VOTE_FAIL;
	else if (code == 0 && errors == 0)
		*v = KF_VOTE_PASS;
	else
		*v = KF_VOTE_ABSTAIN; /* the tool or the harness could not run here */
	cJSON_AddBoolToObject(e, "timed_out", timed_out);
	cJSON_AddBoolToObject(e, "padding", sr->padding);
	return KF_OK;
}

static int sanitize_tool(struct kf_trials *tr, const struct sanitizer_run *base, const char *tool,
			 const struct kf_shape *const *shapes, int n_shapes, struct kf_vote_rec *out, kf_err *err)
{
	struct sanitizer_run sr = *base;
	sr.tool = tool;
	out->evidence = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(out->evidence, "runs");
	int pass = 0;
	for (int k = 0; k < n_shapes; k++) {
		enum kf_vote v;
		if (write_inputs(tr, shapes[k], draw_seed(tr->o->seed, KF_VER_MEMCHECK, k), sr.dir, err) != KF_OK ||
		    sanitize_shape(tr, &sr, shapes[k], arr, &v, err) != KF_OK)
			return err->code;
		if (v == KF_VOTE_FAIL) {
			vote(out, KF_VOTE_FAIL, "compute-sanitizer %s reported errors (see runs)", tool);
			return KF_OK;
		}
		pass += v == KF_VOTE_PASS;
	}
	if (pass)
		vote(out, KF_VOTE_PASS, "compute-sanitizer %s clean on %d shape%s", tool, pass, pass == 1 ? "" : "s");
	else
		vote(out, KF_VOTE_ABSTAIN, "compute-sanitizer %s could not run here (see runs)", tool);
	return KF_OK;
}

/* Up to max ragged shapes, those with the fewest output elements first. */
static int small_ragged(const struct kf_task *t, const struct kf_shape **out, int max)
{
	int n = t->n_shapes[KF_SET_RAGGED];
	const struct kf_shape **all = kf_xcalloc((size_t)n, sizeof *all);
	for (int k = 0; k < n; k++) {
		int at = k;
		const struct kf_shape *s = &t->shapes[KF_SET_RAGGED][k];
		for (; at > 0 && kf_task_numel(t, t->n_inputs, all[at - 1]) > kf_task_numel(t, t->n_inputs, s); at--)
			all[at] = all[at - 1];
		all[at] = s;
	}
	int kept = n < max ? n : max;
	memcpy(out, all, sizeof *out * (size_t)kept);
	free(all);
	return kept;
}

static int sanitizer_votes(const struct kf_task *t, struct kf_trials *tr, const struct kf_verify_opts *o,
			   struct kf_vote_rec *mem, struct kf_vote_rec *race, kf_err *err)
{
	char sanitizer[PATH_MAX], harness[PATH_MAX], why[256] = "";
	if (o->backend != KF_BACKEND_CUDA) {
		vote(mem, KF_VOTE_ABSTAIN, "compute-sanitizer checks CUDA kernels; this is a %s candidate",
		     kf_backend_name(o->backend));
		vote(race, KF_VOTE_ABSTAIN, "compute-sanitizer checks CUDA kernels; this is a %s candidate",
		     kf_backend_name(o->backend));
		return KF_OK;
	}
	if (!o->sanitizers) {
		vote(mem, KF_VOTE_ABSTAIN, "compute-sanitizer was not asked for (kforge run --verify full runs it)");
		vote(race, KF_VOTE_ABSTAIN, "compute-sanitizer was not asked for (kforge run --verify full runs it)");
		return KF_OK;
	}
	if (!find_sanitizer(sanitizer, sizeof sanitizer)) {
		vote(mem, KF_VOTE_ABSTAIN, "compute-sanitizer is not installed here");
		vote(race, KF_VOTE_ABSTAIN, "compute-sanitizer is not installed here");
		return KF_OK;
	}
	if (build_harness(harness, sizeof harness, why, sizeof why, err) != KF_OK)
		return err->code;
	if (why[0]) {
		vote(mem, KF_VOTE_ABSTAIN, "%s", why);
		vote(race, KF_VOTE_ABSTAIN, "%s", why);
		return KF_OK;
	}
	char dir[PATH_MAX], tmp[PATH_MAX + 8], exe[PATH_MAX + 16], so[PATH_MAX + 16];
	if (kf_mkdtemp("/tmp", "kforge-sanitize-", dir, sizeof dir, err) != KF_OK)
		return err->code;
	snprintf(tmp, sizeof tmp, "%s/tmp", dir);
	snprintf(exe, sizeof exe, "%s/harness", dir);
	snprintf(so, sizeof so, "%s/candidate.so", dir);
	int rc = KF_OK;
	/* The jailed tool runs as an unprivileged user: it reads the harness, the candidate and the
	 * inputs, and writes its scratch files under tmp/. */
	if (chmod(dir, 0755) != 0 || mkdir(tmp, 0700) != 0 || chmod(tmp, 01777) != 0) {
		rc = kf_errno(err, KF_EINTERNAL, "cannot prepare %s for compute-sanitizer", dir);
		goto out;
	}
	if ((rc = copy_file(harness, exe, 0755, err)) != KF_OK || (rc = copy_file(tr->so_path, so, 0644, err)) != KF_OK)
		goto out;
	const struct kf_shape *shapes[KF_SANITIZER_SHAPES];
	int n_shapes = small_ragged(t, shapes, KF_SANITIZER_SHAPES);
	struct sanitizer_run sr = { NULL, sanitizer, exe, so, dir, o->sanitizer_timeout_s, o->device,
				    sanitizer_has_padding(sanitizer) };
	if ((rc = sanitize_tool(tr, &sr, "memcheck", shapes, n_shapes, mem, err)) == KF_OK)
		rc = sanitize_tool(tr, &sr, "racecheck", shapes, n_shapes, race, err);
out:
	kf_rm_rf(dir);
	return rc;
}

/* ---- all of it ---- */

static void abstain_all_runs(struct kf_verify_result *r, const char *why)
{
	static const enum kf_verifier run[] = { KF_VER_RAGGED, KF_VER_HIDDEN, KF_VER_STRESS, KF_VER_DETERMINISM,
						KF_VER_MEMCHECK, KF_VER_RACECHECK };
	for (size_t i = 0; i < sizeof run / sizeof run[0]; i++)
		vote(&r->votes[run[i]], KF_VOTE_ABSTAIN, "%s", why);
}

int kf_verify_candidate(const struct kf_task *t, const char *source, size_t len, const cJSON *judge_result,
			const struct kf_verify_opts *o, struct kf_verify_result *out, kf_err *err)
{
	memset(out, 0, sizeof *out);
	int64_t t0 = kf_now_ns();
	const char *verdict = jstr(judge_result, "verdict");
	tests_vote(judge_result, &out->votes[KF_VER_TESTS]);
	margin_vote(judge_result, o, &out->votes[KF_VER_ERROR_MARGIN]);
	timing_vote(judge_result, o, &out->votes[KF_VER_TIMING]);
	kf_verify_static(source, len, &out->votes[KF_VER_STATIC]);
	vote(&out->votes[KF_VER_CONSENSUS], KF_VOTE_ABSTAIN, "consensus is decided over the task's candidates together");
	vote(&out->votes[KF_VER_LLM_JUDGE], KF_VOTE_ABSTAIN, "no LLM judge was asked (kforge rank --llm-judge MODEL)");
	if (not_worth_running(verdict)) {
		char why[256];
		snprintf(why, sizeof why, "not run again: the judge said %s", verdict ? verdict : "nothing");
		abstain_all_runs(out, why);
		goto done;
	}
	const struct kf_area_ops *ops;
	kf_err why;
	out->partial = kf_area_ops_for(o->backend, &ops, &why) != KF_OK;
	struct kf_trials *tr;
	if (kf_trials_open(t, source, len, o, &tr, err) != KF_OK)
		return err->code;
	int rc = KF_OK;
	if (kf_trials_unusable(tr)) {
		char why[600];
		snprintf(why, sizeof why, "cannot run it here: %s", kf_trials_unusable(tr));
		abstain_all_runs(out, why);
		goto close;
	}
	if ((rc = ragged_vote(tr, judge_result, &out->votes[KF_VER_RAGGED], err)) != KF_OK ||
	    (rc = hidden_vote(tr, &out->votes[KF_VER_HIDDEN], err)) != KF_OK ||
	    (rc = stress_vote(tr, &out->votes[KF_VER_STRESS], err)) != KF_OK ||
	    (rc = determinism_vote(tr, &out->votes[KF_VER_DETERMINISM], err)) != KF_OK ||
	    (rc = probes(tr, out, err)) != KF_OK)
		goto close;
	rc = sanitizer_votes(t, tr, o, &out->votes[KF_VER_MEMCHECK], &out->votes[KF_VER_RACECHECK], err);
close:
	kf_trials_close(tr);
	if (rc != KF_OK) {
		kf_verify_result_free(out);
		return rc;
	}
done:
	out->seconds = (double)(kf_now_ns() - t0) / 1e9;
	return KF_OK;
}

void kf_verify_result_free(struct kf_verify_result *r)
{
	for (int v = 0; v < KF_VER_COUNT; v++)
		cJSON_Delete(r->votes[v].evidence);
	for (int k = 0; k < r->n_probes; k++)
		free(r->probes[k].values);
	free(r->probes);
	memset(r, 0, sizeof *r);
}
