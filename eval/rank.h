/* Ranking (DESIGN.md §9): the candidates of a run (or of the whole store), each at its latest
 * evaluation, verified by the weak verifiers (verify.h; votes kept in the store and reused), scored
 * by one label model (labelmodel.h) fitted over the survivors of the hard gates of every task in
 * scope, and ordered per task: hard gates passed (verdict ok) first, then P(correct) >= theta, then
 * SOL fraction, ties by lower timing variance (IQR), then shorter source. It owns the SQL of the
 * verifier tables (db/store.c migration 3). */
#ifndef KF_EVAL_RANK_H
#define KF_EVAL_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "common/err.h"
#include "db/store.h"
#include "eval/labelmodel.h"
#include "eval/verify.h"

/* A candidate is trusted when its posterior P(correct) reaches theta. */
#define KF_RANKING_DEFAULT_THETA 0.5
/* The verifier that fixes the label model's sign: among survivors of the judge's tests, the same
 * check on the hidden shapes. */
#define KF_RANKING_ANCHOR KF_VER_HIDDEN
#define KF_RANKING_ANCHOR_NAME "hidden"

struct kf_ranking_opts {
	const int64_t *run_ids; /* candidates of these agent runs; none: every candidate in the store */
	int n_run_ids;
	const char *task;       /* list only this task (the label model still pools the whole scope) */
	double theta;
	bool reverify;          /* verify again even where votes are stored */
	struct kf_verify_opts verify; /* verifier settings; backend, device and seed are set per candidate */
};
void kf_ranking_opts_default(struct kf_ranking_opts *o);

struct kf_ranked {
	int64_t submission_id, evaluation_id, run_id; /* run_id 0: not part of an agent run */
	char *task, *backend, *verdict, *submitter;
	double time_ms, iqr_ms, sol_fraction;         /* NAN when not timed */
	int64_t source_bytes;
	bool gates_passed;                            /* the judge's verdict is ok */
	double p_correct;                             /* NAN: not scored (failed a hard gate, or no verifier kept) */
	bool trusted;                                 /* p_correct >= theta */
	int position;                                 /* 1-based, within its task */
	struct kf_vote_rec votes[KF_VER_COUNT];       /* owned */
};

struct kf_ranking {
	char scope[64];        /* "run 3", "runs 3, 4" or "all" */
	double theta;
	int64_t fit_id;        /* the stored fit (label_fits.id); 0 when nothing was fitted */
	int n_fitted;          /* candidates in the fit (those that passed the hard gates) */
	struct kf_lm_fit fit;  /* items in the order of the fitted candidates */
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

/* {"scope", "theta", "fit_id", "label_model": {...}, "tasks": [{"task", "backend", "candidates": [...]}]} */
cJSON *kf_ranking_json(const struct kf_ranking *r, bool with_evidence);
/* The label model's summary: prior, iterations, anchored, triplet prior, and per verifier its status,
 * vote count, positive rate, estimated TPR/FPR and the triplet's. */
cJSON *kf_ranking_model_json(const struct kf_lm_fit *fit);

#endif
