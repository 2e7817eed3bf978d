/* Ranking (DESIGN.md §9): the candidates of a run (or of the whole store), each at its latest
 * evaluation, verified by the weak verifiers (verify.h; votes kept in the store and reused), scored
 * by one label model (labelmodel.h) fitted over the survivors of the hard gates of every task in
 * scope, and ordered per task: hard gates passed (verdict ok) first, then P(correct) >= theta, then
 * SOL fraction, ties by lower timing variance (IQR), then shorter source. `kforge rank` and
 * `kforge run` (which refines and reports the top trusted candidate) both rank through here. It
 * owns the SQL of the verifier tables (db/store.c migration 3). */
#ifndef KF_EVAL_RANK_H
#define KF_EVAL_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "common/err.h"
#include "db/store.h"
#include "eval/rank/labelmodel.h"
#include "eval/rank/verify.h"

/* A candidate is trusted when its posterior P(correct) reaches theta. */
#define KF_RANKING_DEFAULT_THETA 0.5
/* When the label model keeps no verifier (a pool too small or too uniform to fit, e.g. early in a
 * run), a survivor is trusted when none of the verifiers that run it again on inputs the judge never
 * drew failed it: ragged, hidden, stress, determinism, consensus, memcheck, racecheck. */
bool kf_ranking_unanimity_verifier(enum kf_verifier v);
/* The verifier that fixes the label model's sign: among survivors of the judge's tests, the same
 * check on the hidden shapes. */
#define KF_RANKING_ANCHOR KF_VER_HIDDEN
#define KF_RANKING_ANCHOR_NAME "hidden"

/* Where a candidate's votes come from: kf_verify_candidate's signature. The default runs it in this
 * process; a caller may route it elsewhere (a judge worker) or fake it (tests). */
typedef int (*kf_ranking_verify_fn)(void *ctx, const struct kf_task *t, const char *source, size_t len,
				    const cJSON *judge_result, const struct kf_verify_opts *o,
				    struct kf_verify_result *out, kf_err *err);

/* A candidate shown to the LLM judge. */
struct kf_ranking_llm_item {
	const struct kf_task *t;
	enum kf_backend backend;
	int64_t submission_id;
	const char *source;
};

/* The optional LLM judge (agent/llm_judge.h provides one): fills votes[i] for items[i] (pass, fail or
 * abstain, evidence with at least "why" and "model"), asking every item at once. A failed request is
 * an abstain, not an error. */
typedef int (*kf_ranking_llm_judge_fn)(void *ctx, const struct kf_ranking_llm_item *items, int n,
				       struct kf_vote_rec *votes, kf_err *err);

struct kf_ranking_opts {
	const int64_t *run_ids; /* candidates of these agent runs; none: every candidate in the store */
	int n_run_ids;
	const char *task;       /* list only this task (the label model still pools the whole scope) */
	double theta;
	bool reverify;          /* verify again even where votes are stored */
	bool gated_only;        /* verify only the candidates that passed the hard gates (a run's ranking:
				   the others are out of the fit anyway; kforge rank verifies every one) */
	struct kf_verify_opts verify; /* verifier settings; backend, device and seed are set per candidate */
	kf_ranking_verify_fn verify_fn; /* NULL: kf_verify_candidate */
	void *verify_ctx;
	kf_ranking_llm_judge_fn llm_judge; /* NULL: no LLM judge is asked (stored llm_judge votes still count) */
	void *llm_judge_ctx;
	const char *llm_judge_model; /* with llm_judge: candidates whose stored llm_judge vote came from
					another model (or from none) are asked again */
};
void kf_ranking_opts_default(struct kf_ranking_opts *o);

struct kf_ranked {
	int64_t submission_id, evaluation_id, run_id; /* run_id 0: not part of an agent run */
	char *task, *backend, *verdict, *submitter;
	double time_ms, iqr_ms, sol_fraction;         /* NAN when not timed */
	int64_t source_bytes;
	bool gates_passed;                            /* the judge's verdict is ok */
	double p_correct;                             /* NAN: not scored (failed a hard gate, or no verifier kept) */
	bool trusted;                                 /* p_correct >= theta (or the unanimity rule) */
	int position;                                 /* 1-based, within its task */
	struct kf_vote_rec votes[KF_VER_COUNT];       /* owned */
};

struct kf_ranking {
	char scope[64];        /* "run 3", "runs 3, 4" or "all" */
	double theta;
	int64_t fit_id;        /* the stored fit (label_fits.id); 0 when nothing was fitted */
	int n_fitted;          /* candidates in the fit (those that passed the hard gates) */
	struct kf_lm_fit fit;  /* items in the order of the fitted candidates */
	bool unanimity;        /* no verifier was kept: trust came from kf_ranking_unanimity_verifier */
	int n_verified;        /* candidates verified in this call (the rest had stored votes) */
	struct kf_ranked *c;   /* by task, backend, then position */
	int n;
};

/* Verifies what needs it, fits, stores the fit and posteriors, orders. No candidate in scope is
 * KF_EINPUT (it names the run). */
int kf_ranking_build(struct kf_store *s, const struct kf_ranking_opts *o, struct kf_ranking **out, kf_err *err);
void kf_ranking_free(struct kf_ranking *r);

/* The order within a task; < 0 when a ranks before b. */
int kf_ranking_compare(const struct kf_ranked *a, const struct kf_ranked *b);

/* P(correct) of one candidate in a stored fit. */
struct kf_posterior {
	int64_t submission_id;
	double p_correct; /* NAN: not scored */
	bool trusted;     /* p_correct >= the fit's theta, or the unanimity rule when no verifier was kept */
};
/* The posteriors of the latest fit whose scope is exactly agent run run_id (a run's own ranking, or
 * `kforge rank RUN`); *n = 0 when the run was never ranked. Free *out. */
int kf_ranking_run_posteriors(struct kf_store *s, int64_t run_id, struct kf_posterior **out, int *n, kf_err *err);

/* {"scope", "theta", "fit_id", "label_model": {...}, "tasks": [{"task", "backend", "candidates": [...]}]} */
cJSON *kf_ranking_json(const struct kf_ranking *r, bool with_evidence);
/* The label model's summary: prior, iterations, anchored, triplet prior, and per verifier its status,
 * vote count, positive rate, estimated TPR/FPR and the triplet's. */
cJSON *kf_ranking_model_json(const struct kf_lm_fit *fit);

#endif
