/* The judge (see judge.h). One evaluation = compile, correctness battery, determinism
 * re-run, timing, speed of light. Every check that fails sets the verdict once, with a reason
 * that names the tensor, the element, the shape and the seed, and the evaluation stops there. */
#include "eval/judge.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/rng.h"
#include "common/version.h"
#include "eval/abi.h"
#include "eval/area.h"
#include "eval/compare.h"
#include "eval/policy.h"
#include "eval/stats.h"
#include "eval/tensor.h"
#include "eval/trusted.h"
#include "sandbox/sandbox.h"

#define KF_DEFAULT_SEEDS 3
#define KF_DEFAULT_CALL_TIMEOUT_S 10.0
#define KF_DEFAULT_CPU_LIMIT_S 600.0
#define KF_DEFAULT_MEM_LIMIT (4ull << 30)
#define KF_DEFAULT_TIMING_BUDGET_S 3.0
#define KF_DEFAULT_MIN_ITERS 10
#define KF_DEFAULT_MAX_ITERS 400
#define KF_DEFAULT_TARGET_RSE 0.01
#define KF_DEFAULT_VERIFY_FRACTION 0.2
/* Above either, expected outputs come from the reference kernel and stay where the data lives. */
#define KF_ORACLE_MAX_FLOPS 3e8
#define KF_ORACLE_MAX_ELEMS (1 << 23) /* elements over all tensors (host copies in double) */
#define KF_REFERENCE_TOL_FACTOR 2.0   /* see kf_judge_tolerance() */
/* Hardened timing: when the interleaved reference runs this much slower than its best on this
 * machine (stored evaluations), the device was disturbed (another tenant, a slowdown), and the
 * measurement is taken again, at most KF_DRIFT_RETRIES times. A shared CPU varies far more. */
#define KF_DRIFT_RETRIES 2
static const double ref_drift[KF_BACKEND_COUNT] = { [KF_BACKEND_CPU] = 0.5, [KF_BACKEND_CUDA] = 0.1 };
#define KF_SETTLE_NS 2000000        /* an output must stay unchanged this long after kf_launch returns */
#define KF_BUF_ALIGN 4096           /* every tensor starts on its own page */
#define KF_PINGS 20
#define KF_OVERHEAD_FLOOR_NS 200000 /* protocol cost tolerated between the runner's and our clock */
#define KF_OVERHEAD_PINGS_FACTOR 20
/* How far below t_SOL a median must be for faster_than_light. Datasheet ceilings (devices) are
 * true upper bounds; ceilings measured on a shared CPU sit well under the truth whenever the
 * machine was busy, so they get a wide margin (and are re-measured before the verdict). */
#define KF_FTL_CONFIRMATIONS 3 /* re-measurements of the ceilings before the verdict stands */
static const double ftl_slack[KF_BACKEND_COUNT] = { [KF_BACKEND_CPU] = 1.5, [KF_BACKEND_CUDA] = 1.05 };
#define KF_WARMUP_CALLS 2
#define KF_REASON_MAX 1024
#define KF_SESSION_KEY_MAX 160

/* What holds between evaluations of one task (see kf_judge_session in judge.h). */
struct kf_judge_session {
	char key[KF_SESSION_KEY_MAX]; /* task, backend, device and runner limits it was built for; "" = empty */
	const struct kf_area_ops *ops;
	struct kf_area *area;    /* shared with the candidate's runner */
	struct kf_area *refarea; /* the judge's own reference runs, and the reference's runner */
	struct kf_area *vendarea;/* the vendor baseline's runner (NULL without one) */
	struct kf_sampler *sampler;
	struct kf_trusted ref, oracle;
	char vendor_so[PATH_MAX]; /* the compiled vendor baseline; empty without one */
	char vendor_off[KF_REASON_MAX]; /* why the vendor baseline is not timed, once it was dropped */
	struct kf_runner *refr, *vendr; /* kept up between evaluations on devices */
	size_t off[KF_MAX_TENSORS], shm_bytes;
	int64_t max_n[KF_MAX_TENSORS], max_oracle_n[KF_MAX_TENSORS];
	/* Host copies, for the shapes the oracle checks: */
	void *priv[KF_MAX_TENSORS];   /* inputs: the judge's copy; outputs: snapshot of the candidate's */
	double *dval[KF_MAX_TENSORS]; /* oracle arguments in double; for outputs, the expected values */
	void *keep[KF_MAX_TENSORS];   /* outputs of the run the determinism check repeats */
	void *scratch[KF_MAX_TENSORS];/* host copies read back for comparisons */
};

struct judge {
	const struct kf_task *t;
	const struct kf_judge_opts *o;
	const struct kf_peaks *peaks;
	struct kf_peaks confirmed; /* the ceilings measured again before a faster-than-light verdict */
	enum kf_backend b;
	struct kf_judge_session *s;
	enum kf_verdict verdict;
	char reason[KF_REASON_MAX];
	double max_abs, max_rel, max_margin;
	cJSON *trials;
	cJSON *warnings;
	cJSON *phases; /* wall time of each stage, for cost accounting */
};

void kf_judge_opts_default(struct kf_judge_opts *o)
{
	memset(o, 0, sizeof *o);
	o->backend = KF_BACKEND_CPU;
	if (getrandom(&o->seed, sizeof o->seed, 0) != (ssize_t)sizeof o->seed)
		o->seed = (uint64_t)kf_now_ns();
	o->seed %= KF_SEED_LIMIT;
	o->n_seeds = KF_DEFAULT_SEEDS;
	o->call_timeout_s = KF_DEFAULT_CALL_TIMEOUT_S;
	o->cpu_limit_s = KF_DEFAULT_CPU_LIMIT_S;
	o->mem_limit_bytes = KF_DEFAULT_MEM_LIMIT;
	o->timing_budget_s = KF_DEFAULT_TIMING_BUDGET_S;
	o->min_iters = KF_DEFAULT_MIN_ITERS;
	o->max_iters = KF_DEFAULT_MAX_ITERS;
	o->target_rse = KF_DEFAULT_TARGET_RSE;
	o->verify_fraction = KF_DEFAULT_VERIFY_FRACTION;
}

/* ---- small helpers ---- */

static bool reject(struct judge *j, enum kf_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool reject(struct judge *j, enum kf_verdict v, const char *fmt, ...)
{
	if (j->verdict != KF_V_OK)
		return true;
	j->verdict = v;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->reason, sizeof j->reason, fmt, ap);
	va_end(ap);
	return true;
}

static void warn(struct judge *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct judge *j, const char *fmt, ...)
{
	char msg[KF_REASON_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(j->warnings, cJSON_CreateString(msg));
}

static void describe_shape(const struct kf_task *t, const struct kf_shape *s, char *out, size_t len)
{
	size_t used = (size_t)snprintf(out, len, "{");
	for (int i = 0; i < t->n_symbols && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s=%lld", i ? ", " : "", t->symbols[i],
					 (long long)s->v[i]);
	if (used < len)
		snprintf(out + used, len - used, "}");
}

static cJSON *shape_json(const struct kf_task *t, const struct kf_shape *s)
{
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < t->n_symbols; i++)
		cJSON_AddNumberToObject(o, t->symbols[i], (double)s->v[i]);
	return o;
}

static uint64_t trial_seed(uint64_t base, int k)
{
	uint64_t x = base + (uint64_t)k * 0x9e3779b97f4a7c15ULL;
	return kf_splitmix64(&x);
}

/* ---- trusted kernels ---- */

/* The vendor baseline runs only in its own runner: compiled here, never loaded. One that does
 * not build costs the evaluation its vendor column, not its verdict. */
static void compile_vendor(struct judge *j, cJSON *record)
{
	char rel[PATH_MAX];
	if (!record || !kf_task_vendor_source(j->t, j->b, rel, sizeof rel))
		return;
	cJSON *v = cJSON_AddObjectToObject(record, "vendor");
	cJSON_AddStringToObject(v, "name", j->t->vendor_baseline);
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	kf_abi_header(j->t, j->b, &hdr);
	kf_abi_shim(j->t, j->b, &shim);
	kf_err err = { 0 };
	if (kf_trusted_compile(j->b, j->o->device, rel, hdr.data, shim.data, true, j->s->vendor_so,
			       sizeof j->s->vendor_so, v, &err) != KF_OK) {
		j->s->vendor_so[0] = '\0';
		snprintf(j->s->vendor_off, sizeof j->s->vendor_off, "it does not build: %s", err.msg);
		warn(j, "the vendor baseline is not timed: %s", j->s->vendor_off);
	}
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
}

/* ---- buffers ---- */

static int n_tensors(const struct kf_task *t) { return t->n_inputs + t->n_outputs; }

static void phase_done(struct judge *j, const char *name, int64_t *t0)
{
	int64_t now = kf_now_ns();
	cJSON_AddNumberToObject(j->phases, name, kf_ns_to_ms(now - *t0));
	*t0 = now;
}

bool kf_judge_uses_oracle(const struct kf_task *t, const struct kf_shape *s)
{
	if (kf_task_flops(t, s) > KF_ORACLE_MAX_FLOPS)
		return false;
	int64_t n = 0;
	for (int i = 0; i < n_tensors(t); i++)
		n += kf_task_numel(t, i, s);
	return n <= KF_ORACLE_MAX_ELEMS;
}

static void note_shape(struct judge *j, const struct kf_shape *s)
{
	bool oracle = kf_judge_uses_oracle(j->t, s);
	for (int i = 0; i < n_tensors(j->t); i++) {
		int64_t n = kf_task_numel(j->t, i, s);
		if (n > j->s->max_n[i])
			j->s->max_n[i] = n;
		if (oracle && n > j->s->max_oracle_n[i])
			j->s->max_oracle_n[i] = n;
	}
}

/* The areas hold every shape; the judge's host copies only the shapes the oracle checks (larger
 * ones never leave the areas). */
static int alloc_buffers(struct judge *j, kf_err *err)
{
	const struct kf_task *t = j->t;
	for (int set = KF_SET_TEST; set < KF_SET_COUNT; set++)
		for (int k = 0; k < t->n_shapes[set]; k++)
			note_shape(j, &t->shapes[set][k]);
	note_shape(j, &t->bench[j->b]);
	size_t off = 0;
	for (int i = 0; i < n_tensors(t); i++) {
		size_t bytes = (size_t)j->s->max_n[i] * kf_dtype_size(t->tensors[i].dtype);
		j->s->off[i] = off;
		off += (bytes + KF_BUF_ALIGN - 1) / KF_BUF_ALIGN * KF_BUF_ALIGN;
		size_t n = (size_t)(j->s->max_oracle_n[i] > 0 ? j->s->max_oracle_n[i] : 1);
		size_t host = n * kf_dtype_size(t->tensors[i].dtype);
		j->s->priv[i] = kf_xmalloc(host);
		j->s->keep[i] = t->tensors[i].is_output ? kf_xmalloc(host) : NULL;
		j->s->scratch[i] = kf_xmalloc(host);
		j->s->dval[i] = kf_xmalloc(sizeof(double) * n);
	}
	j->s->shm_bytes = off ? off : KF_BUF_ALIGN;
	if (kf_area_ops_for(j->b, &j->s->ops, err) != KF_OK)
		return err->code;
	if (j->s->ops->create(j->s->shm_bytes, j->o->device, &j->s->area, err) != KF_OK ||
	    j->s->ops->create(j->s->shm_bytes, j->o->device, &j->s->refarea, err) != KF_OK)
		return err->code;
	if (j->s->vendor_so[0] && j->s->ops->create(j->s->shm_bytes, j->o->device, &j->s->vendarea, err) != KF_OK)
		return err->code;
	return KF_OK;
}

/* Everything a session holds, released; the session is empty again. */
static void session_clear(struct kf_judge_session *s)
{
	kf_runner_stop(s->refr);
	kf_runner_stop(s->vendr);
	kf_trusted_unload(&s->ref);
	kf_trusted_unload(&s->oracle);
	for (int i = 0; i < KF_MAX_TENSORS; i++) {
		free(s->priv[i]);
		free(s->keep[i]);
		free(s->scratch[i]);
		free(s->dval[i]);
	}
	if (s->ops) {
		s->ops->destroy(s->area);
		s->ops->destroy(s->refarea);
		if (s->vendarea)
			s->ops->destroy(s->vendarea);
	}
	kf_sampler_free(s->sampler);
	memset(s, 0, sizeof *s);
}

struct kf_judge_session *kf_judge_session_new(void)
{
	return kf_xcalloc(1, sizeof(struct kf_judge_session));
}

void kf_judge_session_free(struct kf_judge_session *s)
{
	if (!s)
		return;
	session_clear(s);
	free(s);
}

/* What a session must have been built for to serve an evaluation. */
static void session_key(const struct kf_task *t, const struct kf_judge_opts *o, char *out, size_t len)
{
	snprintf(out, len, "%s:%s:%d:%.3f:%.3f:%zu", t->spec_hash, kf_backend_name(o->backend), o->device,
		 o->call_timeout_s, o->cpu_limit_s, o->mem_limit_bytes);
}

/* Fills an empty (or emptied) session for j's task: trusted kernels (refrec, when given, records the
 * reference's build; res the vendor baseline's), sampler and buffers. */
static int session_build(struct judge *j, cJSON *refrec, cJSON *res, kf_err *err)
{
	session_clear(j->s);
	if (kf_trusted_load_pair(j->t, j->b, j->o->device, &j->s->ref, &j->s->oracle, refrec, err) != KF_OK)
		return err->code;
	compile_vendor(j, res);
	j->s->sampler = kf_sampler_new();
	return alloc_buffers(j, err);
}

/* The task's trusted kernels and buffers, from the session when it was built for this task and
 * these limits, else built afresh (recorded under "reference" and "vendor"). */
static int session_prepare(struct judge *j, cJSON *res, kf_err *err)
{
	char key[KF_SESSION_KEY_MAX];
	session_key(j->t, j->o, key, sizeof key);
	cJSON *refrec = cJSON_AddObjectToObject(res, "reference");
	if (!strcmp(key, j->s->key)) {
		cJSON_AddStringToObject(refrec, "source", j->t->reference[j->b] ? j->t->reference[j->b] : j->t->oracle);
		cJSON_AddBoolToObject(refrec, "reused", true);
		if (j->s->vendor_off[0])
			warn(j, "the vendor baseline is not timed: %s", j->s->vendor_off);
		return KF_OK;
	}
	if (session_build(j, refrec, res, err) != KF_OK)
		return err->code;
	snprintf(j->s->key, sizeof j->s->key, "%s", key);
	return KF_OK;
}

static size_t tensor_bytes(const struct kf_task *t, int i, const struct kf_shape *s)
{
	return (size_t)kf_task_numel(t, i, s) * kf_dtype_size(t->tensors[i].dtype);
}

/* The symbols, then the scalar parameters (task format v2); returns how many. */
static int shape_ints(const struct kf_task *t, const struct kf_shape *s, long long *ints)
{
	return kf_task_call_ints(t, s, ints);
}

/* ---- expected outputs ---- */

/* The oracle's outputs (doubles, in dval[outputs]) for the inputs in priv[inputs]. */
static int oracle_expected(struct judge *j, const struct kf_shape *s, kf_err *err)
{
	const struct kf_task *t = j->t;
	long long ints[KF_TASK_MAX_INTS];
	shape_ints(t, s, ints);
	void *args[KF_MAX_TENSORS];
	for (int i = 0; i < t->n_inputs; i++)
		kf_tensor_to_double(t->tensors[i].dtype, j->s->priv[i], j->s->dval[i], kf_task_numel(t, i, s));
	for (int i = 0; i < n_tensors(t); i++)
		args[i] = j->s->dval[i];
	int rc = j->s->oracle.call(args, ints, NULL);
	return rc ? kf_errf(err, KF_EINTERNAL, "the oracle of task %s failed (returned %d)", t->name, rc) : KF_OK;
}

/* The reference kernel, run by the judge on the inputs already in the reference area. */
static int reference_expected(struct judge *j, const struct kf_shape *s, kf_err *err)
{
	const struct kf_task *t = j->t;
	long long ints[KF_TASK_MAX_INTS];
	shape_ints(t, s, ints);
	void *args[KF_MAX_TENSORS];
	for (int i = 0; i < n_tensors(t); i++)
		args[i] = j->s->ops->ptr(j->s->refarea, j->s->off[i]);
	int rc = j->s->ref.call(args, ints, j->s->ops->stream(j->s->refarea));
	if (j->s->ops->sync(j->s->refarea, err) != KF_OK)
		return err->code;
	return rc ? kf_errf(err, KF_EINTERNAL, "the reference kernel of task %s failed (returned %d)", t->name, rc)
		  : KF_OK;
}

static void note_error(struct judge *j, const struct kf_cmp *c)
{
	j->max_abs = fmax(j->max_abs, c->max_abs);
	j->max_rel = fmax(j->max_rel, c->max_rel);
	j->max_margin = fmax(j->max_margin, c->margin);
}

struct kf_tolerance kf_judge_tolerance(const struct kf_task *t, int i, bool oracle)
{
	struct kf_tolerance tol = kf_task_tolerance(t, i);
	if (!oracle) {
		tol.atol *= KF_REFERENCE_TOL_FACTOR;
		tol.rtol *= KF_REFERENCE_TOL_FACTOR;
	}
	return tol;
}

static void mismatch(struct judge *j, int i, const struct kf_cmp *c, int64_t n, bool oracle, const char *ctx)
{
	const struct kf_tensor *ten = &j->t->tensors[i];
	struct kf_tolerance tol = kf_judge_tolerance(j->t, i, oracle);
	reject(j, KF_V_WRONG_ANSWER,
	       "output '%s'[%lld] = %.9g, expected %.9g by the %s (tolerance %.3g + %.3g*|expected|); %lld of %lld elements wrong, max abs error %.3g %s",
	       ten->name, (long long)c->first_bad, c->got, c->want, oracle ? "fp64 oracle" : "reference kernel", tol.atol,
	       tol.rtol, (long long)c->n_bad, (long long)n, c->max_abs, ctx);
}

/* Every output in area a against the expected values for the inputs in a: the oracle's on
 * shapes it checks (on the host), otherwise the reference kernel's, run on a copy of the inputs
 * and compared where the data lives. Returns the first output that fails (-1: none) with its
 * comparison in *bad; with record_error, the evaluation's error statistics take the outputs in
 * (against the oracle only: errors against the reference's rounded outputs would overstate them). */
static int verify_outputs(struct judge *j, struct kf_area *a, const struct kf_shape *s, bool record_error,
			  int *failed, struct kf_cmp *bad, kf_err *err)
{
	const struct kf_task *t = j->t;
	bool oracle = kf_judge_uses_oracle(t, s);
	*failed = -1;
	for (int i = 0; i < t->n_inputs; i++) {
		int rc = oracle ? j->s->ops->download(a, j->s->off[i], j->s->priv[i], tensor_bytes(t, i, s), err)
				: j->s->ops->copy_from(j->s->refarea, j->s->off[i], a, j->s->off[i], tensor_bytes(t, i, s), err);
		if (rc != KF_OK)
			return err->code;
	}
	if ((oracle ? oracle_expected(j, s, err) : reference_expected(j, s, err)) != KF_OK)
		return err->code;
	for (int i = t->n_inputs; i < n_tensors(t) && *failed < 0; i++) {
		const struct kf_tensor *ten = &t->tensors[i];
		int64_t n = kf_task_numel(t, i, s);
		struct kf_tolerance tol = kf_judge_tolerance(t, i, oracle);
		if (oracle) {
			if (j->s->ops->download(a, j->s->off[i], j->s->priv[i], tensor_bytes(t, i, s), err) != KF_OK)
				return err->code;
			kf_compare(ten->dtype, j->s->priv[i], j->s->dval[i], n, tol, bad);
		} else if (j->s->ops->compare(a, j->s->off[i], j->s->refarea, j->s->off[i], ten->dtype, n, tol, bad, err) != KF_OK) {
			return err->code;
		}
		if (record_error && oracle) /* the reference's outputs are rounded: only the oracle's are exact */
			note_error(j, bad);
		if (!bad->pass)
			*failed = i;
	}
	return KF_OK;
}

/* ---- the checks of one call ---- */

struct trial {
	const char *set;       /* "test", "ragged", "stress", "bench", "repeat" */
	const struct kf_shape *shape;
	uint64_t seed;
	const struct kf_stress *stress;
	bool keep_outputs;     /* remember the outputs for the determinism check */
	bool against_kept;     /* compare with the remembered outputs */
};

/* Host-side inputs (shapes the oracle checks): drawn here, uploaded, outputs poisoned. */
static int draw_inputs(struct judge *j, const struct trial *tr, kf_err *err)
{
	const struct kf_task *t = j->t;
	kf_rng r;
	kf_rng_seed(&r, tr->seed);
	for (int i = 0; i < t->n_inputs; i++) {
		const struct kf_dist d = kf_task_dist(t, i, tr->stress, tr->shape);
		kf_tensor_fill(j->s->sampler, &r, &d, t->tensors[i].dtype, j->s->priv[i], kf_task_numel(t, i, tr->shape));
		if (j->s->ops->upload(j->s->area, j->s->off[i], j->s->priv[i], tensor_bytes(t, i, tr->shape), err) != KF_OK)
			return err->code;
	}
	for (int i = t->n_inputs; i < n_tensors(t); i++)
		if (j->s->ops->poison(j->s->area, j->s->off[i], t->tensors[i].dtype, kf_task_numel(t, i, tr->shape), err) != KF_OK)
			return err->code;
	return j->s->ops->sync(j->s->area, err);
}

/* Fresh input values drawn where the buffers live (stress overrides applied) and poisoned
 * outputs; for a timed call also a cache flush, so it starts cold on data it has never seen.
 * hashes remember the inputs, so a write to them is noticed. */
static int prepare_in_place(struct judge *j, struct kf_area *a, const struct kf_shape *s,
			    const struct kf_stress *stress, kf_rng *r, uint64_t *hashes, bool flush, kf_err *err)
{
	const struct kf_task *t = j->t;
	for (int i = 0; i < t->n_inputs; i++) {
		int64_t n = kf_task_numel(t, i, s);
		const struct kf_tensor *ten = &t->tensors[i];
		const struct kf_dist d = kf_task_dist(t, i, stress, s);
		if (j->s->ops->fill) {
			if (j->s->ops->fill(a, j->s->off[i], ten->dtype, n, &d, kf_rng_next(r), err) != KF_OK)
				return err->code;
		} else {
			kf_tensor_fill(j->s->sampler, r, &d, ten->dtype, j->s->ops->host_view(a, j->s->off[i]), n);
		}
		if (hashes && j->s->ops->hash(a, j->s->off[i], tensor_bytes(t, i, s), &hashes[i], err) != KF_OK)
			return err->code;
	}
	for (int i = t->n_inputs; i < n_tensors(t); i++)
		if (j->s->ops->poison(a, j->s->off[i], t->tensors[i].dtype, kf_task_numel(t, i, s), err) != KF_OK)
			return err->code;
	if (flush && j->s->ops->flush(a, kf_rng_next(r), err) != KF_OK)
		return err->code;
	return j->s->ops->sync(a, err);
}

/* Inputs untouched and every output element written, checked where the data lives. */
static int check_written(struct judge *j, struct kf_area *a, const struct kf_shape *s, const uint64_t *h,
			 const char *ctx, kf_err *err)
{
	const struct kf_task *t = j->t;
	for (int i = 0; i < t->n_inputs; i++) {
		uint64_t now;
		if (j->s->ops->hash(a, j->s->off[i], tensor_bytes(t, i, s), &now, err) != KF_OK)
			return err->code;
		if (now != h[i]) {
			reject(j, KF_V_INPUTS_MODIFIED, "kf_launch wrote to input '%s' %s", t->tensors[i].name, ctx);
			return KF_OK;
		}
	}
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		int64_t bad, n = kf_task_numel(t, i, s);
		if (j->s->ops->count_poison(a, j->s->off[i], t->tensors[i].dtype, n, &bad, err) != KF_OK)
			return err->code;
		if (bad) {
			reject(j, KF_V_UNWRITTEN_OUTPUT, "%lld of %lld elements of output '%s' were never written %s",
			       (long long)bad, (long long)n, t->tensors[i].name, ctx);
			return KF_OK;
		}
	}
	return KF_OK;
}

/* An output must stay unchanged a while after kf_launch returned: waits out the rest of it. */
static void settle(int64_t t_done)
{
	int64_t waited = kf_now_ns() - t_done;
	if (waited < KF_SETTLE_NS) {
		struct timespec ts = { 0, KF_SETTLE_NS - waited };
		nanosleep(&ts, NULL);
	}
}

static void still_changing(struct judge *j, int i, const char *ctx)
{
	reject(j, KF_V_UNWRITTEN_OUTPUT,
	       "output '%s' was still changing after kf_launch returned (work left running in the background) %s",
	       j->t->tensors[i].name, ctx);
}

static void trial_context(struct judge *j, const struct trial *tr, char *out, size_t len)
{
	char shape[256];
	describe_shape(j->t, tr->shape, shape, sizeof shape);
	snprintf(out, len, "at %s shape %s, seed %llu%s%s", tr->set, shape, (unsigned long long)tr->seed,
		 tr->stress ? ", stress " : "", tr->stress ? tr->stress->name : "");
}

/* The checks after a call returned 0 at a shape the oracle checks, on host copies, in order of
 * how much they say about the candidate. Returns kforge's own errors only; j->verdict says
 * whether the candidate passed. */
static int check_outputs(struct judge *j, const struct trial *tr, const char *ctx, int64_t t_done, kf_err *err)
{
	const struct kf_task *t = j->t;
	const struct kf_shape *s = tr->shape;
	for (int i = t->n_inputs; i < n_tensors(t); i++) /* snapshot first: the judge's view at return */
		if (j->s->ops->download(j->s->area, j->s->off[i], j->s->priv[i], tensor_bytes(t, i, s), err) != KF_OK)
			return err->code;
	for (int i = 0; i < t->n_inputs; i++) {
		size_t sz = kf_dtype_size(t->tensors[i].dtype);
		int64_t n = kf_task_numel(t, i, s);
		if (j->s->ops->download(j->s->area, j->s->off[i], j->s->scratch[i], (size_t)n * sz, err) != KF_OK)
			return err->code;
		if (memcmp(j->s->scratch[i], j->s->priv[i], (size_t)n * sz) == 0)
			continue;
		int64_t k = 0;
		while (k < n && !memcmp((char *)j->s->scratch[i] + k * sz, (char *)j->s->priv[i] + k * sz, sz))
			k++;
		reject(j, KF_V_INPUTS_MODIFIED, "kf_launch wrote to input '%s' (element %lld changed) %s",
		       t->tensors[i].name, (long long)k, ctx);
		return KF_OK;
	}
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		int64_t n = kf_task_numel(t, i, s), first;
		int64_t bad = kf_tensor_count_poison(t->tensors[i].dtype, j->s->priv[i], n, &first);
		if (bad) {
			reject(j, KF_V_UNWRITTEN_OUTPUT, "%lld of %lld elements of output '%s' were never written (first at index %lld) %s",
			       (long long)bad, (long long)n, t->tensors[i].name, (long long)first, ctx);
			return KF_OK;
		}
	}
	if (oracle_expected(j, s, err) != KF_OK)
		return err->code;
	const void *ins[KF_MAX_TENSORS];
	enum kf_dtype in_dt[KF_MAX_TENSORS];
	int64_t in_n[KF_MAX_TENSORS];
	for (int i = 0; i < t->n_inputs; i++) {
		ins[i] = j->s->priv[i];
		in_dt[i] = t->tensors[i].dtype;
		in_n[i] = kf_task_numel(t, i, s);
	}
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		const struct kf_tensor *ten = &t->tensors[i];
		int64_t n = kf_task_numel(t, i, s);
		struct kf_tolerance tol = kf_task_tolerance(t, i);
		int copied = -1;
		enum kf_trivial tv = kf_trivial_output(ten->dtype, j->s->priv[i], j->s->dval[i], n, tol, ins, in_dt, in_n,
						       t->n_inputs, &copied);
		if (tv != KF_TRIVIAL_NONE) {
			reject(j, KF_V_TRIVIAL_OUTPUT, "output '%s' is %s while the reference is not %s", ten->name,
			       tv == KF_TRIVIAL_ZERO ? "all zeros" : tv == KF_TRIVIAL_CONSTANT ? "one constant value"
			       : copied >= 0 ? t->tensors[copied].name : "an input",
			       ctx);
			if (tv == KF_TRIVIAL_COPY)
				snprintf(j->reason, sizeof j->reason, "output '%s' is a copy of input '%s' while the reference is not %s",
					 ten->name, t->tensors[copied].name, ctx);
			return KF_OK;
		}
		struct kf_cmp c;
		kf_compare(ten->dtype, j->s->priv[i], j->s->dval[i], n, tol, &c);
		note_error(j, &c);
		if (!c.pass) {
			mismatch(j, i, &c, n, true, ctx);
			return KF_OK;
		}
	}
	settle(t_done);
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		size_t bytes = tensor_bytes(t, i, s);
		if (j->s->ops->download(j->s->area, j->s->off[i], j->s->scratch[i], bytes, err) != KF_OK)
			return err->code;
		if (memcmp(j->s->scratch[i], j->s->priv[i], bytes) != 0) {
			still_changing(j, i, ctx);
			return KF_OK;
		}
	}
	return KF_OK;
}

/* The same checks at a shape too large for the oracle, where the data lives: nothing but a few
 * words crosses to the host. (The trivial-output guard runs on the oracle's shapes only.) */
static int check_in_place(struct judge *j, const struct kf_shape *s, const uint64_t *h, const char *ctx,
			  int64_t t_done, kf_err *err)
{
	const struct kf_task *t = j->t;
	if (check_written(j, j->s->area, s, h, ctx, err) != KF_OK || j->verdict != KF_V_OK)
		return err->code;
	uint64_t out_h[KF_MAX_TENSORS];
	for (int i = t->n_inputs; i < n_tensors(t); i++)
		if (j->s->ops->hash(j->s->area, j->s->off[i], tensor_bytes(t, i, s), &out_h[i], err) != KF_OK)
			return err->code;
	int failed;
	struct kf_cmp c;
	if (verify_outputs(j, j->s->area, s, true, &failed, &c, err) != KF_OK)
		return err->code;
	if (failed >= 0) {
		mismatch(j, failed, &c, kf_task_numel(t, failed, s), kf_judge_uses_oracle(t, s), ctx);
		return KF_OK;
	}
	settle(t_done);
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		uint64_t now;
		if (j->s->ops->hash(j->s->area, j->s->off[i], tensor_bytes(t, i, s), &now, err) != KF_OK)
			return err->code;
		if (now != out_h[i]) {
			still_changing(j, i, ctx);
			return KF_OK;
		}
	}
	return KF_OK;
}

static void check_repeat(struct judge *j, const struct trial *tr, const char *ctx)
{
	const struct kf_task *t = j->t;
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		const struct kf_tensor *ten = &t->tensors[i];
		int64_t n = kf_task_numel(t, i, tr->shape);
		size_t bytes = (size_t)n * kf_dtype_size(ten->dtype);
		if (tr->keep_outputs) {
			memcpy(j->s->keep[i], j->s->priv[i], bytes);
			continue;
		}
		if (!tr->against_kept || !memcmp(j->s->keep[i], j->s->priv[i], bytes))
			continue;
		if (t->determinism == KF_DET_BITWISE) {
			reject(j, KF_V_NONDETERMINISTIC, "output '%s' differs bitwise between two runs on the same inputs %s",
			       ten->name, ctx);
			return;
		}
		kf_tensor_to_double(ten->dtype, j->s->keep[i], j->s->dval[i], n);
		struct kf_cmp c;
		kf_compare(ten->dtype, j->s->priv[i], j->s->dval[i], n, kf_task_tolerance(t, i), &c);
		if (!c.pass) {
			reject(j, KF_V_NONDETERMINISTIC, "output '%s'[%lld] was %.9g in one run and %.9g in another on the same inputs %s",
			       ten->name, (long long)c.first_bad, c.want, c.got, ctx);
			return;
		}
	}
}

static void call_failure(struct judge *j, const struct kf_call_result *res, const char *ctx)
{
	if (res->status == KF_CALL_DIED)
		reject(j, res->verdict, "%s %s", res->reason, ctx);
	else if (res->status == KF_CALL_FAILED)
		reject(j, KF_V_RUNTIME_ERROR, "kf_launch returned %d %s", res->rc, ctx);
}

/* ---- correctness ---- */

/* Runs one trial; j->verdict says whether it passed. Returns kforge's own errors only. */
static int run_trial(struct judge *j, struct kf_runner *r, const struct trial *tr, kf_err *err)
{
	const struct kf_task *t = j->t;
	char ctx[512];
	trial_context(j, tr, ctx, sizeof ctx);
	bool oracle = kf_judge_uses_oracle(t, tr->shape);
	uint64_t h[KF_MAX_TENSORS];
	kf_rng rng;
	kf_rng_seed(&rng, tr->seed);
	if ((oracle ? draw_inputs(j, tr, err) : prepare_in_place(j, j->s->area, tr->shape, tr->stress, &rng, h, false, err)) != KF_OK)
		return err->code;
	long long ints[KF_TASK_MAX_INTS];
	int n_ints = shape_ints(t, tr->shape, ints);
	struct kf_call_result res;
	if (kf_runner_call(r, j->s->off, n_tensors(t), ints, n_ints, &res, err) != KF_OK)
		return err->code;
	int64_t t_done = kf_now_ns();
	if (res.status != KF_CALL_OK)
		call_failure(j, &res, ctx);
	else if ((oracle ? check_outputs(j, tr, ctx, t_done, err) : check_in_place(j, tr->shape, h, ctx, t_done, err)) != KF_OK)
		return err->code;
	if (j->verdict == KF_V_OK && oracle)
		check_repeat(j, tr, ctx);
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "set", tr->set);
	cJSON_AddItemToObject(rec, "shape", shape_json(t, tr->shape));
	cJSON_AddNumberToObject(rec, "seed", (double)tr->seed);
	if (tr->stress)
		cJSON_AddStringToObject(rec, "stress", tr->stress->name);
	cJSON_AddStringToObject(rec, "expected_from", oracle ? "oracle" : "reference");
	cJSON_AddBoolToObject(rec, "pass", j->verdict == KF_V_OK);
	cJSON_AddNumberToObject(rec, "time_ms", kf_ns_to_ms(res.wall_ns));
	cJSON_AddItemToArray(j->trials, rec);
	return KF_OK;
}

static int correctness(struct judge *j, struct kf_runner *r, kf_err *err)
{
	const struct kf_task *t = j->t;
	static const enum kf_shape_set sets[] = { KF_SET_TEST, KF_SET_RAGGED };
	int k = 0;
	for (int sd = 0; sd < j->o->n_seeds; sd++) {
		for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
			for (int i = 0; i < t->n_shapes[sets[si]]; i++) {
				const struct kf_shape *s = &t->shapes[sets[si]][i];
				struct trial tr = { kf_shape_set_name(sets[si]), s, trial_seed(j->o->seed, k++), NULL, false, false };
				/* The first ragged run is repeated below to check determinism (on host copies). */
				tr.keep_outputs = sd == 0 && sets[si] == KF_SET_RAGGED && i == 0 && kf_judge_uses_oracle(t, s);
				if (run_trial(j, r, &tr, err) != KF_OK)
					return err->code;
				if (j->verdict != KF_V_OK)
					return KF_OK;
				if (tr.keep_outputs) {
					struct trial again = tr;
					again.set = "repeat";
					again.keep_outputs = false;
					again.against_kept = true;
					if (run_trial(j, r, &again, err) != KF_OK)
						return err->code;
					if (j->verdict != KF_V_OK)
						return KF_OK;
				}
			}
		}
	}
	for (int st = 0; st < t->n_stress; st++) {
		for (int i = 0; i < t->n_shapes[KF_SET_TEST]; i++) {
			struct trial tr = { "stress", &t->shapes[KF_SET_TEST][i], trial_seed(j->o->seed, k++),
					    &t->stress[st], false, false };
			if (run_trial(j, r, &tr, err) != KF_OK)
				return err->code;
			if (j->verdict != KF_V_OK)
				return KF_OK;
		}
	}
	struct trial bench = { "bench", &t->bench[j->b], trial_seed(j->o->seed, k++), NULL, false, false };
	return run_trial(j, r, &bench, err);
}

/* ---- timing ---- */

enum side_role { SIDE_CANDIDATE, SIDE_REFERENCE, SIDE_VENDOR, SIDE_COUNT };
static const char *const side_names[SIDE_COUNT] = { "candidate", "reference", "vendor" };

struct side {
	struct kf_runner *r; /* NULL: not timed (no vendor baseline, or it failed) */
	struct kf_area *area;
	double *samples_ns;
	int n;
	int inconsistent; /* samples where the runner's clock disagreed with ours */
};

/* SM and memory clocks sampled once per iteration of the timing loop, with the reasons the
 * device gave for holding its clocks down (NVML's event reasons, OR-ed over the loop). */
struct clock_log {
	unsigned before[2], after[2];
	double *sm, *mem;
	int n;
	unsigned long long reasons;
	int slowed; /* samples taken while a power or thermal limit held the clocks down */
};

/* NVML's clock event reasons that mean the device ran slower than it could. */
static const struct {
	unsigned long long bit;
	const char *name;
} slowdowns[] = {
	{ 0x4, "sw_power_cap" },       { 0x8, "hw_slowdown" },           { 0x20, "sw_thermal_slowdown" },
	{ 0x40, "hw_thermal_slowdown" }, { 0x80, "hw_power_brake_slowdown" },
};

static bool slowed_down(unsigned long long reasons)
{
	for (size_t i = 0; i < sizeof slowdowns / sizeof slowdowns[0]; i++)
		if (reasons & slowdowns[i].bit)
			return true;
	return false;
}

static void vendor_dropped(struct judge *j, struct side *sd, const char *why)
{
	warn(j, "the vendor baseline is not timed: %s", why);
	snprintf(j->s->vendor_off, sizeof j->s->vendor_off, "%s", why);
	sd->r = NULL;
}

/* One timed call of a side. For the candidate, every call is checked for untouched inputs and
 * fully written outputs, and a random share (chosen after the call) is fully verified. */
static int timed_call(struct judge *j, struct side *sides, enum side_role role, int iter, kf_rng *r,
		      int64_t ping_ns, kf_err *err)
{
	const struct kf_task *t = j->t;
	const struct kf_shape *s = &t->bench[j->b];
	struct side *sd = &sides[role];
	uint64_t h[KF_MAX_TENSORS];
	bool candidate = role == SIDE_CANDIDATE;
	if (prepare_in_place(j, sd->area, s, NULL, r, candidate ? h : NULL, true, err) != KF_OK)
		return err->code;
	long long ints[KF_TASK_MAX_INTS];
	int n_ints = shape_ints(t, s, ints);
	struct kf_call_result res;
	if (kf_runner_call(sd->r, j->s->off, n_tensors(t), ints, n_ints, &res, err) != KF_OK)
		return err->code;
	char ctx[512], shape[256];
	describe_shape(t, s, shape, sizeof shape);
	snprintf(ctx, sizeof ctx, "in timed iteration %d at bench shape %s", iter, shape);
	if (res.status != KF_CALL_OK) {
		if (role == SIDE_REFERENCE)
			return kf_errf(err, KF_EINTERNAL, "the reference kernel failed while being timed: %s", res.reason);
		if (role == SIDE_VENDOR) {
			kf_runner_stop(sd->r);
			vendor_dropped(j, sd, res.status == KF_CALL_DIED ? res.reason : "kf_launch returned non-zero");
			return KF_OK;
		}
		call_failure(j, &res, ctx);
		return KF_OK;
	}
	/* The runner's clock is only believed when it fits inside ours. */
	int64_t bound = KF_OVERHEAD_PINGS_FACTOR * ping_ns;
	if (bound < KF_OVERHEAD_FLOOR_NS)
		bound = KF_OVERHEAD_FLOOR_NS;
	double sample = (double)res.runner_ns;
	if (res.runner_ns <= 0 || res.runner_ns > res.wall_ns || res.wall_ns - res.runner_ns > bound) {
		sd->inconsistent++;
		sample = (double)(res.wall_ns > ping_ns ? res.wall_ns - ping_ns : res.wall_ns);
	}
	sd->samples_ns[sd->n++] = sample;
	if (!candidate)
		return KF_OK;
	if (check_written(j, sd->area, s, h, ctx, err) != KF_OK || j->verdict != KF_V_OK)
		return err->code;
	/* Chosen after the call, so no candidate can know which outputs get checked. */
	if (kf_rng_uniform(r) >= j->o->verify_fraction)
		return KF_OK;
	int failed;
	struct kf_cmp c;
	if (verify_outputs(j, sd->area, s, false, &failed, &c, err) != KF_OK)
		return err->code;
	if (failed >= 0)
		mismatch(j, failed, &c, kf_task_numel(t, failed, s), kf_judge_uses_oracle(t, s), ctx);
	return KF_OK;
}

/* The vendor baseline is trusted but not assumed right: its last warm-up output must pass. */
static int check_vendor(struct judge *j, struct side *sd, kf_err *err)
{
	int failed;
	struct kf_cmp c;
	if (!sd->r)
		return KF_OK;
	if (verify_outputs(j, sd->area, &j->t->bench[j->b], false, &failed, &c, err) != KF_OK)
		return err->code;
	if (failed >= 0) {
		char why[256];
		snprintf(why, sizeof why, "its output '%s'[%lld] = %.9g disagrees with the reference's %.9g",
			 j->t->tensors[failed].name, (long long)c.first_bad, c.got, c.want);
		kf_runner_stop(sd->r);
		vendor_dropped(j, sd, why);
	}
	return KF_OK;
}

static cJSON *stats_json(const struct side *sd, struct kf_stats *st)
{
	double *ms = kf_xmalloc(sizeof *ms * (size_t)(sd->n ? sd->n : 1));
	for (int i = 0; i < sd->n; i++)
		ms[i] = sd->samples_ns[i] / 1e6;
	kf_stats_compute(ms, sd->n, st);
	free(ms);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "median_ms", st->median);
	cJSON_AddNumberToObject(o, "mean_ms", st->mean);
	cJSON_AddNumberToObject(o, "iqr_ms", st->iqr);
	cJSON_AddNumberToObject(o, "min_ms", st->min);
	cJSON_AddNumberToObject(o, "rse", isfinite(st->rse) ? st->rse : -1);
	cJSON_AddNumberToObject(o, "n", st->n);
	cJSON_AddNumberToObject(o, "clock_disagreements", sd->inconsistent);
	cJSON *arr = cJSON_AddArrayToObject(o, "samples_ns");
	for (int i = 0; i < sd->n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(sd->samples_ns[i]));
	return o;
}

static void clocks_json(const struct clock_log *cl, cJSON *timing)
{
	cJSON *c = cJSON_AddObjectToObject(timing, "clocks_mhz");
	cJSON_AddNumberToObject(c, "sm_before", cl->before[0]);
	cJSON_AddNumberToObject(c, "sm_after", cl->after[0]);
	cJSON_AddNumberToObject(c, "mem_before", cl->before[1]);
	cJSON_AddNumberToObject(c, "mem_after", cl->after[1]);
	const char *names[2][3] = { { "sm_min", "sm_median", "sm_max" }, { "mem_min", "mem_median", "mem_max" } };
	double *v[2] = { cl->sm, cl->mem };
	for (int k = 0; k < 2; k++) {
		struct kf_stats st;
		kf_stats_compute(v[k], cl->n, &st);
		cJSON_AddNumberToObject(c, names[k][0], cl->n ? st.min : 0);
		cJSON_AddNumberToObject(c, names[k][1], cl->n ? st.median : 0);
		cJSON_AddNumberToObject(c, names[k][2], cl->n ? st.max : 0);
	}
	cJSON_AddNumberToObject(c, "samples", cl->n);
	cJSON_AddNumberToObject(c, "slowed_samples", cl->slowed);
	cJSON *seen = cJSON_AddArrayToObject(c, "slowdowns_seen");
	for (size_t i = 0; i < sizeof slowdowns / sizeof slowdowns[0]; i++)
		if (cl->reasons & slowdowns[i].bit)
			cJSON_AddItemToArray(seen, cJSON_CreateString(slowdowns[i].name));
}

static void sample_clocks(struct judge *j, struct clock_log *cl)
{
	unsigned sm = 0, mem = 0;
	unsigned long long reasons = 0;
	j->s->ops->clocks(j->o->device, &sm, &mem, &reasons);
	cl->sm[cl->n] = sm;
	cl->mem[cl->n++] = mem;
	cl->reasons |= reasons;
	cl->slowed += slowed_down(reasons);
}

static struct kf_runner_opts runner_opts(struct judge *j, struct kf_area *a, const char *so, bool vendor_libs)
{
	struct kf_runner_opts ro = { .backend = j->b, .so_path = so, .device = j->o->device,
				     .call_timeout_s = j->o->call_timeout_s, .cpu_limit_s = j->o->cpu_limit_s,
				     .mem_limit_bytes = j->o->mem_limit_bytes, .vendor_libs = vendor_libs };
	ro.shm_fd = j->s->ops->runner_fd(a, &ro.shm_bytes);
	return ro;
}

/* The reference's and vendor baseline's runners, launched once the candidate's was up, started
 * during the correctness battery; by now they usually are. */
static int timing_runners(struct judge *j, struct kf_runner **ref, struct kf_runner **vend, kf_err *err)
{
	struct kf_call_result died;
	if (kf_runner_ready(ref, &died, err) != KF_OK)
		return err->code;
	if (!*ref)
		return kf_errf(err, KF_EINTERNAL, "the reference kernel's runner failed to start: %s", died.reason);
	if (*vend && kf_runner_ready(vend, &died, err) != KF_OK)
		return err->code;
	if (j->s->vendarea && !*vend && !j->s->vendor_off[0]) {
		snprintf(j->s->vendor_off, sizeof j->s->vendor_off, "its runner failed to start: %s", died.reason);
		warn(j, "the vendor baseline is not timed: %s", j->s->vendor_off);
	}
	return KF_OK;
}

/* One measurement: the timed iterations of every side, interleaved, until each side's relative
 * standard error is under the target (after min_iters) or the budget is spent. */
static int measure(struct judge *j, struct side *sides, struct clock_log *cl, kf_rng *r, int64_t ping_ns,
		   struct kf_stats *st, kf_err *err)
{
	int rc = KF_OK;
	for (int k = 0; k < SIDE_COUNT; k++)
		sides[k].n = sides[k].inconsistent = 0;
	cl->n = cl->slowed = 0;
	cl->reasons = 0;
	unsigned long long reasons;
	if (j->s->ops->clocks)
		j->s->ops->clocks(j->o->device, &cl->before[0], &cl->before[1], &reasons);
	int64_t t0 = kf_now_ns();
	memset(st, 0, sizeof *st * SIDE_COUNT);
	for (int it = 0; rc == KF_OK && j->verdict == KF_V_OK && it < j->o->max_iters; it++) {
		for (int k = 0; k < SIDE_COUNT && rc == KF_OK && j->verdict == KF_V_OK; k++)
			if (sides[k].r)
				rc = timed_call(j, sides, (enum side_role)k, it, r, ping_ns, err);
		if (rc != KF_OK || j->verdict != KF_V_OK)
			break;
		if (j->s->ops->clocks)
			sample_clocks(j, cl);
		bool steady = true;
		for (int k = 0; k < SIDE_COUNT; k++) {
			if (!sides[k].r)
				continue;
			kf_stats_compute(sides[k].samples_ns, sides[k].n, &st[k]);
			steady = steady && st[k].rse <= j->o->target_rse;
		}
		double spent = (double)(kf_now_ns() - t0) / 1e9;
		if ((it + 1 >= j->o->min_iters && steady) || (spent >= j->o->timing_budget_s && it + 1 >= 3))
			break;
	}
	return rc;
}

static int timing(struct judge *j, struct kf_runner *cand, struct kf_runner **vend, struct kf_runner *ref, cJSON *res,
		  kf_err *err)
{
	int rc = KF_OK;
	int cap = j->o->max_iters + KF_WARMUP_CALLS;
	struct side sides[SIDE_COUNT] = { { cand, j->s->area, NULL, 0, 0 }, { ref, j->s->refarea, NULL, 0, 0 },
					  { *vend, j->s->vendarea, NULL, 0, 0 } };
	for (int k = 0; k < SIDE_COUNT; k++)
		sides[k].samples_ns = kf_xcalloc((size_t)cap, sizeof(double));
	struct clock_log cl = { .sm = kf_xcalloc((size_t)cap, sizeof(double)), .mem = kf_xcalloc((size_t)cap, sizeof(double)) };
	kf_rng r;
	kf_rng_seed(&r, trial_seed(j->o->seed, -1));
	int64_t pings[KF_PINGS];
	for (int i = 0; i < KF_PINGS && rc == KF_OK; i++)
		rc = kf_runner_ping(cand, &pings[i], err);
	if (rc != KF_OK)
		goto out;
	double pd[KF_PINGS];
	for (int i = 0; i < KF_PINGS; i++)
		pd[i] = (double)pings[i];
	struct kf_stats ps;
	kf_stats_compute(pd, KF_PINGS, &ps);
	int64_t ping_ns = (int64_t)ps.median;

	for (int w = 0; w < KF_WARMUP_CALLS && rc == KF_OK && j->verdict == KF_V_OK; w++)
		for (int k = 0; k < SIDE_COUNT && rc == KF_OK && j->verdict == KF_V_OK; k++)
			if (sides[k].r)
				rc = timed_call(j, sides, (enum side_role)k, -1 - w, &r, ping_ns, err);
	if (rc == KF_OK && j->verdict == KF_V_OK)
		rc = check_vendor(j, &sides[SIDE_VENDOR], err);
	struct kf_stats st[SIDE_COUNT];
	double best_ref = NAN;
	if (rc == KF_OK && j->o->store)
		rc = kf_store_best_ref_time(j->o->store, j->t->spec_hash, kf_backend_name(j->b), j->peaks->key, &best_ref, err);
	int remeasured = 0;
	while (rc == KF_OK && j->verdict == KF_V_OK) {
		if ((rc = measure(j, sides, &cl, &r, ping_ns, st, err)) != KF_OK || j->verdict != KF_V_OK)
			break;
		double drift = st[SIDE_REFERENCE].median / best_ref - 1;
		if (!(drift > ref_drift[j->b]))
			break;
		if (remeasured == KF_DRIFT_RETRIES) {
			warn(j, "the reference stayed %.0f%% slower than its best on this machine (%.4g ms) after %d re-measurements: the device was disturbed, times are high",
			     drift * 100, best_ref, remeasured);
			break;
		}
		remeasured++;
		warn(j, "the reference ran %.0f%% slower than its best on this machine (%.4g ms): the device was disturbed, timing again",
		     drift * 100, best_ref);
	}
	if (rc != KF_OK || j->verdict != KF_V_OK)
		goto out;
	unsigned long long reasons;
	cJSON *timing = cJSON_AddObjectToObject(res, "timing");
	cJSON_AddNumberToObject(timing, "remeasured", remeasured);
	if (j->s->ops->clocks) {
		j->s->ops->clocks(j->o->device, &cl.after[0], &cl.after[1], &reasons);
		clocks_json(&cl, timing);
		if (cl.slowed)
			warn(j, "the device held its clocks down (power or thermal limit) at %d of %d timed iterations: timings may be slow and noisy",
			     cl.slowed, cl.n);
	}
	for (int k = 0; k < SIDE_COUNT; k++)
		if (sides[k].r)
			cJSON_AddItemToObject(timing, side_names[k], stats_json(&sides[k], &st[k]));
	cJSON_AddNumberToObject(timing, "protocol_round_trip_ns", (double)ping_ns);
	cJSON_AddNumberToObject(timing, "flush_bytes", (double)j->s->ops->flush_bytes(j->s->area));
	cJSON_AddNumberToObject(timing, "verify_fraction", j->o->verify_fraction);
	cJSON_AddItemToObject(timing, "bench_shape", shape_json(j->t, &j->t->bench[j->b]));
	double t_ms = st[SIDE_CANDIDATE].median, ref_ms = st[SIDE_REFERENCE].median;
	if (ref_ms < j->t->min_runtime_ms[j->b])
		warn(j, "the reference ran faster than the task's min_runtime_ms at the bench shape: timings may be launch-bound");
	enum kf_sol_bound bound;
	double t_sol_ms = kf_sol_time_s(j->peaks, j->t, &j->t->bench[j->b], &bound) * 1e3;
	for (int k = 0; k < KF_FTL_CONFIRMATIONS && t_ms * ftl_slack[j->b] < t_sol_ms && j->o->store; k++) {
		if (!k) {
			j->confirmed = *j->peaks;
			j->confirmed.json = NULL;
		}
		if ((rc = kf_sol_confirm(j->o->store, j->b, &j->confirmed, err)) != KF_OK)
			goto out;
		j->peaks = &j->confirmed;
		t_sol_ms = kf_sol_time_s(j->peaks, j->t, &j->t->bench[j->b], &bound) * 1e3;
		cJSON_ReplaceItemInObject(res, "machine", cJSON_Duplicate(j->peaks->json, 1));
	}
	cJSON_AddNumberToObject(res, "time_ms", t_ms);
	cJSON_AddNumberToObject(res, "ref_time_ms", ref_ms);
	if (sides[SIDE_VENDOR].r)
		cJSON_AddNumberToObject(res, "vendor_time_ms", st[SIDE_VENDOR].median);
	cJSON_AddNumberToObject(res, "speedup", ref_ms / t_ms);
	cJSON_AddNumberToObject(res, "t_sol_ms", t_sol_ms);
	cJSON_AddNumberToObject(res, "sol_fraction", t_sol_ms / t_ms);
	double score = kf_sol_score(t_ms, t_sol_ms, ref_ms);
	if (isfinite(score))
		cJSON_AddNumberToObject(res, "sol_score", score);
	cJSON_AddStringToObject(res, "bound", kf_sol_bound_name(bound));
	if (t_ms * ftl_slack[j->b] < t_sol_ms)
		reject(j, KF_V_FASTER_THAN_LIGHT,
		       "median %.4g ms is below the speed-of-light bound %.4g ms (%s-bound on %s): the measurement cannot be real",
		       t_ms, t_sol_ms, kf_sol_bound_name(bound), j->peaks->device);
out:
	for (int k = 0; k < SIDE_COUNT; k++)
		free(sides[k].samples_ns);
	free(cl.sm);
	free(cl.mem);
	*vend = sides[SIDE_VENDOR].r; /* NULL once dropped (and already stopped) */
	return rc;
}

/* ---- the evaluation ---- */

static void stop_runners(struct kf_runner **cand, struct kf_runner **ref, struct kf_runner **vend)
{
	struct kf_runner **rs[] = { cand, ref, vend };
	for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
		kf_runner_stop(*rs[i]);
		*rs[i] = NULL;
	}
}

static void add_compile(cJSON *res, const struct kf_compile_res *c)
{
	cJSON *o = cJSON_AddObjectToObject(res, "compile");
	cJSON_AddNumberToObject(o, "ms", c->ms);
	cJSON_AddBoolToObject(o, "cached", c->cached);
	cJSON_AddStringToObject(o, "flags", c->flags);
	cJSON_AddStringToObject(o, "compiler", c->compiler);
	cJSON_AddStringToObject(o, "key", c->key);
	cJSON_AddStringToObject(o, "log", c->log ? c->log : "");
}

static void finish(struct judge *j, cJSON *res)
{
	cJSON_AddStringToObject(res, "verdict", kf_verdict_name(j->verdict));
	cJSON_AddStringToObject(res, "reason", j->verdict == KF_V_OK ? "passed every check" : j->reason);
	static const char *const timing_fields[] = { "time_ms", "ref_time_ms", "vendor_time_ms", "speedup",
						     "t_sol_ms", "sol_fraction", "sol_score" };
	for (size_t i = 0; i < sizeof timing_fields / sizeof timing_fields[0]; i++) {
		if (j->verdict != KF_V_OK && j->verdict != KF_V_FASTER_THAN_LIGHT)
			cJSON_DeleteItemFromObject(res, timing_fields[i]);
		if (!cJSON_GetObjectItem(res, timing_fields[i]))
			cJSON_AddNullToObject(res, timing_fields[i]);
	}
	cJSON_AddNumberToObject(res, "max_abs_err", j->max_abs);
	cJSON_AddNumberToObject(res, "max_rel_err", j->max_rel);
	cJSON_AddNumberToObject(res, "error_margin", j->max_margin);
	cJSON_AddItemToObject(res, "trials", j->trials);
	cJSON_AddItemToObject(res, "warnings", j->warnings);
	cJSON_AddItemToObject(res, "phases", j->phases);
	j->trials = j->warnings = j->phases = NULL;
}

int kf_judge_evaluate(const struct kf_task *t, const struct kf_peaks *peaks, const char *source, size_t len,
		      const struct kf_judge_opts *o, cJSON **result, kf_err *err)
{
	struct kf_judge_session local;
	memset(&local, 0, sizeof local);
	struct judge j = { .t = t, .o = o, .peaks = peaks, .b = o->backend, .verdict = KF_V_OK,
			   .s = o->session ? o->session : &local };
	/* Devices keep the reference's and vendor's runners up between a session's evaluations. */
	bool keep_runners = o->session && o->backend != KF_BACKEND_CPU;
	j.trials = cJSON_CreateArray();
	j.warnings = cJSON_CreateArray();
	j.phases = cJSON_CreateObject();
	int64_t t_phase = kf_now_ns();
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "task", t->name);
	cJSON_AddStringToObject(res, "task_hash", t->spec_hash);
	cJSON_AddStringToObject(res, "backend", kf_backend_name(o->backend));
	cJSON_AddStringToObject(res, "kforge_version", KF_VERSION_STRING);
	cJSON_AddNumberToObject(res, "seed", (double)o->seed);
	cJSON *machine = peaks->json ? cJSON_Duplicate(peaks->json, 1) : cJSON_CreateObject();
	cJSON_AddItemToObject(res, "machine", machine);
	struct kf_runner *cand = NULL, *ref = NULL, *vend = NULL;
	struct kf_compile_res cres;
	memset(&cres, 0, sizeof cres);
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	int rc = KF_OK;
	char why[512];

	if (kf_policy_violation(t, source, len, why, sizeof why)) {
		reject(&j, KF_V_POLICY_VIOLATION, "%s", why);
		goto done;
	}
	kf_abi_header(t, o->backend, &hdr);
	kf_abi_shim(t, o->backend, &shim);
	struct kf_compile_req req = { .backend = o->backend, .source = source, .source_len = len,
				      .header = hdr.data, .shim = shim.data, .vendor_libs = t->vendor_libs_allowed,
				      .cuda_arch = kf_area_arch(o->backend, o->device) };
	if ((rc = kf_compile(&req, &cres, err)) != KF_OK)
		goto out;
	add_compile(res, &cres);
	phase_done(&j, "compile_ms", &t_phase);
	if (cres.verdict != KF_V_OK) {
		reject(&j, cres.verdict, "%s", cres.reason);
		goto done;
	}
	if ((rc = session_prepare(&j, res, err)) != KF_OK)
		goto out;
	phase_done(&j, "reference_ms", &t_phase);
	/* The candidate's runner starts alone (CUDA contexts starting together slow each other down);
	 * the reference's and the vendor's start while the correctness battery runs. */
	struct kf_runner_opts ro[SIDE_COUNT] = { runner_opts(&j, j.s->area, cres.so_path, t->vendor_libs_allowed),
						 runner_opts(&j, j.s->refarea, j.s->ref.path, false) };
	if (j.s->vendarea)
		ro[SIDE_VENDOR] = runner_opts(&j, j.s->vendarea, j.s->vendor_so, true);
	struct kf_call_result died;
	if ((rc = kf_runner_start(&ro[SIDE_CANDIDATE], &cand, &died, err)) != KF_OK)
		goto out;
	phase_done(&j, "sandbox_start_ms", &t_phase);
	if (!cand) {
		reject(&j, died.verdict, "%s", died.reason);
		goto done;
	}
	ref = j.s->refr;
	vend = j.s->vendr;
	j.s->refr = j.s->vendr = NULL;
	if ((!ref && (rc = kf_runner_launch(&ro[SIDE_REFERENCE], &ref, err)) != KF_OK) ||
	    (!vend && j.s->vendarea && !j.s->vendor_off[0] &&
	     (rc = kf_runner_launch(&ro[SIDE_VENDOR], &vend, err)) != KF_OK))
		goto out;
	if ((rc = correctness(&j, cand, err)) != KF_OK)
		goto out;
	phase_done(&j, "correctness_ms", &t_phase);
	if (j.verdict == KF_V_OK) {
		if ((rc = timing_runners(&j, &ref, &vend, err)) != KF_OK)
			goto out;
		phase_done(&j, "runners_ms", &t_phase);
		if ((rc = timing(&j, cand, &vend, ref, res, err)) != KF_OK)
			goto out;
		if (j.verdict == KF_V_OK || j.verdict == KF_V_FASTER_THAN_LIGHT)
			phase_done(&j, "timing_ms", &t_phase);
	}
	cJSON_AddStringToObject(res, "output", kf_runner_output(cand));
	if (keep_runners) {
		j.s->refr = ref;
		j.s->vendr = vend;
		ref = vend = NULL;
	}
	stop_runners(&cand, &ref, &vend);
	phase_done(&j, "stop_ms", &t_phase);
done:
	finish(&j, res);
	*result = res;
	res = NULL;
out:
	stop_runners(&cand, &ref, &vend);
	if (!o->session || rc != KF_OK) /* after kforge's own error, nothing is kept */
		session_clear(j.s);
	kf_compile_res_free(&cres);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	kf_sol_peaks_free(&j.confirmed);
	cJSON_Delete(j.trials);
	cJSON_Delete(j.warnings);
	cJSON_Delete(j.phases);
	cJSON_Delete(res);
	return rc;
}

/* ---- well-posedness of a task ---- */

int kf_judge_check_task(const struct kf_task *t, kf_err *err)
{
	struct kf_judge_opts o;
	kf_judge_opts_default(&o);
	o.seed = 1;
	struct kf_judge_session local;
	memset(&local, 0, sizeof local);
	struct judge j = { .t = t, .o = &o, .b = KF_BACKEND_CPU, .verdict = KF_V_OK, .s = &local };
	int rc = session_build(&j, NULL, NULL, err);
	if (rc != KF_OK)
		goto out;
	const struct kf_shape *s = &t->shapes[KF_SET_TEST][t->n_shapes[KF_SET_TEST] - 1];
	double *first[KF_MAX_TENSORS] = { 0 };
	for (int seed = 0; seed < 2 && rc == KF_OK; seed++) {
		kf_rng r;
		kf_rng_seed(&r, trial_seed(o.seed, seed));
		for (int i = 0; i < t->n_inputs; i++) {
			const struct kf_dist d = kf_task_dist(t, i, NULL, s);
			kf_tensor_fill(j.s->sampler, &r, &d, t->tensors[i].dtype, j.s->priv[i], kf_task_numel(t, i, s));
		}
		if ((rc = oracle_expected(&j, s, err)) != KF_OK)
			break;
		for (int i = t->n_inputs; i < n_tensors(t) && rc == KF_OK; i++) {
			const struct kf_tensor *ten = &t->tensors[i];
			int64_t n = kf_task_numel(t, i, s);
			struct kf_tolerance tol = kf_task_tolerance(t, i);
			if (seed == 1) {
				struct kf_cmp c;
				void *typed = kf_xmalloc((size_t)n * kf_dtype_size(ten->dtype));
				/* Compare the two seeds' answers: an output that barely moves is ill-posed. */
				for (int64_t k = 0; k < n; k++)
					kf_tensor_set(ten->dtype, typed, k, first[i][k]);
				kf_compare(ten->dtype, typed, j.s->dval[i], n, tol, &c);
				free(typed);
				if (c.pass)
					rc = kf_errf(err, KF_EINPUT, "%s: output '%s' does not depend on the inputs enough to fail tolerance across seeds",
						     t->path, ten->name);
				continue;
			}
			first[i] = kf_xmalloc(sizeof(double) * (size_t)n);
			memcpy(first[i], j.s->dval[i], sizeof(double) * (size_t)n);
			void *zeros = kf_xcalloc((size_t)n, kf_dtype_size(ten->dtype));
			struct kf_cmp c;
			kf_compare(ten->dtype, zeros, j.s->dval[i], n, tol, &c);
			free(zeros);
			if (c.pass)
				rc = kf_errf(err, KF_EINPUT, "%s: an all-zero '%s' passes the tolerance (outputs too small or tolerance too loose)",
					     t->path, ten->name);
			double mean = 0;
			for (int64_t k = 0; k < n; k++)
				mean += j.s->dval[i][k] / (double)n;
			void *cst = kf_xmalloc((size_t)n * kf_dtype_size(ten->dtype));
			for (int64_t k = 0; k < n; k++)
				kf_tensor_set(ten->dtype, cst, k, mean);
			kf_compare(ten->dtype, cst, j.s->dval[i], n, tol, &c);
			free(cst);
			/* A one-element output (a loss) is its own mean: the seed-to-seed check below
			 * (the reference's own sensitivity to the inputs) stands in for this one. */
			if (rc == KF_OK && c.pass && n > 1)
				rc = kf_errf(err, KF_EINPUT, "%s: a constant '%s' passes the tolerance", t->path, ten->name);
			for (int in = 0; in < t->n_inputs && rc == KF_OK; in++) {
				if (t->tensors[in].dtype != ten->dtype || kf_task_numel(t, in, s) != n)
					continue;
				kf_compare(ten->dtype, j.s->priv[in], j.s->dval[i], n, tol, &c);
				if (c.pass)
					rc = kf_errf(err, KF_EINPUT, "%s: a copy of input '%s' passes as output '%s'", t->path,
						     t->tensors[in].name, ten->name);
			}
		}
	}
	for (int i = 0; i < KF_MAX_TENSORS; i++)
		free(first[i]);
out:
	session_clear(&local);
	return rc;
}
