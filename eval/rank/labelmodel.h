/* The label model (DESIGN.md §9): from the votes of weak verifiers on a pool of candidates, and no
 * labels, estimate each verifier's true- and false-positive rates and each candidate's probability
 * of being correct. Dawid–Skene EM with +1/+2 smoothing, verifier filtering (degenerate positive
 * rates, TPR <= FPR), the sign anchored on the correctness verifier, and the closed-form triplet
 * estimate as a cross-check. Pure arithmetic: it knows nothing of verifiers' meanings or the store. */
#ifndef KF_LABELMODEL_H
#define KF_LABELMODEL_H

#include <stdbool.h>

#include "common/err.h"

enum kf_vote { KF_VOTE_ABSTAIN = -1, KF_VOTE_FAIL = 0, KF_VOTE_PASS = 1 };
const char *kf_vote_name(enum kf_vote v); /* "abstain", "fail", "pass" */
int kf_vote_parse(const char *s, enum kf_vote *out); /* 0 ok, -1 unknown */

/* Votes of n_verifiers on n_items: v[item * n_verifiers + verifier], each a kf_vote. */
struct kf_lm_votes {
	int n_items, n_verifiers;
	const signed char *v;
};

/* A verifier is kept when its positive rate over its votes lies strictly inside these bounds. */
#define KF_LM_MIN_POS_RATE 0.1
#define KF_LM_MAX_POS_RATE 0.9

struct kf_lm_opts {
	int anchor;          /* the correctness verifier, whose TPR > FPR fixes the sign; -1: none */
	int max_iters;       /* EM iterations per fit */
	double tol;          /* stop when no posterior moves more than this */
	double min_pos_rate, max_pos_rate;
	int min_votes;       /* fewer non-abstaining votes than this: dropped */
};
void kf_lm_opts_default(struct kf_lm_opts *o);

enum kf_lm_status {
	KF_LM_KEPT,
	KF_LM_DROP_FEW_VOTES,
	KF_LM_DROP_DEGENERATE,  /* positive rate outside (min_pos_rate, max_pos_rate) */
	KF_LM_DROP_NO_SIGNAL,   /* TPR <= FPR once the sign is fixed */
};
const char *kf_lm_status_name(enum kf_lm_status s); /* "kept", "too_few_votes", "degenerate", "no_signal" */

struct kf_lm_verifier {
	enum kf_lm_status status;
	int n_votes;
	double pos_rate;                 /* passes / non-abstaining votes; NAN without votes */
	double tpr, fpr;                 /* EM estimates; for a dropped verifier, measured against the final
					    posteriors (NAN without votes) */
	double triplet_tpr, triplet_fpr; /* closed form; NAN when no triplet could be used */
};

struct kf_lm_fit {
	int n_items, n_verifiers, n_kept;
	double prior;           /* pi = P(correct) over the items that have a kept vote */
	int iterations;         /* EM iterations of the final fit */
	bool converged;
	bool anchored;          /* the sign came from the anchor (else from the kept verifiers' majority) */
	double triplet_prior;   /* closed form; NAN when not estimable */
	struct kf_lm_verifier *verifiers;
	double *posterior;      /* P(correct) per item; the prior for an item with no kept vote; all NAN
				   when no verifier is kept */
};

/* Fits the model. KF_EINPUT for an empty or malformed vote matrix; everything else is KF_OK, with
 * n_kept = 0 when no verifier survives filtering. */
int kf_lm_fit(const struct kf_lm_votes *votes, const struct kf_lm_opts *o, struct kf_lm_fit *out, kf_err *err);
void kf_lm_fit_free(struct kf_lm_fit *f);

/* The closed-form triplet estimate over the verifiers with use[i] (conditional independence given
 * the label; second moments give |TPR - FPR| * sqrt(pi (1 - pi)) per verifier, the third moment the
 * prior). Fills prior and, for every used verifier, tpr/fpr (NAN where not estimable). Returns false
 * when fewer than three used verifiers share enough items. */
bool kf_lm_triplet(const struct kf_lm_votes *votes, const bool *use, double *prior, double *tpr, double *fpr);

#endif
