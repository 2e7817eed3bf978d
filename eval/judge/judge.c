/* The judge (see judge.h). One evaluation = compile, correctness battery, determinism
 * re-run, timing, speed of light. Every check that fails sets the verdict once, with a reason
 * that names the tensor, the element, the shape and the seed, and the evaluation stops there. */
#include "eval/judge/judge.h"

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
#include "eval/tasks/abi.h"
#include "eval/judge/area.h"
#include "eval/judge/compare.h"
#include "eval/judge/judge_common.h"
#include "eval/judge/multi.h"
#include "eval/judge/policy.h"
#include "eval/judge/stats.h"
#include "eval/tasks/multi.h"
#include "eval/tasks/tensor.h"
#include "eval/judge/trusted.h"
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
/* An evaluation normally takes 5-60 s; a candidate that answers every call just inside the call
 * timeout would otherwise hold its judge for hours. */
#define KF_DEFAULT_DEADLINE_S 300.0
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
#define KF_BUF_ALIGN 4096           /* every tensor's region starts on its own page */
/* Buffers end where their region ends (the guard right after), at this alignment; the slack after
 * the last element and this much before the first are patterned canaries, checked after calls. */
#define KF_END_ALIGN 64
#define KF_CANARY_BYTES 4096
/* The determinism re-run places tensor i this much earlier in its region (room is reserved):
 * other pages and other cache-line offsets, still aligned for vector loads. */
#define KF_DET_SHIFT(i) (KF_BUF_ALIGN + 256 * ((size_t)(i) + 1))
#define KF_DET_SLACK KF_DET_SHIFT(KF_MAX_TENSORS)
/* Timing trust. A timed call has two clocks: the judge's own (wall, command written to reply
 * read, the runner frozen outside it) and the runner's claim. The claim of a trusted runner
 * (reference, vendor baseline) is believed. The candidate's is bounded by the judge's clock: its gap
 * (wall - claim: the protocol, the device switching to the runner's context, the hold kernel, and the
 * host time kf_launch spends enqueueing outside the claimed window) is set against the reference's
 * gap in the same iteration, which trusted code spent under the same conditions. The median over
 * the iterations of the candidate's gap beyond the reference's, less a budget (a kf_launch that
 * enqueues more than the reference's; the gaps of two processes differed by up to 30 us on an H200),
 * is added to every candidate sample. An honest candidate is charged nothing; one that
 * under-reports (a hooked write, a forged reply) or hides work on another stream while the timed
 * stream is held is timed by the judge's clock, and gains at most the budget per call. */
static const double gap_allowance_ns[KF_BACKEND_COUNT] = { [KF_BACKEND_CPU] = 100e3, [KF_BACKEND_CUDA] = 30e3 };
static const double gap_allowance_share[KF_BACKEND_COUNT] = { [KF_BACKEND_CPU] = 0.02, [KF_BACKEND_CUDA] = 0.01 };
#define KF_GAP_QUANTILE 0.9
/* A charged candidate is measured again with new runner processes, at most this many times: the gap
 * carries an offset of each runner's process (its CPU's wake-up, its GPU context), seen up to 70 us
 * apart between two honest runners on an H200 and steady through a process's life, which the paired
 * comparison cannot tell from hidden work. New processes draw new offsets; a forger is charged in
 * every measurement. */
#define KF_CHARGE_RELAUNCHES 2
#define KF_CLAIM_REJECT_SHARE 0.05 /* more calls charged for host time: a warning says so */
#define KF_CLAIM_REJECT_MIN 1      /* one stray sample in a short run is noise, and moves no median */
/* Issue 16.5: a side whose samples fall into two modes, or whose clocks disagree this often, is
 * measured once more; if it persists, a warning names the modes. */
#define KF_DISAGREE_SHARE 0.2
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
	struct kf_area *refarea; /* the judge's own reference runs, and the reference's runner; also the
				    judge's copy of the candidate's inputs, which no candidate reaches */
	struct kf_area *snaparea;/* the candidate's outputs as they were when its call returned */
	struct kf_area *vendarea;/* the vendor baseline's runner (NULL without one) */
	struct kf_sampler *sampler;
	struct kf_trusted ref, oracle;
	char vendor_so[PATH_MAX]; /* the compiled vendor baseline; empty without one */
	char vendor_off[KF_REASON_MAX]; /* why the vendor baseline is not timed, once it was dropped */
	struct kf_runner *refr, *vendr; /* kept up between evaluations on devices */
	/* The next candidate's runner, launched when the last evaluation ended (kf_runner_supply): its
	 * set-up, a device context above all, overlaps the wait for that candidate. */
	struct kf_runner *spare;
	char gpu[KF_GPU_UUID_MAX]; /* the device's UUID, which its runners see alone (kf_runner_opts.visible_gpu) */
	struct kf_area_layout layout; /* the same for every area of the session */
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
	struct kf_judge_worst worst;
	cJSON *trials;
	cJSON *warnings;
	cJSON *phases; /* wall time of each stage, for cost accounting */
	uint8_t pattern;     /* the canaries' byte, drawn per evaluation */
	int64_t deadline_ns; /* kf_now_ns() past which the evaluation ends with timeout; 0 = none */
	const struct kf_shape *snap_shape; /* the call whose outputs snaparea holds (NULL: none pending) */
	char snap_ctx[512];
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
	o->deadline_s = KF_DEFAULT_DEADLINE_S;
}

/* ---- small helpers ---- */

static bool reject(struct judge *j, enum kf_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* True whether or not this call set the verdict: an earlier failure stands. */
static bool reject(struct judge *j, enum kf_verdict v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kf_judge_vreject(&j->verdict, j->reason, sizeof j->reason, v, fmt, ap);
	va_end(ap);
	return true;
}

/* Checked before every call of the candidate: true (and the verdict set) once the deadline passed. */
static bool past_deadline(struct judge *j)
{
	if (!j->deadline_ns || kf_now_ns() < j->deadline_ns)
		return false;
	return reject(j, KF_V_TIMEOUT, "the evaluation took longer than its deadline (%.0f s)", j->o->deadline_s);
}

static void warn(struct judge *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct judge *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kf_judge_vwarn(j->warnings, fmt, ap);
	va_end(ap);
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

/* The buffers of a call: the tensors, then the workspace on CUDA when the spec has one (its own region of the
 * areas, index n_tensors). */
static int n_bufs(const struct judge *j) { return kf_task_n_bufs(j->t, j->b); }

static bool is_workspace(const struct judge *j, int i) { return i == n_tensors(j->t); }

static void phase_done(struct judge *j, const char *name, int64_t *t0)
{
	int64_t now = kf_now_ns();
	cJSON_AddNumberToObject(j->phases, name, kf_ns_to_ms(now - *t0));
	*t0 = now;
	if (j->o->on_phase)
		j->o->on_phase(j->o->on_phase_ctx, name);
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

/* The areas hold every shape, each tensor in a region of its own with a guard after it (area.h);
 * the judge's host copies only the shapes the oracle checks (larger ones never leave the areas). */
static int alloc_buffers(struct judge *j, kf_err *err)
{
	const struct kf_task *t = j->t;
	for (int set = KF_SET_TEST; set < KF_SET_COUNT; set++)
		for (int k = 0; k < t->n_shapes[set]; k++)
			note_shape(j, &t->shapes[set][k]);
	note_shape(j, &t->bench[j->b]);
	struct kf_area_layout *l = &j->s->layout;
	l->n = n_tensors(t);
	l->n_readonly = t->n_inputs;
	size_t off = KF_AREA_GUARD_BYTES;
	for (int i = 0; i < n_tensors(t); i++) {
		size_t bytes = (size_t)j->s->max_n[i] * kf_dtype_size(t->tensors[i].dtype);
		/* Room for the canary before the buffer and for the determinism re-run's shift. */
		size_t need = bytes + KF_CANARY_BYTES + KF_DET_SLACK;
		l->start[i] = off;
		l->end[i] = off + (need + KF_BUF_ALIGN - 1) / KF_BUF_ALIGN * KF_BUF_ALIGN;
		off = l->end[i] + KF_AREA_GUARD_BYTES;
		size_t n = (size_t)(j->s->max_oracle_n[i] > 0 ? j->s->max_oracle_n[i] : 1);
		size_t host = n * kf_dtype_size(t->tensors[i].dtype);
		j->s->priv[i] = kf_xmalloc(host);
		j->s->keep[i] = t->tensors[i].is_output ? kf_xmalloc(host) : NULL;
		j->s->scratch[i] = kf_xmalloc(host);
		j->s->dval[i] = kf_xmalloc(sizeof(double) * n);
	}
	if (n_bufs(j) > n_tensors(t)) { /* the workspace: its largest size, then the same slack and guard */
		size_t need = (size_t)kf_task_workspace_max(t, j->b) + KF_CANARY_BYTES + KF_WORKSPACE_ALIGN;
		l->start[l->n] = off;
		l->end[l->n] = off + (need + KF_BUF_ALIGN - 1) / KF_BUF_ALIGN * KF_BUF_ALIGN;
		off = l->end[l->n++] + KF_AREA_GUARD_BYTES;
	}
	l->bytes = off - KF_AREA_GUARD_BYTES + KF_AREA_TAIL_GUARD_BYTES;
	if (kf_area_ops_for(j->b, &j->s->ops, err) != KF_OK)
		return err->code;
	if (j->s->ops->uuid) /* once a session: it reads every property of the device */
		j->s->ops->uuid(j->o->device, j->s->gpu, sizeof j->s->gpu);
	struct kf_area **areas[] = { &j->s->area, &j->s->refarea, &j->s->snaparea, &j->s->vendarea };
	for (size_t k = 0; k < sizeof areas / sizeof areas[0]; k++)
		if ((areas[k] != &j->s->vendarea || j->s->vendor_so[0]) &&
		    j->s->ops->create_laid_out(l, j->o->device, areas[k], err) != KF_OK)
			return err->code;
	return KF_OK;
}

/* Everything a session holds, released; the session is empty again. */
static void session_clear(struct kf_judge_session *s)
{
	kf_runner_stop(s->refr);
	kf_runner_stop(s->vendr);
	kf_runner_stop(s->spare);
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
		s->ops->destroy(s->snaparea);
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

/* Bytes of buffer i (a tensor, or the workspace) at shape s. */
static size_t buf_bytes(const struct judge *j, int i, const struct kf_shape *s)
{
	return is_workspace(j, i) ? (size_t)kf_task_workspace(j->t, s) : kf_task_tensor_bytes(j->t, i, s);
}

static const char *buf_name(const struct judge *j, int i)
{
	return is_workspace(j, i) ? KF_WORKSPACE_PARAM : j->t->tensors[i].name;
}

/* Where buffer i lies at shape s: its last byte as close to its region's end (and the guard) as the
 * alignment allows (the workspace's start KF_WORKSPACE_ALIGN-aligned, as the ABI promises). */
static size_t at(const struct judge *j, const struct kf_shape *s, int i)
{
	size_t align = is_workspace(j, i) ? KF_WORKSPACE_ALIGN : KF_END_ALIGN;
	return (j->s->layout.end[i] - buf_bytes(j, i, s)) / align * align;
}

static void place(const struct judge *j, const struct kf_shape *s, size_t *off)
{
	for (int i = 0; i < n_bufs(j); i++)
		off[i] = at(j, s, i);
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
	for (int i = 0; i < n_bufs(j); i++)
		args[i] = j->s->ops->ptr(j->s->refarea, at(j, s, i));
	int rc = j->s->ref.call(args, ints, j->s->ops->stream(j->s->refarea));
	if (j->s->ops->sync(j->s->refarea, err) != KF_OK)
		return err->code;
	return rc ? kf_errf(err, KF_EINTERNAL, "the reference kernel of task %s failed (returned %d)", t->name, rc)
		  : KF_OK;
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

/* The outputs in area out against the expected values for the inputs in area in: the oracle's on
 * shapes it checks (on the host), otherwise the reference kernel's, run on the inputs in the
 * reference area and compared where the data lives. For the candidate, in is the judge's own copy
 * (the reference area) and out the snapshot of its outputs: nothing comes from memory it can
 * write. Returns the first output that fails (-1: none) with its comparison in *bad; with
 * record_error, the evaluation's error statistics take the outputs in (against the oracle only:
 * errors against the reference's rounded outputs would overstate them). */
static int verify_outputs(struct judge *j, struct kf_area *in, struct kf_area *out, const struct kf_shape *s,
			  bool record_error, int *failed, struct kf_cmp *bad, kf_err *err)
{
	const struct kf_task *t = j->t;
	bool oracle = kf_judge_uses_oracle(t, s);
	*failed = -1;
	for (int i = 0; i < t->n_inputs; i++) {
		int rc = KF_OK;
		if (oracle)
			rc = j->s->ops->download(in, at(j, s, i), j->s->priv[i], kf_task_tensor_bytes(t, i, s), err);
		else if (in != j->s->refarea)
			rc = j->s->ops->copy_from(j->s->refarea, at(j, s, i), in, at(j, s, i), kf_task_tensor_bytes(t, i, s), err);
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
			if (j->s->ops->download(out, at(j, s, i), j->s->priv[i], kf_task_tensor_bytes(t, i, s), err) != KF_OK)
				return err->code;
			kf_compare(ten->dtype, j->s->priv[i], j->s->dval[i], n, tol, bad);
		} else if (j->s->ops->compare(out, at(j, s, i), j->s->refarea, at(j, s, i), ten->dtype, n, tol, bad, err) != KF_OK) {
			return err->code;
		}
		if (record_error && oracle) /* the reference's outputs are rounded: only the oracle's are exact */
			kf_judge_note_error(&j->worst, bad);
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

/* ---- guard zones ---- */

/* The canaries of tensor i at shape s in the candidate's area: up to KF_CANARY_BYTES before its
 * first element, and from its last element to the end of the guard after its region (the slack
 * of the end alignment; on devices the guard itself is a redzone). */
static void canaries(const struct judge *j, const struct kf_shape *s, int i, size_t zone[2][2])
{
	size_t off = at(j, s, i), start = j->s->layout.start[i];
	zone[0][0] = off - start >= KF_CANARY_BYTES ? off - KF_CANARY_BYTES : start;
	zone[0][1] = off;
	zone[1][0] = off + buf_bytes(j, i, s);
	zone[1][1] = j->s->layout.end[i] + KF_AREA_GUARD_BYTES;
}

/* The canaries of every buffer, and the workspace itself: whatever a call left there is overwritten, so
 * nothing carries over from one call to the next. */
static int fill_canaries(struct judge *j, const struct kf_shape *s, kf_err *err)
{
	for (int i = 0; i < n_bufs(j); i++) {
		size_t z[2][2];
		canaries(j, s, i, z);
		for (int k = 0; k < 2; k++)
			if (j->s->ops->pattern_fill(j->s->area, z[k][0], z[k][1] - z[k][0], j->pattern, err) != KF_OK)
				return err->code;
		if (is_workspace(j, i) && buf_bytes(j, i, s) &&
		    j->s->ops->pattern_fill(j->s->area, at(j, s, i), buf_bytes(j, i, s), j->pattern, err) != KF_OK)
			return err->code;
	}
	return KF_OK;
}

static const char *tensor_kind(const struct judge *j, int i)
{
	return is_workspace(j, i) ? "the" : i < j->t->n_inputs ? "input" : "output";
}

/* After a call: every canary intact, else out_of_bounds naming the buffer and the side. */
static int check_canaries(struct judge *j, const struct kf_shape *s, const char *ctx, kf_err *err)
{
	for (int i = 0; i < n_bufs(j) && j->verdict == KF_V_OK; i++) {
		size_t z[2][2];
		canaries(j, s, i, z);
		for (int k = 0; k < 2; k++) {
			int64_t first;
			if (j->s->ops->pattern_check(j->s->area, z[k][0], z[k][1] - z[k][0], j->pattern, &first, err) != KF_OK)
				return err->code;
			if (first < 0)
				continue;
			if (k == 0)
				reject(j, KF_V_OUT_OF_BOUNDS, "kf_launch wrote before the start of %s '%s' (%lld bytes before its first element) %s",
				       tensor_kind(j, i), buf_name(j, i), (long long)(z[0][1] - z[0][0] - (size_t)first), ctx);
			else
				reject(j, KF_V_OUT_OF_BOUNDS, "kf_launch wrote past the end of %s '%s' (byte %lld after its last element) %s",
				       tensor_kind(j, i), buf_name(j, i), (long long)first, ctx);
			break;
		}
	}
	return KF_OK;
}

/* A fault the runner's own handler placed in the buffer area: a guard page is out_of_bounds, a
 * write into an input's read-only region is inputs_modified. False when it is neither. */
static bool fault_verdict(struct judge *j, const struct kf_call_result *res, const char *ctx)
{
	if (res->status != KF_CALL_DIED || !res->fault_known)
		return false;
	const struct kf_area_layout *l = &j->s->layout;
	const char *access = res->fault_write ? "write" : "read";
	size_t off = (size_t)res->fault_off;
	if (off < KF_AREA_GUARD_BYTES)
		return reject(j, KF_V_OUT_OF_BOUNDS, "kf_launch faulted on a %s before the start of %s '%s' %s", access,
			      tensor_kind(j, 0), j->t->tensors[0].name, ctx);
	for (int i = 0; i < l->n; i++) {
		size_t guard_end = i == l->n - 1 ? l->bytes : l->end[i] + KF_AREA_GUARD_BYTES;
		if (off >= l->end[i] && off < guard_end)
			return reject(j, KF_V_OUT_OF_BOUNDS, "kf_launch faulted on a %s past the end of %s '%s' %s", access,
				      tensor_kind(j, i), buf_name(j, i), ctx);
		if (off >= l->start[i] && off < l->end[i] && i < l->n_readonly && res->fault_write)
			return reject(j, KF_V_INPUTS_MODIFIED, "kf_launch wrote to input '%s' (its pages are read-only) %s",
				      j->t->tensors[i].name, ctx);
	}
	return false;
}

/* Host-side inputs (shapes the oracle checks): drawn here, uploaded, outputs poisoned. */
static int draw_inputs(struct judge *j, const struct trial *tr, kf_err *err)
{
	const struct kf_task *t = j->t;
	kf_rng r;
	kf_rng_seed(&r, tr->seed);
	for (int i = 0; i < t->n_inputs; i++) {
		const struct kf_dist d = kf_task_dist(t, i, tr->stress, tr->shape);
		kf_tensor_fill(j->s->sampler, &r, &d, t->tensors[i].dtype, j->s->priv[i], kf_task_numel(t, i, tr->shape));
		if (j->s->ops->upload(j->s->area, at(j, tr->shape, i), j->s->priv[i], kf_task_tensor_bytes(t, i, tr->shape), err) != KF_OK)
			return err->code;
	}
	for (int i = t->n_inputs; i < n_tensors(t); i++)
		if (j->s->ops->poison(j->s->area, at(j, tr->shape, i), t->tensors[i].dtype, kf_task_numel(t, i, tr->shape), err) != KF_OK)
			return err->code;
	if (fill_canaries(j, tr->shape, err) != KF_OK)
		return err->code;
	return j->s->ops->sync(j->s->area, err);
}

/* Fresh input values drawn where the buffers live (stress overrides applied) and poisoned
 * outputs; for a timed call also a cache flush, so it starts cold on data it has never seen.
 * The candidate's inputs are drawn into the judge's own copy (the reference area) and copied
 * into its area: every later check compares with that copy. */
static int prepare_in_place(struct judge *j, struct kf_area *a, const struct kf_shape *s,
			    const struct kf_stress *stress, kf_rng *r, bool flush, kf_err *err)
{
	const struct kf_task *t = j->t;
	bool candidate = a == j->s->area;
	struct kf_area *into = candidate ? j->s->refarea : a;
	for (int i = 0; i < t->n_inputs; i++) {
		int64_t n = kf_task_numel(t, i, s);
		const struct kf_tensor *ten = &t->tensors[i];
		const struct kf_dist d = kf_task_dist(t, i, stress, s);
		if (j->s->ops->fill) {
			if (j->s->ops->fill(into, at(j, s, i), ten->dtype, n, &d, kf_rng_next(r), err) != KF_OK)
				return err->code;
		} else {
			kf_tensor_fill(j->s->sampler, r, &d, ten->dtype, j->s->ops->host_view(into, at(j, s, i)), n);
		}
		if (candidate && j->s->ops->copy_from(a, at(j, s, i), into, at(j, s, i), kf_task_tensor_bytes(t, i, s), err) != KF_OK)
			return err->code;
	}
	for (int i = t->n_inputs; i < n_tensors(t); i++)
		if (j->s->ops->poison(a, at(j, s, i), t->tensors[i].dtype, kf_task_numel(t, i, s), err) != KF_OK)
			return err->code;
	if (candidate && fill_canaries(j, s, err) != KF_OK)
		return err->code;
	if (flush && j->s->ops->flush(a, kf_rng_next(r), err) != KF_OK)
		return err->code;
	return j->s->ops->sync(a, err);
}

/* The candidate's outputs copied into the judge's own memory the moment its call returned (its
 * runner is frozen then); every check of the outputs reads this copy. */
static int snapshot_outputs(struct judge *j, const struct kf_shape *s, const char *ctx, kf_err *err)
{
	const struct kf_task *t = j->t;
	for (int i = t->n_inputs; i < n_tensors(t); i++)
		if (j->s->ops->copy_from(j->s->snaparea, at(j, s, i), j->s->area, at(j, s, i), kf_task_tensor_bytes(t, i, s), err) != KF_OK)
			return err->code;
	j->snap_shape = s;
	snprintf(j->snap_ctx, sizeof j->snap_ctx, "%s", ctx);
	return KF_OK;
}

static void still_changing(struct judge *j, int i, const char *ctx)
{
	reject(j, KF_V_UNWRITTEN_OUTPUT,
	       "output '%s' was still changing after kf_launch returned (work left running in the background) %s",
	       j->t->tensors[i].name, ctx);
}

/* The candidate's outputs must still equal the snapshot taken when its last call returned: after
 * the settle delay, and again right before its next call. */
static int check_snapshot(struct judge *j, kf_err *err)
{
	const struct kf_task *t = j->t;
	const struct kf_shape *s = j->snap_shape;
	if (!s || j->verdict != KF_V_OK)
		return KF_OK;
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		int64_t first;
		if (j->s->ops->diff(j->s->area, at(j, s, i), j->s->snaparea, at(j, s, i), kf_task_tensor_bytes(t, i, s), &first, err) != KF_OK)
			return err->code;
		if (first >= 0) {
			still_changing(j, i, j->snap_ctx);
			break;
		}
	}
	return KF_OK;
}

/* Inputs equal to the judge's copy and every output element written (in the snapshot), checked
 * where the data lives. */
static int check_written(struct judge *j, const struct kf_shape *s, const char *ctx, kf_err *err)
{
	const struct kf_task *t = j->t;
	for (int i = 0; i < t->n_inputs; i++) {
		int64_t first;
		if (j->s->ops->diff(j->s->area, at(j, s, i), j->s->refarea, at(j, s, i), kf_task_tensor_bytes(t, i, s), &first, err) != KF_OK)
			return err->code;
		if (first >= 0) {
			reject(j, KF_V_INPUTS_MODIFIED, "kf_launch wrote to input '%s' (element %lld changed) %s",
			       t->tensors[i].name, (long long)(first / (int64_t)kf_dtype_size(t->tensors[i].dtype)), ctx);
			return KF_OK;
		}
	}
	for (int i = t->n_inputs; i < n_tensors(t); i++) {
		int64_t bad, n = kf_task_numel(t, i, s);
		if (j->s->ops->count_poison(j->s->snaparea, at(j, s, i), t->tensors[i].dtype, n, &bad, err) != KF_OK)
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
	for (int i = t->n_inputs; i < n_tensors(t); i++) /* the snapshot taken at return */
		if (j->s->ops->download(j->s->snaparea, at(j, s, i), j->s->priv[i], kf_task_tensor_bytes(t, i, s), err) != KF_OK)
			return err->code;
	for (int i = 0; i < t->n_inputs; i++) {
		size_t sz = kf_dtype_size(t->tensors[i].dtype);
		int64_t n = kf_task_numel(t, i, s);
		if (j->s->ops->download(j->s->area, at(j, s, i), j->s->scratch[i], (size_t)n * sz, err) != KF_OK)
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
		kf_judge_note_error(&j->worst, &c);
		if (!c.pass) {
			mismatch(j, i, &c, n, true, ctx);
			return KF_OK;
		}
	}
	settle(t_done);
	return check_snapshot(j, err);
}

/* The same checks at a shape too large for the oracle, where the data lives: nothing but a few
 * words crosses to the host. (The trivial-output guard runs on the oracle's shapes only.) */
static int check_in_place(struct judge *j, const struct kf_shape *s, const char *ctx, int64_t t_done, kf_err *err)
{
	const struct kf_task *t = j->t;
	if (check_written(j, s, ctx, err) != KF_OK || j->verdict != KF_V_OK)
		return err->code;
	int failed;
	struct kf_cmp c;
	if (verify_outputs(j, j->s->refarea, j->s->snaparea, s, true, &failed, &c, err) != KF_OK)
		return err->code;
	if (failed >= 0) {
		mismatch(j, failed, &c, kf_task_numel(t, failed, s), kf_judge_uses_oracle(t, s), ctx);
		return KF_OK;
	}
	settle(t_done);
	return check_snapshot(j, err);
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
	if (fault_verdict(j, res, ctx))
		return;
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
	kf_rng rng;
	kf_rng_seed(&rng, tr->seed);
	if (check_snapshot(j, err) != KF_OK)
		return err->code;
	j->snap_shape = NULL;
	if (j->verdict != KF_V_OK || past_deadline(j))
		return KF_OK;
	if ((oracle ? draw_inputs(j, tr, err) : prepare_in_place(j, j->s->area, tr->shape, tr->stress, &rng, false, err)) != KF_OK)
		return err->code;
	long long ints[KF_TASK_MAX_INTS];
	int n_ints = shape_ints(t, tr->shape, ints);
	struct kf_call_result res;
	size_t off[KF_MAX_TENSORS];
	place(j, tr->shape, off);
	if (kf_runner_call(r, off, n_bufs(j), ints, n_ints, &res, err) != KF_OK)
		return err->code;
	int64_t t_done = kf_now_ns();
	if (res.status != KF_CALL_OK)
		call_failure(j, &res, ctx);
	else if (snapshot_outputs(j, tr->shape, ctx, err) != KF_OK || check_canaries(j, tr->shape, ctx, err) != KF_OK)
		return err->code;
	if (j->verdict == KF_V_OK && res.status == KF_CALL_OK &&
	    (oracle ? check_outputs(j, tr, ctx, t_done, err) : check_in_place(j, tr->shape, ctx, t_done, err)) != KF_OK)
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
				struct trial tr = { kf_shape_set_name(sets[si]), s, kf_judge_trial_seed(j->o->seed, k++), NULL,
						    false, false };
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
			struct trial tr = { "stress", &t->shapes[KF_SET_TEST][i], kf_judge_trial_seed(j->o->seed, k++),
					    &t->stress[st], false, false };
			if (run_trial(j, r, &tr, err) != KF_OK)
				return err->code;
			if (j->verdict != KF_V_OK)
				return KF_OK;
		}
	}
	struct trial bench = { "bench", &t->bench[j->b], kf_judge_trial_seed(j->o->seed, k++), NULL, false, false };
	return run_trial(j, r, &bench, err);
}

/* ---- determinism in a fresh runner ---- */

/* The bench shape once more, in a runner of its own (nothing remembered from the first run;
 * launched while the correctness battery ran, so its start-up costs little), on
 * the same input values placed at other offsets: its outputs must equal the first run's (bitwise
 * for bitwise tasks, else within tolerance). The first run is the correctness battery's last
 * trial, whose inputs and snapshot the judge still holds. */
static int fresh_repeat(struct judge *j, struct kf_runner **fresh, kf_err *err)
{
	const struct kf_task *t = j->t;
	const struct kf_shape *s = &t->bench[j->b];
	char ctx[512], shape[256];
	describe_shape(t, s, shape, sizeof shape);
	snprintf(ctx, sizeof ctx, "(bench shape %s, the same inputs at other offsets in a fresh runner)", shape);
	if (check_snapshot(j, err) != KF_OK || j->verdict != KF_V_OK || past_deadline(j))
		return err->code;
	j->snap_shape = NULL;
	size_t off[KF_MAX_TENSORS];
	place(j, s, off);
	for (int i = 0; i < n_tensors(t); i++)
		off[i] -= KF_DET_SHIFT(i);
	/* The first run's inputs into the judge's copy (oracle shapes kept them on the host), its
	 * outputs beside them. */
	bool oracle = kf_judge_uses_oracle(t, s);
	for (int i = 0; i < n_tensors(t); i++) {
		size_t bytes = kf_task_tensor_bytes(t, i, s);
		int rc = i < t->n_inputs
				 ? (oracle ? j->s->ops->upload(j->s->refarea, at(j, s, i), j->s->priv[i], bytes, err) : KF_OK)
				 : j->s->ops->copy_from(j->s->refarea, at(j, s, i), j->s->snaparea, at(j, s, i), bytes, err);
		if (rc == KF_OK && i < t->n_inputs)
			rc = j->s->ops->copy_from(j->s->area, off[i], j->s->refarea, at(j, s, i), bytes, err);
		if (rc == KF_OK && i >= t->n_inputs)
			rc = j->s->ops->poison(j->s->area, off[i], t->tensors[i].dtype, kf_task_numel(t, i, s), err);
		if (rc != KF_OK)
			return err->code;
	}
	if (j->s->ops->sync(j->s->area, err) != KF_OK)
		return err->code;
	struct kf_call_result res;
	if (kf_runner_ready(fresh, &res, err) != KF_OK)
		return err->code;
	if (!*fresh) {
		reject(j, res.verdict, "%s %s", res.reason, ctx);
		return KF_OK;
	}
	long long ints[KF_TASK_MAX_INTS];
	int n_ints = shape_ints(t, s, ints);
	int rc = kf_runner_call(*fresh, off, n_bufs(j), ints, n_ints, &res, err);
	kf_runner_stop(*fresh);
	*fresh = NULL;
	if (rc != KF_OK)
		return rc;
	if (res.status != KF_CALL_OK) {
		call_failure(j, &res, ctx);
		return KF_OK;
	}
	for (int i = 0; i < n_tensors(t) && j->verdict == KF_V_OK; i++) {
		const struct kf_tensor *ten = &t->tensors[i];
		int64_t n = kf_task_numel(t, i, s), first;
		size_t sz = kf_dtype_size(ten->dtype);
		if (i < t->n_inputs || t->determinism == KF_DET_BITWISE) {
			if (j->s->ops->diff(j->s->area, off[i], j->s->refarea, at(j, s, i), (size_t)n * sz, &first, err) != KF_OK)
				return err->code;
			if (first < 0)
				continue;
			if (i < t->n_inputs)
				reject(j, KF_V_INPUTS_MODIFIED, "kf_launch wrote to input '%s' (element %lld changed) %s", ten->name,
				       (long long)(first / (int64_t)sz), ctx);
			else
				reject(j, KF_V_NONDETERMINISTIC, "output '%s' differs bitwise from the first run's (element %lld) %s",
				       ten->name, (long long)(first / (int64_t)sz), ctx);
			continue;
		}
		struct kf_cmp c;
		if (j->s->ops->compare(j->s->area, off[i], j->s->refarea, at(j, s, i), ten->dtype, n, t->tol[ten->dtype], &c, err) != KF_OK)
			return err->code;
		if (!c.pass)
			reject(j, KF_V_NONDETERMINISTIC, "output '%s'[%lld] was %.9g in the first run and %.9g in another %s",
			       ten->name, (long long)c.first_bad, c.want, c.got, ctx);
	}
	return KF_OK;
}

/* ---- timing ---- */

enum side_role { SIDE_CANDIDATE, SIDE_REFERENCE, SIDE_VENDOR, SIDE_COUNT };
static const char *const side_names[SIDE_COUNT] = { "candidate", "reference", "vendor" };

struct side {
	struct kf_runner *r; /* NULL: not timed (no vendor baseline, or it failed) */
	struct kf_area *area;
	bool trusted;        /* reference and vendor baseline: their claims are believed */
	double *wall_ns;     /* per timed call: the judge's clock */
	double *claim_ns;    /* per timed call: the runner's own measurement */
	double *samples_ns;  /* what the judge takes as the time of each call (derive_samples) */
	int n;
	int rejected;        /* calls whose claim fell outside the envelope (candidate: not in (0, wall]) */
	double excess_ns;    /* candidate: host time beyond the reference's and the budget, added to each sample */
	bool judge_clock;    /* the judge's clock bounded many of its samples (too many claims rejected) */
	bool judge_timed;    /* every sample is the judge's own clock (no device: judge_clock_samples) */
	struct kf_modes modes;
	bool bimodal;
};

/* The trusted overhead of one call (wall - claim outside the kernel): the reference runner's
 * gaps in this loop and the null calls through the candidate's runner before its code was
 * loaded. */
struct trust {
	double gap_median_ns;  /* the reference's (see trusted_overhead) */
	double ref_gap_p90_ns; /* a trusted side's clocks disagree beyond it */
	struct kf_runner_calib cal; /* the candidate's runner, before its code was loaded */
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

static bool claim_sane(double wall, double claim) { return claim > 0 && claim <= wall; }

/* The median and 90th percentile of a side's gaps (wall - claim) over its sane calls; NAN without any. */
static void side_gaps(const struct side *sd, double *median, double *p90)
{
	double *gaps = kf_xmalloc(sizeof *gaps * (size_t)(sd->n ? sd->n : 1));
	int n = 0;
	for (int i = 0; i < sd->n; i++)
		if (claim_sane(sd->wall_ns[i], sd->claim_ns[i]))
			gaps[n++] = sd->wall_ns[i] - sd->claim_ns[i];
	*median = kf_stats_quantile(gaps, n, 0.5);
	*p90 = kf_stats_quantile(gaps, n, KF_GAP_QUANTILE);
	free(gaps);
}

/* The trusted gap: the reference's calls in this loop; before there are any, the null calls through
 * the candidate's runner (no device switch, no enqueueing: a lower bound). */
static void trusted_overhead(const struct side *ref, struct trust *tr)
{
	double med, p90;
	side_gaps(ref, &med, &p90);
	if (!isfinite(med) && tr->cal.n > 0) {
		med = (double)tr->cal.gap_median_ns;
		p90 = (double)tr->cal.gap_p90_ns;
	}
	tr->gap_median_ns = isfinite(med) ? med : 0;
	tr->ref_gap_p90_ns = isfinite(p90) ? p90 : 0;
}

/* The median over the timed iterations of the candidate's gap less the reference's in the same
 * iteration: load on the machine and the device's state move both alike, so they cancel. NAN when
 * no iteration has two sane claims. */
static double paired_gap_excess(const struct side *cand, const struct side *ref)
{
	int n = cand->n < ref->n ? cand->n : ref->n, m = 0;
	double *d = kf_xmalloc(sizeof *d * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		if (claim_sane(cand->wall_ns[i], cand->claim_ns[i]) && claim_sane(ref->wall_ns[i], ref->claim_ns[i]))
			d[m++] = (cand->wall_ns[i] - cand->claim_ns[i]) - (ref->wall_ns[i] - ref->claim_ns[i]);
	double med = kf_stats_quantile(d, m, 0.5);
	free(d);
	return med;
}

/* Each side's samples from its two clocks (see "Timing trust" above). */
/* Without a device, the runner's clock measures nothing the judge's cannot: every side, reference
 * included, is the judge's clock for the whole exchange. Symmetric, so load that delays replies moves
 * every side alike; nothing to forge; and never below the truth (subtracting the null calls' gap,
 * measured under other load, once put an honest kernel below the speed of light). The protocol's tens
 * of microseconds are small against CPU kernels' milliseconds. */
static void judge_clock_samples(struct side *sd)
{
	sd->rejected = 0;
	sd->excess_ns = 0;
	sd->judge_clock = false;
	sd->judge_timed = true;
	for (int i = 0; i < sd->n; i++)
		sd->samples_ns[i] = sd->wall_ns[i];
}

static void derive_samples(struct judge *j, struct side *sides, struct trust *tr)
{
	trusted_overhead(&sides[SIDE_REFERENCE], tr);
	double by_wall_gap = tr->gap_median_ns;
	for (int k = 0; k < SIDE_COUNT; k++) {
		struct side *sd = &sides[k];
		if (!sd->r)
			continue;
		if (j->b == KF_BACKEND_CPU) {
			judge_clock_samples(sd);
			continue;
		}
		sd->rejected = 0;
		sd->excess_ns = 0;
		if (!sd->trusted) {
			double over = paired_gap_excess(sd, &sides[SIDE_REFERENCE]);
			double claims_med = kf_stats_quantile(sd->claim_ns, sd->n, 0.5);
			double budget = gap_allowance_ns[j->b] + gap_allowance_share[j->b] * (isfinite(claims_med) ? claims_med : 0);
			double excess = isfinite(over) ? over - budget : 0;
			sd->excess_ns = excess > 0 ? round(excess) : 0;
		}
		for (int i = 0; i < sd->n; i++) {
			double wall = sd->wall_ns[i], claim = sd->claim_ns[i];
			bool sane = claim_sane(wall, claim);
			double by_wall = wall > by_wall_gap ? round(wall - by_wall_gap) : wall;
			if (sd->trusted) {
				double budget = gap_allowance_ns[j->b] + gap_allowance_share[j->b] * claim;
				sd->rejected += !(sane && wall - claim <= tr->ref_gap_p90_ns + budget);
				sd->samples_ns[i] = sane ? claim : by_wall;
				continue;
			}
			sd->rejected += !sane;
			sd->samples_ns[i] = sane ? claim + sd->excess_ns : by_wall;
		}
		sd->judge_clock = !sd->trusted && (sd->excess_ns > 0 ||
						    sd->rejected > fmax(KF_CLAIM_REJECT_MIN, KF_CLAIM_REJECT_SHARE * sd->n));
	}
}

/* Whether a side's measurement is unsteady: two modes, or a trusted runner whose clocks disagree
 * too often (the candidate's disagreements put it on the judge's clock instead). */
static bool unsteady(struct side *sd)
{
	sd->bimodal = kf_stats_bimodal(sd->samples_ns, sd->n, &sd->modes);
	return sd->bimodal || (sd->trusted && sd->rejected > KF_DISAGREE_SHARE * sd->n);
}

/* One timed call of a side. For the candidate, every call is checked for untouched inputs and
 * fully written outputs, and a random share (chosen after the call) is fully verified. */
static int timed_call(struct judge *j, struct side *sides, enum side_role role, int iter, kf_rng *r, kf_err *err)
{
	const struct kf_task *t = j->t;
	const struct kf_shape *s = &t->bench[j->b];
	struct side *sd = &sides[role];
	bool candidate = role == SIDE_CANDIDATE;
	if (candidate) {
		if (check_snapshot(j, err) != KF_OK)
			return err->code;
		j->snap_shape = NULL;
		if (j->verdict != KF_V_OK || past_deadline(j))
			return KF_OK;
	}
	if (prepare_in_place(j, sd->area, s, NULL, r, true, err) != KF_OK)
		return err->code;
	long long ints[KF_TASK_MAX_INTS];
	int n_ints = shape_ints(t, s, ints);
	struct kf_call_result res;
	size_t off[KF_MAX_TENSORS];
	place(j, s, off);
	if (kf_runner_call(sd->r, off, n_bufs(j), ints, n_ints, &res, err) != KF_OK)
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
	sd->wall_ns[sd->n] = (double)res.wall_ns;
	sd->claim_ns[sd->n++] = (double)res.runner_ns;
	if (!candidate)
		return KF_OK;
	if (snapshot_outputs(j, s, ctx, err) != KF_OK || check_canaries(j, s, ctx, err) != KF_OK ||
	    check_written(j, s, ctx, err) != KF_OK || j->verdict != KF_V_OK)
		return err->code;
	/* Chosen after the call, so no candidate can know which outputs get checked. */
	if (kf_rng_uniform(r) >= j->o->verify_fraction)
		return KF_OK;
	int failed;
	struct kf_cmp c;
	if (verify_outputs(j, j->s->refarea, j->s->snaparea, s, false, &failed, &c, err) != KF_OK)
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
	if (verify_outputs(j, sd->area, sd->area, &j->t->bench[j->b], false, &failed, &c, err) != KF_OK)
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
	cJSON_AddStringToObject(o, "method", sd->judge_timed ? "judge_clock" : sd->trusted ? "runner_clock"
					     : sd->judge_clock ? "judge_clock_bounded" : "runner_clock_checked");
	cJSON_AddNumberToObject(o, sd->trusted ? "clock_disagreements" : "claims_rejected", sd->rejected);
	if (!sd->trusted)
		cJSON_AddNumberToObject(o, "charged_ns", sd->excess_ns);
	cJSON *walls = cJSON_AddArrayToObject(o, "wall_ns"), *claims = cJSON_AddArrayToObject(o, "claim_ns");
	for (int i = 0; i < sd->n; i++) {
		cJSON_AddItemToArray(walls, cJSON_CreateNumber(sd->wall_ns[i]));
		cJSON_AddItemToArray(claims, cJSON_CreateNumber(sd->claim_ns[i]));
	}
	if (sd->bimodal) {
		cJSON *m = cJSON_AddArrayToObject(o, "modes");
		double med[2] = { sd->modes.low_median / 1e6, sd->modes.high_median / 1e6 };
		int cnt[2] = { sd->modes.low_n, sd->modes.high_n };
		for (int k = 0; k < 2; k++) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddNumberToObject(e, "median_ms", med[k]);
			cJSON_AddNumberToObject(e, "n", cnt[k]);
			cJSON_AddItemToArray(m, e);
		}
	}
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

/* Where the candidate runner's start went (result "sandbox_start_steps"): which step a slow start
 * spent its time in, the device context's above all. */
static void start_steps_json(cJSON *res, const struct kf_runner *r)
{
	struct kf_runner_start_steps st;
	if (kf_runner_start_steps(r, &st) != KF_OK)
		return;
	cJSON *o = cJSON_AddObjectToObject(res, "sandbox_start_steps");
	cJSON_AddNumberToObject(o, "launch_ms", st.launch_ms);
	cJSON_AddNumberToObject(o, "setup_ms", st.setup_ms);
	cJSON_AddNumberToObject(o, "calibrate_ms", st.calibrate_ms);
	cJSON_AddNumberToObject(o, "load_ms", st.load_ms);
}

static struct kf_runner_opts runner_opts(struct judge *j, struct kf_area *a, const char *so, bool vendor_libs)
{
	struct kf_runner_opts ro = { .backend = j->b, .so_path = so, .device = j->o->device,
				     .call_timeout_s = j->o->call_timeout_s, .cpu_limit_s = j->o->cpu_limit_s,
				     .mem_limit_bytes = j->o->mem_limit_bytes, .vendor_libs = vendor_libs,
				     .shm_ro_fd = -1 };
	ro.shm_fd = j->s->ops->runner_fd(a, &ro.shm_bytes);
	ro.shm_ro_fd = j->s->ops->runner_ro_fd(a, &ro.shm_ro_bytes);
	snprintf(ro.visible_gpu, sizeof ro.visible_gpu, "%s", j->s->gpu);
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
static int measure(struct judge *j, struct side *sides, struct clock_log *cl, kf_rng *r, struct trust *tr,
		   struct kf_stats *st, kf_err *err)
{
	int rc = KF_OK;
	for (int k = 0; k < SIDE_COUNT; k++)
		sides[k].n = 0;
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
				rc = timed_call(j, sides, (enum side_role)k, it, r, err);
		if (rc != KF_OK || j->verdict != KF_V_OK)
			break;
		derive_samples(j, sides, tr);
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

/* The warm-up calls of the sides in `which` (a bit per side), untimed. */
static int warm_up(struct judge *j, struct side *sides, unsigned which, kf_rng *r, kf_err *err)
{
	int rc = KF_OK;
	for (int w = 0; w < KF_WARMUP_CALLS && rc == KF_OK && j->verdict == KF_V_OK; w++)
		for (int k = 0; k < SIDE_COUNT && rc == KF_OK && j->verdict == KF_V_OK; k++)
			if (sides[k].r && (which & 1u << k))
				rc = timed_call(j, sides, (enum side_role)k, -1 - w, r, err);
	return rc;
}

/* The candidate's and the reference's runners replaced by new processes (KF_CHARGE_RELAUNCHES). A
 * candidate whose new runner fails to come up gets that verdict, as at its first start. */
static int relaunch(struct judge *j, const struct kf_runner_opts *ro, struct side *sides, struct trust *tr, kf_rng *r,
		    kf_err *err)
{
	struct kf_call_result died;
	for (int k = SIDE_CANDIDATE; k <= SIDE_REFERENCE; k++) {
		kf_runner_stop(sides[k].r);
		sides[k].r = NULL;
		if (kf_runner_start(&ro[k], &sides[k].r, &died, err) != KF_OK)
			return err->code;
		if (sides[k].r)
			continue;
		if (k == SIDE_REFERENCE)
			return kf_errf(err, KF_EINTERNAL, "the reference kernel's runner failed to restart: %s", died.reason);
		reject(j, died.verdict, "%s (its runner restarted for a second measurement)", died.reason);
		return KF_OK;
	}
	if (kf_runner_calibration(sides[SIDE_CANDIDATE].r, &tr->cal) != KF_OK)
		tr->cal.n = 0;
	return warm_up(j, sides, 1u << SIDE_CANDIDATE | 1u << SIDE_REFERENCE, r, err);
}

/* Times every side. *cand and *ref may come back as new runners (a charged candidate is measured again
 * in new processes, see KF_CHARGE_RELAUNCHES); ro holds their options. */
static int timing(struct judge *j, const struct kf_runner_opts *ro, struct kf_runner **cand, struct kf_runner **vend,
		  struct kf_runner **ref, cJSON *res, kf_err *err)
{
	int rc = KF_OK;
	int cap = j->o->max_iters + KF_WARMUP_CALLS;
	struct side sides[SIDE_COUNT] = { { .r = *cand, .area = j->s->area }, { .r = *ref, .area = j->s->refarea },
					  { .r = *vend, .area = j->s->vendarea } };
	for (int k = 0; k < SIDE_COUNT; k++) {
		sides[k].trusted = k != SIDE_CANDIDATE;
		sides[k].samples_ns = kf_xcalloc((size_t)cap, sizeof(double));
		sides[k].wall_ns = kf_xcalloc((size_t)cap, sizeof(double));
		sides[k].claim_ns = kf_xcalloc((size_t)cap, sizeof(double));
	}
	struct clock_log cl = { .sm = kf_xcalloc((size_t)cap, sizeof(double)), .mem = kf_xcalloc((size_t)cap, sizeof(double)) };
	kf_rng r;
	kf_rng_seed(&r, kf_judge_trial_seed(j->o->seed, -1));
	struct trust tr = { 0 };
	if (kf_runner_calibration(*cand, &tr.cal) != KF_OK)
		tr.cal.n = 0;

	rc = warm_up(j, sides, ~0u, &r, err);
	if (rc == KF_OK && j->verdict == KF_V_OK)
		rc = check_vendor(j, &sides[SIDE_VENDOR], err);
	struct kf_stats st[SIDE_COUNT];
	double best_ref = NAN;
	if (rc == KF_OK && j->o->store)
		rc = kf_store_best_ref_time(j->o->store, j->t->spec_hash, kf_backend_name(j->b), j->peaks->key, &best_ref, err);
	int remeasured = 0, relaunched = 0;
	bool retried_unsteady = false;
	while (rc == KF_OK && j->verdict == KF_V_OK) {
		if ((rc = measure(j, sides, &cl, &r, &tr, st, err)) != KF_OK || j->verdict != KF_V_OK)
			break;
		/* The samples are nanoseconds; the stored best is milliseconds. */
		double drift = st[SIDE_REFERENCE].median / 1e6 / best_ref - 1;
		if (drift > ref_drift[j->b]) {
			if (remeasured == KF_DRIFT_RETRIES) {
				warn(j, "the reference stayed %.0f%% slower than its best on this machine (%.4g ms) after %d re-measurements: the device was disturbed, times are high",
				     drift * 100, best_ref, remeasured);
				break;
			}
			remeasured++;
			warn(j, "the reference ran %.0f%% slower than its best on this machine (%.4g ms): the device was disturbed, timing again",
			     drift * 100, best_ref);
			continue;
		}
		if (sides[SIDE_CANDIDATE].excess_ns > 0 && relaunched < KF_CHARGE_RELAUNCHES) {
			relaunched++;
			if ((rc = relaunch(j, ro, sides, &tr, &r, err)) != KF_OK)
				break;
			continue;
		}
		bool shaky = false;
		for (int k = 0; k < SIDE_COUNT; k++)
			shaky = (sides[k].r && unsteady(&sides[k])) || shaky;
		if (!shaky || retried_unsteady)
			break;
		retried_unsteady = true;
	}
	if (rc == KF_OK) /* the last timed call's outputs, like every other's */
		rc = check_snapshot(j, err);
	if (rc != KF_OK || j->verdict != KF_V_OK)
		goto out;
	unsigned long long reasons;
	cJSON *timing = cJSON_AddObjectToObject(res, "timing");
	cJSON_AddNumberToObject(timing, "remeasured", remeasured);
	cJSON_AddNumberToObject(timing, "remeasured_unsteady", retried_unsteady);
	cJSON_AddNumberToObject(timing, "remeasured_charged", relaunched);
	for (int k = 0; k < SIDE_COUNT; k++) {
		struct side *sd = &sides[k];
		if (!sd->r || !unsteady(sd))
			continue;
		if (sd->bimodal)
			warn(j, "the %s's times fell into two modes, %.4g ms (%d calls) and %.4g ms (%d calls), in two measurements: its median mixes them",
			     side_names[k], sd->modes.low_median / 1e6, sd->modes.low_n, sd->modes.high_median / 1e6,
			     sd->modes.high_n);
		else if (!sd->judge_clock) /* said below */
			warn(j, "the %s runner's own clock and the judge's disagreed at %d of %d timed calls, in two measurements",
			     side_names[k], sd->rejected, sd->n);
	}
	if (sides[SIDE_CANDIDATE].judge_clock)
		warn(j, "the candidate's calls spent %.1f us more outside their claimed window than the reference's, beyond the enqueue budget (%d of %d claims not even within the judge's time), in %d measurements with new runners: that much was added to every candidate sample",
		     (sides[SIDE_CANDIDATE].excess_ns) / 1e3, sides[SIDE_CANDIDATE].rejected, sides[SIDE_CANDIDATE].n, relaunched + 1);
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
	cJSON *ov = cJSON_AddObjectToObject(timing, "trusted_overhead");
	cJSON_AddNumberToObject(ov, "gap_median_ns", tr.gap_median_ns);
	cJSON_AddNumberToObject(ov, "reference_gap_p90_ns", tr.ref_gap_p90_ns);
	cJSON_AddNumberToObject(ov, "allowance_ns", gap_allowance_ns[j->b]);
	cJSON_AddNumberToObject(ov, "allowance_share", gap_allowance_share[j->b]);
	for (int k = 0; k < SIDE_COUNT; k++) {
		struct kf_runner_calib c;
		if (!sides[k].r || kf_runner_calibration(sides[k].r, &c) != KF_OK)
			continue;
		cJSON *o = cJSON_AddObjectToObject(cJSON_GetObjectItem(timing, side_names[k]), "calibration");
		cJSON_AddNumberToObject(o, "n", c.n);
		cJSON_AddNumberToObject(o, "wall_median_ns", (double)c.wall_median_ns);
		cJSON_AddNumberToObject(o, "wall_p90_ns", (double)c.wall_p90_ns);
		cJSON_AddNumberToObject(o, "gap_median_ns", (double)c.gap_median_ns);
		cJSON_AddNumberToObject(o, "gap_p90_ns", (double)c.gap_p90_ns);
	}
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
	kf_judge_result_speed(res, t_ms, ref_ms, t_sol_ms, bound);
	if (t_ms * ftl_slack[j->b] < t_sol_ms)
		reject(j, KF_V_FASTER_THAN_LIGHT,
		       "median %.4g ms is below the speed-of-light bound %.4g ms (%s-bound on %s): the measurement cannot be real",
		       t_ms, t_sol_ms, kf_sol_bound_name(bound), j->peaks->device);
out:
	for (int k = 0; k < SIDE_COUNT; k++) {
		free(sides[k].samples_ns);
		free(sides[k].wall_ns);
		free(sides[k].claim_ns);
	}
	free(cl.sm);
	free(cl.mem);
	*vend = sides[SIDE_VENDOR].r; /* NULL once dropped (and already stopped) */
	*cand = sides[SIDE_CANDIDATE].r;
	*ref = sides[SIDE_REFERENCE].r;
	return rc;
}

/* ---- the evaluation ---- */

static void stop_runners(struct kf_runner **cand, struct kf_runner **ref, struct kf_runner **vend,
			 struct kf_runner **fresh)
{
	struct kf_runner **rs[] = { cand, ref, vend, fresh };
	for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
		kf_runner_stop(*rs[i]);
		*rs[i] = NULL;
	}
}

int kf_judge_evaluate(const struct kf_task *t, const struct kf_peaks *peaks, const char *source, size_t len,
		      const struct kf_judge_opts *o, cJSON **result, kf_err *err)
{
	if (kf_task_multi_gpu(t)) /* level 4: several GPUs, its own judge (eval/judge/multi.c) */
		return kf_judge_multi_evaluate(t, peaks, source, len, o, result, err);
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
	j.deadline_ns = kf_judge_deadline_ns(o, t_phase);
	j.pattern = kf_judge_canary_byte();
	cJSON *res = cJSON_CreateObject();
	kf_judge_result_head(res, t, o->backend, o->seed);
	cJSON *machine = peaks->json ? cJSON_Duplicate(peaks->json, 1) : cJSON_CreateObject();
	cJSON_AddItemToObject(res, "machine", machine);
	struct kf_runner *cand = NULL, *ref = NULL, *vend = NULL, *fresh = NULL;
	struct kf_compile_res cres;
	memset(&cres, 0, sizeof cres);
	int rc = KF_OK;
	char why[512];

	if ((rc = kf_judge_compile(t, o->backend, o->device, source, len, NULL, &cres, err)) != KF_OK)
		goto out;
	kf_judge_result_compile(res, &cres);
	phase_done(&j, "compile_ms", &t_phase);
	enum kf_verdict built;
	if ((rc = kf_policy_verdict(t, &cres, &built, why, sizeof why, err)) != KF_OK)
		goto out;
	if (built != KF_V_OK) {
		reject(&j, built, "%s", why);
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
	bool prestarted = j.s->spare != NULL;
	cJSON_AddBoolToObject(res, "runner_prestarted", prestarted);
	if (prestarted) {
		cand = j.s->spare;
		j.s->spare = NULL;
		if ((rc = kf_runner_supply(cand, cres.so_path, err)) != KF_OK ||
		    (rc = kf_runner_ready(&cand, &died, err)) != KF_OK)
			goto out;
	} else if ((rc = kf_runner_start(&ro[SIDE_CANDIDATE], &cand, &died, err)) != KF_OK) {
		goto out;
	}
	phase_done(&j, "sandbox_start_ms", &t_phase);
	if (!cand) {
		reject(&j, died.verdict, "%s", died.reason);
		goto done;
	}
	if (!prestarted) /* a spare's steps hold the wait for this candidate */
		start_steps_json(res, cand);
	ref = j.s->refr;
	vend = j.s->vendr;
	j.s->refr = j.s->vendr = NULL;
	if ((!ref && (rc = kf_runner_launch(&ro[SIDE_REFERENCE], &ref, err)) != KF_OK) ||
	    (!vend && j.s->vendarea && !j.s->vendor_off[0] &&
	     (rc = kf_runner_launch(&ro[SIDE_VENDOR], &vend, err)) != KF_OK) ||
	    (rc = kf_runner_launch(&ro[SIDE_CANDIDATE], &fresh, err)) != KF_OK) /* the determinism re-run's */
		goto out;
	if ((rc = correctness(&j, cand, err)) != KF_OK)
		goto out;
	phase_done(&j, "correctness_ms", &t_phase);
	if (j.verdict == KF_V_OK) {
		if ((rc = fresh_repeat(&j, &fresh, err)) != KF_OK)
			goto out;
		phase_done(&j, "determinism_ms", &t_phase);
	}
	if (j.verdict == KF_V_OK) {
		if ((rc = timing_runners(&j, &ref, &vend, err)) != KF_OK)
			goto out;
		phase_done(&j, "runners_ms", &t_phase);
		if ((rc = timing(&j, ro, &cand, &vend, &ref, res, err)) != KF_OK)
			goto out;
		if (j.verdict == KF_V_OK || j.verdict == KF_V_FASTER_THAN_LIGHT)
			phase_done(&j, "timing_ms", &t_phase);
	}
	if (cand) /* none when its runner failed to restart for a re-measurement */
		cJSON_AddStringToObject(res, "output", kf_runner_output(cand));
	if (keep_runners) {
		j.s->refr = ref;
		j.s->vendr = vend;
		ref = vend = NULL;
	}
	stop_runners(&cand, &ref, &vend, &fresh);
	phase_done(&j, "stop_ms", &t_phase);
	/* No launch failure is this evaluation's: the next one starts its runner itself. On the CPU only
	 * until it is measured on a GPU, where the start is a device context (185-323 ms a candidate). */
	if (o->session && j.b == KF_BACKEND_CPU) {
		struct kf_runner_opts spare = runner_opts(&j, j.s->area, NULL, t->vendor_libs_allowed);
		kf_err ignored;
		if (kf_runner_launch(&spare, &j.s->spare, &ignored) != KF_OK)
			j.s->spare = NULL;
	}
done:
	kf_judge_result_finish(res, j.verdict, j.reason, &j.worst, &j.trials, &j.warnings, &j.phases);
	*result = res;
	res = NULL;
out:
	stop_runners(&cand, &ref, &vend, &fresh);
	if (!o->session || rc != KF_OK) /* after kforge's own error, nothing is kept */
		session_clear(j.s);
	kf_compile_res_free(&cres);
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
	if (kf_task_multi_gpu(t))
		return kf_judge_multi_check_task(t, err);
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
		kf_rng_seed(&r, kf_judge_trial_seed(o.seed, seed));
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
