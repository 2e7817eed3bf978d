/* The multi-GPU judge (see multi.h, docs/multi-gpu.md). Per rank r (GPU device+r) the judge owns two
 * buffer areas of one layout: the candidate's (exported to the multi-GPU runner, which maps every
 * rank's with access for every GPU) and its own (the judge's copy of the inputs, where the trusted
 * reference and vendor baseline run, peer-accessible inside the judge's process). Each area holds
 * every tensor's rank slice, a scratch region and a signal region, with patterned redzones.
 *
 * Correctness: each trial draws the whole job's inputs (every rank's slice) into the judge's memory,
 * gives each rank its slice, poisons outputs, fills scratch with NaN bytes and zeroes the signals,
 * runs the job, then on every rank checks the inputs (byte for byte against the judge's copy: a rank
 * that wrote its own or a peer's inputs), the redzones, unwritten outputs, and compares every rank's
 * outputs with the fp64 oracle run over all ranks at once (small shapes) or with the reference's
 * outputs (large shapes); outputs are read again afterwards (still changing after the call: work
 * left running). Timing: candidate, reference and vendor interleaved on the benchmark shape, fresh
 * inputs and an L2 flush on every GPU per call, outputs compared with the reference's on every rank
 * every iteration; a side's sample is the slowest rank's window from the common start; the
 * candidate's claim is bounded by the judge's clock. A deadlocked rank is a call that overruns its
 * wall limit: the runner's watchdog kills the whole job (verdict timeout) and the GPUs are freed
 * with its process. */
#include "eval/judge/multi.h"

#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/csource.h"
#include "common/rng.h"
#include "eval/judge/area.h"
#include "eval/judge/compare.h"
#include "eval/judge/judge_common.h"
#include "eval/judge/gpu/multi_cuda.h"
#include "eval/judge/policy.h"
#include "eval/judge/sol.h"
#include "eval/judge/stats.h"
#include "eval/judge/trusted.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/multi.h"
#include "eval/tasks/tensor.h"
#include "sandbox/sandbox.h"

#define KF_MJ_REASON_MAX 1024
#define KF_MJ_ALIGN 4096    /* every region starts on its own page */
#define KF_MJ_END_ALIGN 64  /* a buffer ends this close to its region's end */
#define KF_MJ_SCRATCH_INT 23 /* KF_PROTO_MAX_INTS - 1: each rank's scratch size (runner_cuda_multi.c) */
#define KF_MJ_NINTS 24
#define KF_MJ_NBUFS 15      /* the tensors, then the scratch and signal slots */
#define KF_MJ_FTL_SLACK 1.05 /* datasheet ceilings are true bounds (as on one GPU) */
/* What a candidate's gap (wall - claim) may exceed the null calls' by for free: the protocol and
 * one enqueue per rank behind the holds (tens of microseconds each), plus 1% of its claim. */
#define KF_MJ_GAP_PER_RANK_NS 30e3
#define KF_MJ_GAP_SHARE 0.01
/* Untimed iterations first: a vendor baseline creates its NCCL communicators and connections, and
 * every side loads its modules, on its first call. */
#define KF_MJ_WARMUP 2

_Static_assert(KF_MJ_NBUFS == KF_MULTI_SIGNAL_SLOT + 1, "the judge sends the tensors, scratch and signals");
_Static_assert(KF_MJ_SCRATCH_INT >= KF_TASK_MAX_INTS, "the scratch size has a slot of its own");

enum side { SIDE_CAND, SIDE_REF, SIDE_VENDOR, SIDE_COUNT };
static const char *const side_names[SIDE_COUNT] = { "candidate", "reference", "vendor" };

struct mj {
	const struct kf_task *t;
	const struct kf_judge_opts *o;
	const struct kf_area_ops *ops;
	const struct kf_cuda_multi_ops *mops;
	int world, dev[KF_MULTI_MAX_WORLD];
	struct kf_area *cand[KF_MULTI_MAX_WORLD], *mine[KF_MULTI_MAX_WORLD];
	struct kf_area_layout l; /* per rank: the tensors' regions, then scratch, then signals */
	size_t scratch_bytes;
	struct kf_trusted ref, oracle;
	kf_shim_call_fn vendor;
	struct kf_sampler *sampler;
	/* Host copies of the whole job (every rank's slice) at the shapes the oracle checks. */
	void *host[KF_MAX_TENSORS], *again[KF_MAX_TENSORS];
	double *dval[KF_MAX_TENSORS];
	int64_t max_slice[KF_MAX_TENSORS], max_oracle_n[KF_MAX_TENSORS];
	struct kf_comm comm[KF_MULTI_MAX_WORLD]; /* the trusted kernels' view of the judge's areas */
	enum kf_verdict verdict;
	char reason[KF_MJ_REASON_MAX];
	struct kf_judge_worst worst;
	cJSON *trials, *warnings, *phases;
	uint8_t pattern;
	int64_t deadline_ns;
};

static bool reject(struct mj *j, enum kf_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool reject(struct mj *j, enum kf_verdict v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool set = kf_judge_vreject(&j->verdict, j->reason, sizeof j->reason, v, fmt, ap);
	va_end(ap);
	return set;
}

static void warn(struct mj *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct mj *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kf_judge_vwarn(j->warnings, fmt, ap);
	va_end(ap);
}

static void phase_done(struct mj *j, const char *name, int64_t *t0)
{
	int64_t now = kf_now_ns();
	cJSON_AddNumberToObject(j->phases, name, kf_ns_to_ms(now - *t0));
	*t0 = now;
}

static int n_tensors(const struct kf_task *t) { return t->n_inputs + t->n_outputs; }

/* Elements of rank r's slice of tensor i (the whole tensor over world). */
static int64_t slice_n(const struct mj *j, int i, const struct kf_shape *s)
{
	return kf_task_numel(j->t, i, s) / j->world;
}

static size_t slice_bytes(const struct mj *j, int i, const struct kf_shape *s)
{
	return (size_t)slice_n(j, i, s) * kf_dtype_size(j->t->tensors[i].dtype);
}

/* Where tensor i's slice lies at shape s in every rank's area: ending at its region's end (rounded
 * down), so an overrun lands in the redzone at once. */
static size_t at(const struct mj *j, const struct kf_shape *s, int i)
{
	return (j->l.end[i] - slice_bytes(j, i, s)) / KF_MJ_END_ALIGN * KF_MJ_END_ALIGN;
}

static size_t scratch_off(const struct mj *j) { return j->l.start[n_tensors(j->t)]; }
static size_t signal_off(const struct mj *j) { return j->l.start[n_tensors(j->t) + 1]; }

/* ---- shapes and layout ---- */

struct trial {
	enum kf_shape_set set;
	struct kf_shape shape;
	const struct kf_stress *stress;
	uint64_t seed;
	bool oracle;
};

static void note_shape(struct mj *j, const struct kf_shape *s)
{
	bool oracle = kf_judge_uses_oracle(j->t, s);
	for (int i = 0; i < n_tensors(j->t); i++) {
		int64_t n = slice_n(j, i, s), all = kf_task_numel(j->t, i, s);
		if (n > j->max_slice[i])
			j->max_slice[i] = n;
		if (oracle && all > j->max_oracle_n[i])
			j->max_oracle_n[i] = all;
	}
}

static int layout(struct mj *j, const struct kf_shape *bench, kf_err *err)
{
	const struct kf_task *t = j->t;
	for (int set = KF_SET_TEST; set < KF_SET_COUNT; set++)
		for (int k = 0; k < t->n_shapes[set]; k++) {
			struct kf_shape s = kf_task_multi_shape(t, &t->shapes[set][k], j->world);
			note_shape(j, &s);
		}
	note_shape(j, bench);
	int64_t ws = kf_task_workspace(t, bench);
	j->scratch_bytes = ws > KF_MULTI_SCRATCH_MIN ? (size_t)ws : KF_MULTI_SCRATCH_MIN;
	j->scratch_bytes = (j->scratch_bytes + KF_MJ_ALIGN - 1) / KF_MJ_ALIGN * KF_MJ_ALIGN;
	size_t off = KF_AREA_GUARD_BYTES;
	j->l.n = n_tensors(t) + 2;
	j->l.n_readonly = t->n_inputs;
	for (int i = 0; i < j->l.n; i++) {
		size_t bytes = i < n_tensors(t) ? (size_t)j->max_slice[i] * kf_dtype_size(t->tensors[i].dtype)
			       : i == n_tensors(t) ? j->scratch_bytes : KF_MULTI_SIGNAL_BYTES;
		j->l.start[i] = off;
		j->l.end[i] = off + (bytes + KF_MJ_ALIGN - 1) / KF_MJ_ALIGN * KF_MJ_ALIGN;
		off = j->l.end[i] + KF_AREA_GUARD_BYTES;
	}
	j->l.bytes = off - KF_AREA_GUARD_BYTES + KF_AREA_TAIL_GUARD_BYTES;
	for (int i = 0; i < n_tensors(t); i++) {
		size_t n = (size_t)(j->max_oracle_n[i] > 0 ? j->max_oracle_n[i] : 1);
		j->host[i] = kf_xmalloc(n * kf_dtype_size(t->tensors[i].dtype));
		j->again[i] = kf_xmalloc(n * kf_dtype_size(t->tensors[i].dtype));
		j->dval[i] = kf_xmalloc(n * sizeof(double));
	}
	for (int r = 0; r < j->world; r++)
		if (j->ops->create_laid_out(&j->l, j->dev[r], &j->cand[r], err) != KF_OK ||
		    j->ops->create_laid_out(&j->l, j->dev[r], &j->mine[r], err) != KF_OK)
			return kf_err_prefix(err, "rank %d (GPU %d): ", r, j->dev[r]);
	/* The judge's own areas reach each other: the trusted kernels run here on peers' buffers. */
	void *bases[KF_MULTI_MAX_WORLD];
	size_t bytes[KF_MULTI_MAX_WORLD];
	for (int r = 0; r < j->world; r++) {
		bases[r] = j->ops->ptr(j->mine[r], 0);
		j->ops->runner_fd(j->mine[r], &bytes[r]);
	}
	return j->mops->share(bases, bytes, j->dev, j->world, err);
}

/* ---- per-call preparation and checks ---- */

/* The redzones of rank r's area a at shape s: before and after every tensor's slice, and around the
 * scratch and signal regions. zone[k] = { offset, bytes }. Returns how many. */
static int zones(const struct mj *j, const struct kf_shape *s, size_t zone[][2], int *owner, bool *after)
{
	int n = 0;
	for (int i = 0; i < j->l.n; i++) {
		size_t lo = i < n_tensors(j->t) ? at(j, s, i) : j->l.start[i];
		size_t hi = i < n_tensors(j->t) ? lo + slice_bytes(j, i, s)
			    : j->l.start[i] + (i == n_tensors(j->t) ? j->scratch_bytes : KF_MULTI_SIGNAL_BYTES);
		zone[n][0] = j->l.start[i] - KF_AREA_GUARD_BYTES;
		zone[n][1] = lo - zone[n][0];
		owner[n] = i;
		after[n++] = false;
		zone[n][0] = hi;
		zone[n][1] = j->l.end[i] + KF_AREA_GUARD_BYTES - hi;
		owner[n] = i;
		after[n++] = true;
	}
	return n;
}

static const char *region_name(const struct mj *j, int i)
{
	return i < n_tensors(j->t) ? j->t->tensors[i].name : i == n_tensors(j->t) ? "scratch" : "signals";
}

/* Poisoned outputs, NaN scratch, zero signals and patterned redzones in area a (rank r). */
static int prepare(struct mj *j, struct kf_area *a, int r, const struct kf_shape *s, kf_err *err)
{
	const struct kf_task *t = j->t;
	j->mops->use(j->dev[r]);
	for (int i = t->n_inputs; i < n_tensors(t); i++)
		if (j->ops->poison(a, at(j, s, i), t->tensors[i].dtype, slice_n(j, i, s), err) != KF_OK)
			return err->code;
	size_t zone[2 * (KF_MAX_TENSORS + 2)][2];
	int owner[2 * (KF_MAX_TENSORS + 2)];
	bool after[2 * (KF_MAX_TENSORS + 2)];
	int nz = zones(j, s, zone, owner, after);
	for (int k = 0; k < nz; k++)
		if (zone[k][1] && j->ops->pattern_fill(a, zone[k][0], zone[k][1], j->pattern, err) != KF_OK)
			return err->code;
	if (j->ops->pattern_fill(a, scratch_off(j), j->scratch_bytes, KF_MULTI_SCRATCH_FILL, err) != KF_OK ||
	    j->ops->pattern_fill(a, signal_off(j), KF_MULTI_SIGNAL_BYTES, 0, err) != KF_OK)
		return err->code;
	return j->ops->sync(a, err);
}

/* Inputs, redzones and unwritten outputs of every rank after a candidate's call. */
static int check_ranks(struct mj *j, const struct kf_shape *s, const char *ctx, kf_err *err)
{
	const struct kf_task *t = j->t;
	for (int r = 0; r < j->world && j->verdict == KF_V_OK; r++) {
		j->mops->use(j->dev[r]);
		for (int i = 0; i < t->n_inputs; i++) {
			int64_t first = -1;
			if (j->ops->diff(j->cand[r], at(j, s, i), j->mine[r], at(j, s, i), slice_bytes(j, i, s), &first, err) !=
			    KF_OK)
				return err->code;
			if (first >= 0)
				reject(j, KF_V_INPUTS_MODIFIED,
				       "%s: rank %d's input %s changed near byte %lld (a rank wrote inputs it must only read: "
				       "its own or a peer's)",
				       ctx, r, t->tensors[i].name, (long long)first);
		}
		size_t zone[2 * (KF_MAX_TENSORS + 2)][2];
		int owner[2 * (KF_MAX_TENSORS + 2)];
		bool after[2 * (KF_MAX_TENSORS + 2)];
		int nz = zones(j, s, zone, owner, after);
		for (int k = 0; k < nz && j->verdict == KF_V_OK; k++) {
			int64_t first = -1;
			if (zone[k][1] && j->ops->pattern_check(j->cand[r], zone[k][0], zone[k][1], j->pattern, &first, err) != KF_OK)
				return err->code;
			if (first >= 0)
				reject(j, KF_V_OUT_OF_BOUNDS, "%s: rank %d wrote %s %s (the redzone %s it changed)", ctx, r,
				       after[k] ? "past the end of" : "before the start of", region_name(j, owner[k]),
				       after[k] ? "after" : "before");
		}
		for (int i = t->n_inputs; i < n_tensors(t) && j->verdict == KF_V_OK; i++) {
			int64_t left = 0;
			if (j->ops->count_poison(j->cand[r], at(j, s, i), t->tensors[i].dtype, slice_n(j, i, s), &left, err) != KF_OK)
				return err->code;
			if (left > 0)
				reject(j, KF_V_UNWRITTEN_OUTPUT,
				       "%s: rank %d's output %s still holds the judge's poison in %lld of %lld elements: the rank "
				       "skipped work, or read a peer's buffer early (before the peer wrote it)",
				       ctx, r, t->tensors[i].name, (long long)left, (long long)slice_n(j, i, s));
		}
	}
	return KF_OK;
}

/* Every rank's outputs against the judge's own run of the reference (same GPU, same inputs). */
static int compare_with_reference(struct mj *j, const struct kf_shape *s, const char *ctx, kf_err *err)
{
	const struct kf_task *t = j->t;
	for (int r = 0; r < j->world && j->verdict == KF_V_OK; r++) {
		j->mops->use(j->dev[r]);
		for (int i = t->n_inputs; i < n_tensors(t) && j->verdict == KF_V_OK; i++) {
			struct kf_cmp c;
			if (j->ops->compare(j->cand[r], at(j, s, i), j->mine[r], at(j, s, i), t->tensors[i].dtype, slice_n(j, i, s),
					    kf_judge_tolerance(t, i, false), &c, err) != KF_OK)
				return err->code;
			kf_judge_note_error(&j->worst, &c);
			if (!c.pass)
				reject(j, KF_V_WRONG_ANSWER,
				       "%s: rank %d's output %s is wrong at element %lld of its slice: got %.6g, the reference "
				       "%.6g (%lld elements off)",
				       ctx, r, t->tensors[i].name, (long long)c.first_bad, c.got, c.want, (long long)c.n_bad);
		}
	}
	return KF_OK;
}

/* ---- running the sides ---- */

/* The trusted kernels' struct kf_comm for every rank, over the judge's own areas at shape s. */
static void build_comm(struct mj *j, const struct kf_shape *s)
{
	for (int r = 0; r < j->world; r++) {
		struct kf_comm *c = &j->comm[r];
		memset(c, 0, sizeof *c);
		c->rank = r;
		c->world = j->world;
		c->scratch_bytes = (long long)j->scratch_bytes;
		c->signal_bytes = KF_MULTI_SIGNAL_BYTES;
		for (int p = 0; p < j->world; p++) {
			for (int i = 0; i < n_tensors(j->t); i++)
				c->peer[p].buf[i] = j->ops->ptr(j->mine[p], at(j, s, i));
			c->peer[p].scratch = j->ops->ptr(j->mine[p], scratch_off(j));
			c->peer[p].signals = j->ops->ptr(j->mine[p], signal_off(j));
		}
	}
}

struct trusted_call {
	struct mj *j;
	kf_shim_call_fn fn;
	const long long *ints;
};

static int trusted_rank(void *ctx, int rank, void *stream)
{
	struct trusted_call *tc = ctx;
	void *bufs[KF_MULTI_COMM_SLOT + 1] = { 0 };
	for (int i = 0; i < n_tensors(tc->j->t); i++)
		bufs[i] = tc->j->comm[rank].peer[rank].buf[i];
	bufs[KF_MULTI_COMM_SLOT] = &tc->j->comm[rank];
	return tc->fn(bufs, tc->ints, stream);
}

/* A trusted side (reference or vendor baseline) over the judge's areas, prepared first; *ms the
 * slowest rank's window. */
static int run_trusted(struct mj *j, kf_shim_call_fn fn, const char *what, const struct kf_shape *s, bool flush,
		       double *ms, kf_err *err)
{
	for (int r = 0; r < j->world; r++)
		if (prepare(j, j->mine[r], r, s, err) != KF_OK ||
		    (flush && j->ops->flush(j->mine[r], (uint64_t)kf_now_ns(), err) != KF_OK))
			return err->code;
	build_comm(j, s);
	long long ints[KF_MJ_NINTS] = { 0 };
	kf_task_call_ints(j->t, s, ints);
	struct trusted_call tc = { j, fn, ints };
	void *streams[KF_MULTI_MAX_WORLD];
	double rank_ms[KF_MULTI_MAX_WORLD];
	for (int r = 0; r < j->world; r++)
		streams[r] = j->ops->stream(j->mine[r]);
	int rc = 0;
	if (j->mops->time_ranks(j->dev, streams, j->world, trusted_rank, &tc, rank_ms, &rc, err) != KF_OK)
		return kf_err_prefix(err, "the %s of task %s: ", what, j->t->name);
	if (rc)
		return kf_errf(err, KF_EINTERNAL, "the %s of task %s failed on some rank (returned %d)", what, j->t->name, rc);
	*ms = 0;
	for (int r = 0; r < j->world; r++)
		*ms = fmax(*ms, rank_ms[r]);
	return KF_OK;
}

static int call_candidate(struct mj *j, struct kf_runner *run, const struct kf_shape *s, const char *ctx,
			  struct kf_call_result *res, kf_err *err)
{
	size_t off[KF_MJ_NBUFS] = { 0 };
	for (int i = 0; i < n_tensors(j->t); i++)
		off[i] = at(j, s, i);
	off[KF_MULTI_SCRATCH_SLOT] = scratch_off(j);
	off[KF_MULTI_SIGNAL_SLOT] = signal_off(j);
	long long ints[KF_MJ_NINTS] = { 0 };
	kf_task_call_ints(j->t, s, ints);
	ints[KF_MJ_SCRATCH_INT] = (long long)j->scratch_bytes;
	if (j->deadline_ns && kf_now_ns() > j->deadline_ns) {
		reject(j, KF_V_TIMEOUT, "the evaluation took longer than its deadline");
		res->status = KF_CALL_DIED;
		return KF_OK;
	}
	if (kf_runner_call(run, off, KF_MJ_NBUFS, ints, KF_MJ_NINTS, res, err) != KF_OK)
		return err->code;
	if (res->status == KF_CALL_DIED)
		reject(j, res->verdict, "%s: %s%s", ctx, res->reason,
		       res->verdict == KF_V_TIMEOUT ? " (a rank waiting for a peer that never signals deadlocks the job)" : "");
	else if (res->status == KF_CALL_FAILED)
		reject(j, KF_V_RUNTIME_ERROR, "%s: kf_launch returned %d on a rank", ctx, res->rc);
	return KF_OK;
}

/* ---- correctness ---- */

static void trial_context(const struct mj *j, const struct trial *tr, char *out, size_t len)
{
	kf_buf b = KF_BUF_INIT;
	kf_task_shape_format(j->t, &tr->shape, &b);
	snprintf(out, len, "%s shape %s%s%s, seed %llu", kf_shape_set_name(tr->set), b.data ? b.data : "",
		 tr->stress ? ", stress " : "", tr->stress ? tr->stress->name : "", (unsigned long long)tr->seed);
	kf_buf_free(&b);
}

/* Inputs of the whole job: drawn into the judge's memory (oracle shapes) or on every rank's GPU,
 * and the same values in the judge's own areas. */
static int draw_inputs(struct mj *j, const struct trial *tr, kf_err *err)
{
	const struct kf_task *t = j->t;
	kf_rng rng;
	kf_rng_seed(&rng, tr->seed);
	for (int i = 0; i < t->n_inputs; i++) {
		struct kf_dist d = kf_task_dist(t, i, tr->stress, &tr->shape);
		size_t sb = slice_bytes(j, i, &tr->shape);
		if (tr->oracle)
			kf_tensor_fill(j->sampler, &rng, &d, t->tensors[i].dtype, j->host[i], kf_task_numel(t, i, &tr->shape));
		for (int r = 0; r < j->world; r++) {
			j->mops->use(j->dev[r]);
			size_t off = at(j, &tr->shape, i);
			int rc = tr->oracle ? j->ops->upload(j->cand[r], off, (char *)j->host[i] + (size_t)r * sb, sb, err)
					    : j->ops->fill(j->cand[r], off, t->tensors[i].dtype, slice_n(j, i, &tr->shape), &d,
							   kf_rng_next(&rng), err);
			if (rc != KF_OK || j->ops->copy_from(j->mine[r], off, j->cand[r], off, sb, err) != KF_OK)
				return err->code;
		}
	}
	for (int r = 0; r < j->world; r++)
		if (prepare(j, j->cand[r], r, &tr->shape, err) != KF_OK)
			return err->code;
	return KF_OK;
}

/* Every rank's outputs, read into the judge's memory as the whole job's tensors. */
static int download_outputs(struct mj *j, const struct kf_shape *s, void **dst, kf_err *err)
{
	for (int i = j->t->n_inputs; i < n_tensors(j->t); i++) {
		size_t sb = slice_bytes(j, i, s);
		for (int r = 0; r < j->world; r++) {
			j->mops->use(j->dev[r]);
			if (j->ops->download(j->cand[r], at(j, s, i), (char *)dst[i] + (size_t)r * sb, sb, err) != KF_OK)
				return err->code;
		}
	}
	return KF_OK;
}

static int check_with_oracle(struct mj *j, const struct trial *tr, const char *ctx, kf_err *err)
{
	const struct kf_task *t = j->t;
	if (download_outputs(j, &tr->shape, j->host, err) != KF_OK)
		return err->code;
	long long ints[KF_MJ_NINTS] = { 0 };
	kf_task_call_ints(t, &tr->shape, ints);
	void *args[KF_MAX_TENSORS];
	for (int i = 0; i < t->n_inputs; i++)
		kf_tensor_to_double(t->tensors[i].dtype, j->host[i], j->dval[i], kf_task_numel(t, i, &tr->shape));
	for (int i = 0; i < n_tensors(t); i++)
		args[i] = j->dval[i];
	int rc = j->oracle.call(args, ints, NULL);
	if (rc)
		return kf_errf(err, KF_EINTERNAL, "the oracle of task %s failed (returned %d)", t->name, rc);
	for (int i = t->n_inputs; i < n_tensors(t) && j->verdict == KF_V_OK; i++) {
		struct kf_cmp c;
		int64_t n = kf_task_numel(t, i, &tr->shape), per = slice_n(j, i, &tr->shape);
		kf_compare(t->tensors[i].dtype, j->host[i], j->dval[i], n, kf_judge_tolerance(t, i, true), &c);
		kf_judge_note_error(&j->worst, &c);
		if (!c.pass)
			reject(j, KF_V_WRONG_ANSWER,
			       "%s: rank %lld's output %s is wrong at element %lld of its slice: got %.6g, expected %.6g "
			       "(%lld of %lld elements of the job off)",
			       ctx, (long long)(c.first_bad / per), t->tensors[i].name, (long long)(c.first_bad % per), c.got,
			       c.want, (long long)c.n_bad, (long long)n);
	}
	/* Read again: an output that changed since is still being written by work left running. */
	if (j->verdict == KF_V_OK && download_outputs(j, &tr->shape, j->again, err) != KF_OK)
		return err->code;
	for (int i = t->n_inputs; i < n_tensors(t) && j->verdict == KF_V_OK; i++)
		if (memcmp(j->host[i], j->again[i], kf_task_tensor_bytes(t, i, &tr->shape)))
			reject(j, KF_V_UNWRITTEN_OUTPUT, "%s: output %s still changing after kf_launch returned (work left running)",
			       ctx, t->tensors[i].name);
	return KF_OK;
}

static int run_trial(struct mj *j, struct kf_runner *run, const struct trial *tr, kf_err *err)
{
	char ctx[512];
	trial_context(j, tr, ctx, sizeof ctx);
	if (draw_inputs(j, tr, err) != KF_OK)
		return err->code;
	double ref_ms = 0;
	if (!tr->oracle && run_trusted(j, j->ref.call, "reference kernel", &tr->shape, false, &ref_ms, err) != KF_OK)
		return err->code;
	struct kf_call_result res;
	if (call_candidate(j, run, &tr->shape, ctx, &res, err) != KF_OK)
		return err->code;
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "set", kf_shape_set_name(tr->set));
	kf_buf b = KF_BUF_INIT;
	kf_task_shape_format(j->t, &tr->shape, &b);
	cJSON_AddStringToObject(rec, "shape", b.data ? b.data : "");
	kf_buf_free(&b);
	cJSON_AddNumberToObject(rec, "seed", (double)tr->seed);
	cJSON_AddStringToObject(rec, "expected_from", tr->oracle ? "oracle" : "reference");
	if (tr->stress)
		cJSON_AddStringToObject(rec, "stress", tr->stress->name);
	cJSON_AddNumberToObject(rec, "time_ms", kf_ns_to_ms(res.wall_ns));
	cJSON_AddItemToArray(j->trials, rec);
	if (j->verdict != KF_V_OK)
		return KF_OK;
	if (check_ranks(j, &tr->shape, ctx, err) != KF_OK)
		return err->code;
	if (j->verdict == KF_V_OK)
		return tr->oracle ? check_with_oracle(j, tr, ctx, err) : compare_with_reference(j, &tr->shape, ctx, err);
	return KF_OK;
}

static int correctness(struct mj *j, struct kf_runner *run, const struct kf_shape *bench, kf_err *err)
{
	const struct kf_task *t = j->t;
	int k = 0;
	struct trial tr;
	for (int set = KF_SET_TEST; set < KF_SET_COUNT && j->verdict == KF_V_OK; set++)
		for (int i = 0; i < t->n_shapes[set] && j->verdict == KF_V_OK; i++) {
			int seeds = set == KF_SET_TEST ? j->o->n_seeds : 1;
			for (int s = 0; s < seeds && j->verdict == KF_V_OK; s++) {
				tr = (struct trial){ (enum kf_shape_set)set, kf_task_multi_shape(t, &t->shapes[set][i], j->world), NULL,
						     kf_judge_trial_seed(j->o->seed, k++), false };
				tr.oracle = kf_judge_uses_oracle(t, &tr.shape);
				if (run_trial(j, run, &tr, err) != KF_OK)
					return err->code;
			}
			for (int st = 0; set == KF_SET_TEST && i == 0 && st < t->n_stress && j->verdict == KF_V_OK; st++) {
				tr = (struct trial){ KF_SET_TEST, kf_task_multi_shape(t, &t->shapes[set][i], j->world), &t->stress[st],
						     kf_judge_trial_seed(j->o->seed, k++), false };
				tr.oracle = kf_judge_uses_oracle(t, &tr.shape);
				if (run_trial(j, run, &tr, err) != KF_OK)
					return err->code;
			}
		}
	if (j->verdict != KF_V_OK)
		return KF_OK;
	tr = (struct trial){ KF_SET_BENCH, *bench, NULL, kf_judge_trial_seed(j->o->seed, k++),
			     kf_judge_uses_oracle(t, bench) };
	return run_trial(j, run, &tr, err);
}

/* ---- timing ---- */

struct side_samples {
	double *ms;    /* believed samples */
	double *wall;  /* the judge's clock (candidate) */
	double *claim; /* the runner's claim (candidate) */
	int n;
};

/* Fresh inputs on every rank (drawn where they live), copied into the judge's areas, the candidate's
 * area prepared and every GPU's L2 flushed. */
static int fresh_inputs(struct mj *j, const struct kf_shape *s, uint64_t seed, kf_err *err)
{
	const struct kf_task *t = j->t;
	kf_rng rng;
	kf_rng_seed(&rng, seed);
	for (int r = 0; r < j->world; r++) {
		j->mops->use(j->dev[r]);
		for (int i = 0; i < t->n_inputs; i++) {
			struct kf_dist d = kf_task_dist(t, i, NULL, s);
			size_t off = at(j, s, i);
			if (j->ops->fill(j->cand[r], off, t->tensors[i].dtype, slice_n(j, i, s), &d, kf_rng_next(&rng), err) != KF_OK ||
			    j->ops->copy_from(j->mine[r], off, j->cand[r], off, slice_bytes(j, i, s), err) != KF_OK)
				return err->code;
		}
		if (prepare(j, j->cand[r], r, s, err) != KF_OK || j->ops->flush(j->cand[r], seed, err) != KF_OK)
			return err->code;
	}
	return KF_OK;
}

/* Milliseconds as whole nanoseconds, as the store keeps samples (db/store.c). */
static cJSON *samples_ns_json(const double *ms, int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(ms[i] > 0 ? llround(ms[i] * 1e6) : -1));
	return a;
}

static double median_of(const double *v, int n)
{
	struct kf_stats st;
	kf_stats_compute(v, n, &st);
	return st.median;
}

/* The candidate's claims bounded by the judge's clock: a claim outside (0, wall] gives the wall less
 * the null calls' median gap; a median gap beyond the null calls' 90th percentile and the budget is
 * charged to every sample. Returns the charge (ms). */
static double bound_claims(struct mj *j, struct side_samples *c, const struct kf_runner_calib *cal, cJSON *rec)
{
	double *gap = kf_xmalloc(sizeof(double) * (size_t)c->n);
	int rejected = 0;
	for (int i = 0; i < c->n; i++) {
		bool ok = c->claim[i] > 0 && c->claim[i] <= c->wall[i];
		rejected += !ok;
		c->ms[i] = ok ? c->claim[i] : fmax(c->wall[i] - kf_ns_to_ms(cal->gap_median_ns), 0);
		gap[i] = c->wall[i] - c->ms[i];
	}
	double med = median_of(c->ms, c->n);
	double budget = kf_ns_to_ms(cal->gap_p90_ns) + (KF_MJ_GAP_PER_RANK_NS * j->world) / 1e6 + KF_MJ_GAP_SHARE * med;
	double charge = fmax(0, median_of(gap, c->n) - budget);
	for (int i = 0; i < c->n; i++)
		c->ms[i] += charge;
	free(gap);
	cJSON_AddStringToObject(rec, "method", rejected ? "judge_clock_bounded" : "runner_clock_checked");
	cJSON_AddNumberToObject(rec, "claims_rejected", rejected);
	cJSON_AddNumberToObject(rec, "charged_ns", charge * 1e6);
	if (charge > 0)
		warn(j, "the candidate's calls took %.3f ms more on the judge's clock than it claimed, beyond the protocol's "
			"overhead (work outside its streams' windows?): charged to every sample", charge);
	return charge;
}

static int timing(struct mj *j, struct kf_runner *run, const struct kf_shape *s, const struct kf_peaks *mp, cJSON *res,
		  kf_err *err)
{
	int max = j->o->max_iters > 0 ? j->o->max_iters : 1;
	struct side_samples sd[SIDE_COUNT];
	for (int k = 0; k < SIDE_COUNT; k++) {
		sd[k].ms = kf_xcalloc((size_t)max, sizeof(double));
		sd[k].wall = kf_xcalloc((size_t)max, sizeof(double));
		sd[k].claim = kf_xcalloc((size_t)max, sizeof(double));
		sd[k].n = 0;
	}
	int rc = KF_OK;
	int64_t t_end = kf_now_ns() + (int64_t)(j->o->timing_budget_s * 1e9);
	char ctx[128];
	for (int it = -KF_MJ_WARMUP; it < max && j->verdict == KF_V_OK; it++) {
		if (it >= j->o->min_iters && kf_now_ns() > t_end)
			break;
		bool record = it >= 0;
		snprintf(ctx, sizeof ctx, "timed call %d", it + 1 + KF_MJ_WARMUP);
		uint64_t seed = kf_judge_trial_seed(j->o->seed ^ 0x74696d65ull, it + KF_MJ_WARMUP);
		struct kf_call_result cr;
		if ((rc = fresh_inputs(j, s, seed, err)) != KF_OK || (rc = call_candidate(j, run, s, ctx, &cr, err)) != KF_OK)
			goto out;
		if (j->verdict != KF_V_OK)
			break;
		if (record) {
			sd[SIDE_CAND].wall[sd[SIDE_CAND].n] = kf_ns_to_ms(cr.wall_ns);
			sd[SIDE_CAND].claim[sd[SIDE_CAND].n++] = cr.runner_ns > 0 ? kf_ns_to_ms(cr.runner_ns) : -1;
		}
		double ms = 0;
		if ((rc = check_ranks(j, s, ctx, err)) != KF_OK ||
		    (rc = run_trusted(j, j->ref.call, "reference kernel", s, true, &ms, err)) != KF_OK)
			goto out;
		if (record)
			sd[SIDE_REF].ms[sd[SIDE_REF].n++] = ms;
		if (j->verdict == KF_V_OK && (rc = compare_with_reference(j, s, ctx, err)) != KF_OK)
			goto out;
		if (j->vendor) {
			if (run_trusted(j, j->vendor, "vendor baseline", s, true, &ms, err) != KF_OK) {
				warn(j, "the vendor baseline is not timed: %s", err->msg);
				j->vendor = NULL;
			} else if (record) {
				sd[SIDE_VENDOR].ms[sd[SIDE_VENDOR].n++] = ms;
			}
		}
		if (record && it + 1 >= j->o->min_iters) {
			struct kf_stats a, b;
			kf_stats_compute(sd[SIDE_CAND].claim, sd[SIDE_CAND].n, &a);
			kf_stats_compute(sd[SIDE_REF].ms, sd[SIDE_REF].n, &b);
			if (a.rse < j->o->target_rse && b.rse < j->o->target_rse)
				break;
		}
	}
	if (j->verdict != KF_V_OK || sd[SIDE_CAND].n == 0)
		goto out;
	cJSON *timing = cJSON_AddObjectToObject(res, "timing");
	struct kf_runner_calib cal;
	memset(&cal, 0, sizeof cal);
	kf_runner_calibration(run, &cal);
	cJSON *crec = cJSON_AddObjectToObject(timing, side_names[SIDE_CAND]);
	bound_claims(j, &sd[SIDE_CAND], &cal, crec);
	double med[SIDE_COUNT] = { 0 };
	for (int k = 0; k < SIDE_COUNT; k++) {
		if (!sd[k].n)
			continue;
		struct kf_stats st;
		kf_stats_compute(sd[k].ms, sd[k].n, &st);
		med[k] = st.median;
		cJSON *rec = k == SIDE_CAND ? crec : cJSON_AddObjectToObject(timing, side_names[k]);
		if (k != SIDE_CAND)
			cJSON_AddStringToObject(rec, "method", "judge_process_events");
		cJSON_AddNumberToObject(rec, "median_ms", st.median);
		cJSON_AddNumberToObject(rec, "mean_ms", st.mean);
		cJSON_AddNumberToObject(rec, "iqr_ms", st.iqr);
		cJSON_AddNumberToObject(rec, "min_ms", st.min);
		cJSON_AddNumberToObject(rec, "rse", isfinite(st.rse) ? st.rse : -1);
		cJSON_AddNumberToObject(rec, "n", st.n);
		if (k == SIDE_CAND) {
			cJSON_AddItemToObject(rec, "wall_ns", samples_ns_json(sd[k].wall, sd[k].n));
			cJSON_AddItemToObject(rec, "claim_ns", samples_ns_json(sd[k].claim, sd[k].n));
		}
		cJSON_AddItemToObject(rec, "samples_ns", samples_ns_json(sd[k].ms, sd[k].n));
	}
	enum kf_sol_bound bound;
	double t_ms = med[SIDE_CAND], ref_ms = med[SIDE_REF];
	double t_sol_ms = kf_sol_time_s(mp, j->t, s, &bound) * 1e3;
	cJSON_AddNumberToObject(res, "time_ms", t_ms);
	cJSON_AddNumberToObject(res, "ref_time_ms", ref_ms);
	if (sd[SIDE_VENDOR].n && j->vendor)
		cJSON_AddNumberToObject(res, "vendor_time_ms", med[SIDE_VENDOR]);
	kf_judge_result_speed(res, t_ms, ref_ms, t_sol_ms, bound);
	/* What each side moved over NVLink per GPU per second: the spec's bytes one GPU must send. */
	double link = kf_task_nvlink_bytes(j->t, s);
	cJSON *nv = cJSON_AddObjectToObject(res, "nvlink");
	cJSON_AddNumberToObject(nv, "bytes_per_gpu", link);
	for (int k = 0; k < SIDE_COUNT; k++)
		if (med[k] > 0 && (k != SIDE_VENDOR || j->vendor)) {
			char key[64];
			snprintf(key, sizeof key, "%s_bytes_s", side_names[k]);
			cJSON_AddNumberToObject(nv, key, link / (med[k] / 1e3));
		}
	if (t_ms * KF_MJ_FTL_SLACK < t_sol_ms)
		reject(j, KF_V_FASTER_THAN_LIGHT, "%.4g ms is below the speed of light %.4g ms (%s-bound) on %s", t_ms, t_sol_ms,
		       kf_sol_bound_name(bound), mp->device);
out:
	for (int k = 0; k < SIDE_COUNT; k++) {
		free(sd[k].ms);
		free(sd[k].wall);
		free(sd[k].claim);
	}
	return rc;
}

/* ---- set-up ---- */

/* The multi-GPU operations, from the CUDA library the buffer areas came from. */
static int find_multi_ops(struct mj *j, kf_err *err)
{
	Dl_info info;
	void *so = NULL;
	if (dladdr((void *)j->ops->create, &info) && info.dli_fname)
		so = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
	kf_cuda_multi_ops_fn fn = so ? (kf_cuda_multi_ops_fn)dlsym(so, KF_CUDA_MULTI_SYMBOL) : NULL;
	j->mops = fn ? fn() : NULL;
	if (!j->mops)
		return kf_errf(err, KF_EINTERNAL, "the CUDA library %s has no multi-GPU operations (%s): rebuild kforge",
			       KF_CUDA_LIB_NAME, KF_CUDA_MULTI_SYMBOL);
	return KF_OK;
}

/* The job's machine record, described once per process and set of GPUs (it measures the peer
 * copy bandwidth), stored under its own key. */
static int multi_peaks(struct mj *j, const struct kf_peaks *one, struct kf_peaks *out, kf_err *err)
{
	static char *cached;
	static int cached_dev[KF_MULTI_MAX_WORLD], cached_world;
	if (!cached || cached_world != j->world || memcmp(cached_dev, j->dev, sizeof(int) * (size_t)j->world)) {
		free(cached);
		cached = NULL;
		if (j->mops->describe(j->dev, j->world, &cached, err) != KF_OK)
			return kf_err_prefix(err, "describing the GPUs of the job: ");
		memcpy(cached_dev, j->dev, sizeof(int) * (size_t)j->world);
		cached_world = j->world;
	}
	return kf_sol_multi_peaks(j->o->store, one, j->world, cached, out, err);
}

/* NVLink multicast stays off on the machines kforge runs on (docs/multi-gpu.md). Comments are blanked,
 * strings kept: multimem instructions live in inline-assembly strings. */
static bool uses_multicast(const char *src, size_t len, char *why, size_t why_len)
{
	char *s = kf_csource_blank(src, len, false);
	static const char *const names[] = { "cuMulticast", "cudaMulticast", "CU_MEM_HANDLE_TYPE_FABRIC", "multimem." };
	bool bad = false;
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !bad; i++)
		if (strstr(s, names[i])) {
			snprintf(why, why_len, "uses %s: NVLink multicast objects are off on these machines", names[i]);
			bad = true;
		}
	free(s);
	return bad;
}

static int load_vendor(struct mj *j, const char *hdr, const char *shim, cJSON *res)
{
	char rel[PATH_MAX], so_path[PATH_MAX];
	if (!kf_task_vendor_source(j->t, KF_BACKEND_CUDA, rel, sizeof rel))
		return KF_OK;
	cJSON *rec = cJSON_AddObjectToObject(res, "vendor");
	kf_err verr = { 0 };
	if (kf_trusted_compile(KF_BACKEND_CUDA, j->dev[0], rel, hdr, shim, true, so_path, sizeof so_path, rec, &verr) != KF_OK) {
		warn(j, "the vendor baseline is not timed: %s", verr.msg);
		return KF_OK;
	}
	void *so = dlopen(so_path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	kf_shim_call_fn call = so ? (kf_shim_call_fn)dlsym(so, KF_SHIM_CALL_SYMBOL) : NULL;
	kf_shim_init_fn init = so ? (kf_shim_init_fn)dlsym(so, KF_SHIM_INIT_SYMBOL) : NULL;
	if (!call || !init || init() != 0) {
		warn(j, "the vendor baseline is not timed: %s", so ? "its kf_init failed or its shim is missing" : dlerror());
		return KF_OK;
	}
	j->vendor = call;
	return KF_OK;
}

static void release(struct mj *j)
{
	for (int r = 0; r < KF_MULTI_MAX_WORLD && j->ops; r++) {
		if (j->mops && r < j->world)
			j->mops->use(j->dev[r]);
		if (j->cand[r])
			j->ops->destroy(j->cand[r]);
		if (j->mine[r])
			j->ops->destroy(j->mine[r]);
	}
	for (int i = 0; i < KF_MAX_TENSORS; i++) {
		free(j->host[i]);
		free(j->again[i]);
		free(j->dval[i]);
	}
	kf_trusted_unload(&j->ref);
	kf_trusted_unload(&j->oracle);
	kf_sampler_free(j->sampler);
	cJSON_Delete(j->trials);
	cJSON_Delete(j->warnings);
	cJSON_Delete(j->phases);
}

/* The job's GPUs and its checks before anything is built: KF_EINPUT naming what is wrong. */
static int check_job(struct mj *j, kf_err *err)
{
	const struct kf_task *t = j->t;
	if (j->o->backend != KF_BACKEND_CUDA)
		return kf_errf(err, KF_EINPUT,
			       "task %s is a multi-GPU task (level %d): it runs only on the cuda backend (--backend cuda --gpus N), "
			       "never on the %s backend",
			       t->name, KF_LEVEL_MULTI_GPU, kf_backend_name(j->o->backend));
	if (kf_task_multi_check(t, err) != KF_OK || kf_task_check_files(t, KF_BACKEND_CUDA, err) != KF_OK)
		return err->code;
	if (kf_area_ops_for(KF_BACKEND_CUDA, &j->ops, err) != KF_OK || find_multi_ops(j, err) != KF_OK)
		return err->code;
	int count = 0;
	if (j->mops->device_count(&count, err) != KF_OK)
		return err->code;
	/* Unasked, every visible GPU (kforge run's judge workers each drive the whole set). */
	j->world = j->o->gpus > 0 ? j->o->gpus : count < KF_MULTI_MAX_WORLD ? count : KF_MULTI_MAX_WORLD;
	if (j->world < 2 || j->world > KF_MULTI_MAX_WORLD)
		return kf_errf(err, KF_EINPUT, "task %s runs on 2 to %d GPUs, not %d (--gpus N; this machine has %d)", t->name,
			       KF_MULTI_MAX_WORLD, j->world, count);
	if (j->world > count || j->o->device >= count)
		return kf_errf(err, KF_EINPUT, "--gpus %d from GPU %d: this machine has %d GPUs", j->world, j->o->device, count);
	for (int r = 0; r < j->world; r++) /* from the judge's own device on, wrapping (the runner's rule too) */
		j->dev[r] = (j->o->device + r) % count;
	return KF_OK;
}

int kf_judge_multi_evaluate(const struct kf_task *t, const struct kf_peaks *peaks, const char *source, size_t len,
			    const struct kf_judge_opts *o, cJSON **result, kf_err *err)
{
	struct mj j = { .t = t, .o = o, .verdict = KF_V_OK };
	j.trials = cJSON_CreateArray();
	j.warnings = cJSON_CreateArray();
	j.phases = cJSON_CreateObject();
	int64_t t_phase = kf_now_ns();
	j.deadline_ns = kf_judge_deadline_ns(o, t_phase);
	j.pattern = kf_judge_canary_byte();
	struct kf_peaks mp;
	memset(&mp, 0, sizeof mp);
	struct kf_runner *run = NULL;
	struct kf_compile_res cres;
	memset(&cres, 0, sizeof cres);
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	cJSON *res = NULL;
	char why[512];
	int rc = check_job(&j, err);
	if (rc != KF_OK)
		goto out;
	if ((rc = multi_peaks(&j, peaks, &mp, err)) != KF_OK)
		goto out;
	res = cJSON_CreateObject();
	kf_judge_result_head(res, t, o->backend, o->seed);
	cJSON_AddNumberToObject(res, "gpus", j.world);
	cJSON_AddItemToObject(res, "machine", mp.json ? cJSON_Duplicate(mp.json, 1) : cJSON_CreateObject());
	phase_done(&j, "machine_ms", &t_phase);
	if (uses_multicast(source, len, why, sizeof why)) {
		reject(&j, KF_V_POLICY_VIOLATION, "%s", why);
		goto done;
	}
	kf_abi_header(t, KF_BACKEND_CUDA, &hdr);
	kf_abi_shim(t, KF_BACKEND_CUDA, &shim);
	struct kf_compile_req req = { .backend = KF_BACKEND_CUDA, .source = source, .source_len = len, .header = hdr.data,
				      .shim = shim.data, .vendor_libs = false,
				      .cuda_arch = kf_area_arch(KF_BACKEND_CUDA, j.dev[0]) };
	if ((rc = kf_compile(&req, &cres, err)) != KF_OK)
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
	cJSON *refrec = cJSON_AddObjectToObject(res, "reference");
	if ((rc = kf_trusted_load_pair(t, KF_BACKEND_CUDA, j.dev[0], &j.ref, &j.oracle, refrec, err)) != KF_OK ||
	    (rc = load_vendor(&j, hdr.data, shim.data, res)) != KF_OK)
		goto out;
	j.sampler = kf_sampler_new();
	struct kf_shape bench = kf_task_multi_shape(t, &t->bench[KF_BACKEND_CUDA], j.world);
	if ((rc = layout(&j, &bench, err)) != KF_OK)
		goto out;
	phase_done(&j, "reference_ms", &t_phase);
	size_t bytes = 0;
	int rank_fds[KF_MULTI_MAX_WORLD];
	int fd0 = j.ops->runner_fd(j.cand[0], &bytes);
	for (int r = 1; r < j.world; r++) {
		size_t b = 0;
		rank_fds[r - 1] = j.ops->runner_fd(j.cand[r], &b);
		if (b != bytes) {
			rc = kf_errf(err, KF_EINTERNAL, "rank %d's buffers are %zu bytes, rank 0's %zu: the GPUs differ", r, b, bytes);
			goto out;
		}
	}
	struct kf_runner_opts ro = { .backend = KF_BACKEND_CUDA, .so_path = cres.so_path, .shm_fd = fd0, .shm_bytes = bytes,
				     .shm_ro_fd = -1, .device = j.dev[0], .call_timeout_s = o->call_timeout_s,
				     .cpu_limit_s = o->cpu_limit_s, .mem_limit_bytes = o->mem_limit_bytes, .world = j.world,
				     .rank_fds = rank_fds };
	struct kf_call_result died;
	if ((rc = kf_runner_start(&ro, &run, &died, err)) != KF_OK)
		goto out;
	phase_done(&j, "sandbox_start_ms", &t_phase);
	if (!run) {
		reject(&j, died.verdict, "%s", died.reason);
		goto done;
	}
	if ((rc = correctness(&j, run, &bench, err)) != KF_OK)
		goto out;
	phase_done(&j, "correctness_ms", &t_phase);
	if (j.verdict == KF_V_OK) {
		if ((rc = timing(&j, run, &bench, &mp, res, err)) != KF_OK)
			goto out;
		phase_done(&j, "timing_ms", &t_phase);
	}
	cJSON_AddStringToObject(res, "output", kf_runner_output(run));
done:
	kf_judge_result_finish(res, j.verdict, j.reason, &j.worst, &j.trials, &j.warnings, &j.phases);
	*result = res;
	res = NULL;
out:
	kf_runner_stop(run);
	kf_compile_res_free(&cres);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	kf_sol_peaks_free(&mp);
	release(&j);
	cJSON_Delete(res);
	return rc;
}

#define KF_MJ_NVIDIA_GPUS_DIR "/proc/driver/nvidia/gpus" /* one entry per GPU the driver sees */

int kf_judge_multi_visible_gpus(void)
{
	DIR *d = opendir(KF_MJ_NVIDIA_GPUS_DIR);
	int n = 0;
	for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* ---- well-posedness (kf_judge_check_task for level 4) ---- */

int kf_judge_multi_check_task(const struct kf_task *t, kf_err *err)
{
	if (kf_task_multi_check(t, err) != KF_OK)
		return err->code;
	kf_buf ohdr = KF_BUF_INIT, oshim = KF_BUF_INIT;
	kf_abi_oracle_header(t, &ohdr);
	kf_abi_oracle_shim(t, &oshim);
	char so_path[PATH_MAX];
	int rc = kf_trusted_compile(KF_BACKEND_CPU, 0, t->oracle, ohdr.data, oshim.data, false, so_path, sizeof so_path, NULL,
				    err);
	kf_buf_free(&ohdr);
	kf_buf_free(&oshim);
	if (rc != KF_OK)
		return err->code;
	void *so = dlopen(so_path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	kf_shim_call_fn oracle = so ? (kf_shim_call_fn)dlsym(so, KF_ORACLE_CALL_SYMBOL) : NULL;
	if (!oracle)
		return kf_errf(err, KF_EINTERNAL, "cannot load the oracle of task %s: %s", t->name, so ? "no entry point" : dlerror());
	/* The last test shape on 2 GPUs, two seeds: all-zero outputs must fail, and the answers must move. */
	struct kf_shape s = kf_task_multi_shape(t, &t->shapes[KF_SET_TEST][t->n_shapes[KF_SET_TEST] - 1], KF_MULTI_DEFAULT_GPUS);
	struct kf_sampler *sampler = kf_sampler_new();
	double *val[2][KF_MAX_TENSORS] = { { 0 } };
	void *typed[KF_MAX_TENSORS] = { 0 };
	long long ints[KF_MJ_NINTS] = { 0 };
	kf_task_call_ints(t, &s, ints);
	for (int seed = 0; seed < 2 && rc == KF_OK; seed++) {
		kf_rng r;
		kf_rng_seed(&r, kf_judge_trial_seed(1, seed));
		void *args[KF_MAX_TENSORS];
		for (int i = 0; i < n_tensors(t); i++) {
			int64_t n = kf_task_numel(t, i, &s);
			val[seed][i] = kf_xcalloc((size_t)n, sizeof(double));
			args[i] = val[seed][i];
			if (i < t->n_inputs) {
				struct kf_dist d = kf_task_dist(t, i, NULL, &s);
				free(typed[i]);
				typed[i] = kf_xmalloc((size_t)n * kf_dtype_size(t->tensors[i].dtype));
				kf_tensor_fill(sampler, &r, &d, t->tensors[i].dtype, typed[i], n);
				kf_tensor_to_double(t->tensors[i].dtype, typed[i], val[seed][i], n);
			}
		}
		if (oracle(args, ints, NULL) != 0)
			rc = kf_errf(err, KF_EINTERNAL, "the oracle of task %s failed", t->name);
	}
	for (int i = t->n_inputs; i < n_tensors(t) && rc == KF_OK; i++) {
		const struct kf_tensor *ten = &t->tensors[i];
		int64_t n = kf_task_numel(t, i, &s);
		void *out = kf_xcalloc((size_t)n, kf_dtype_size(ten->dtype));
		struct kf_cmp c;
		kf_compare(ten->dtype, out, val[0][i], n, kf_task_tolerance(t, i), &c);
		if (c.pass)
			rc = kf_errf(err, KF_EINPUT, "%s: an all-zero '%s' passes the tolerance", t->path, ten->name);
		for (int64_t k = 0; k < n && rc == KF_OK; k++)
			kf_tensor_set(ten->dtype, out, k, val[0][i][k]);
		kf_compare(ten->dtype, out, val[1][i], n, kf_task_tolerance(t, i), &c);
		if (rc == KF_OK && c.pass)
			rc = kf_errf(err, KF_EINPUT, "%s: output '%s' does not depend on the inputs enough to fail tolerance across seeds",
				     t->path, ten->name);
		free(out);
	}
	for (int i = 0; i < KF_MAX_TENSORS; i++) {
		free(val[0][i]);
		free(val[1][i]);
		free(typed[i]);
	}
	kf_sampler_free(sampler);
	return rc;
}
