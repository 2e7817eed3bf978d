/* The label model (eval/rank/labelmodel.c) on synthetic votes drawn from known rates: EM and the
 * triplet estimate recover the rates and the prior, filtering drops degenerate and anti-correlated
 * verifiers, the anchor fixes the sign when most verifiers are inverted, abstains are no votes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "common/rng.h"
#include "eval/rank/labelmodel.h"

#define N_ITEMS 4000
#define MAX_VERIFIERS 8
#define EM_RATE_TOL 0.03
#define EM_PRIOR_TOL 0.02
#define TRIPLET_RATE_TOL 0.06
#define TRIPLET_PRIOR_TOL 0.05

struct truth {
	double prior;
	int n;
	double tpr[MAX_VERIFIERS], fpr[MAX_VERIFIERS];
	double abstain[MAX_VERIFIERS]; /* probability of abstaining, independent of the label */
};

struct synth {
	signed char *v;
	bool *label;
	struct kf_lm_votes votes;
};

static void draw(const struct truth *t, int n_items, uint64_t seed, struct synth *s)
{
	kf_rng r;
	kf_rng_seed(&r, seed);
	s->v = calloc((size_t)n_items * (size_t)t->n, 1);
	s->label = calloc((size_t)n_items, sizeof *s->label);
	for (int j = 0; j < n_items; j++) {
		s->label[j] = kf_rng_uniform(&r) < t->prior;
		for (int i = 0; i < t->n; i++) {
			double p = s->label[j] ? t->tpr[i] : t->fpr[i];
			signed char vote = kf_rng_uniform(&r) < p ? KF_VOTE_PASS : KF_VOTE_FAIL;
			s->v[j * t->n + i] = kf_rng_uniform(&r) < t->abstain[i] ? KF_VOTE_ABSTAIN : vote;
		}
	}
	s->votes = (struct kf_lm_votes){ n_items, t->n, s->v };
}

static void synth_free(struct synth *s)
{
	free(s->v);
	free(s->label);
}

static void fit(const struct synth *s, int anchor, struct kf_lm_fit *f)
{
	struct kf_lm_opts o;
	kf_lm_opts_default(&o);
	o.anchor = anchor;
	kf_err err;
	cr_assert_eq(kf_lm_fit(&s->votes, &o, f, &err), KF_OK, "%s", err.msg);
}

/* Share of items whose posterior, thresholded at 1/2, matches the label. */
static double accuracy(const struct synth *s, const struct kf_lm_fit *f)
{
	int right = 0;
	for (int j = 0; j < s->votes.n_items; j++)
		right += (f->posterior[j] >= 0.5) == s->label[j];
	return (double)right / s->votes.n_items;
}

static double majority_accuracy(const struct synth *s)
{
	int right = 0, m = s->votes.n_verifiers;
	for (int j = 0; j < s->votes.n_items; j++) {
		int balance = 0;
		for (int i = 0; i < m; i++)
			balance += s->v[j * m + i] == KF_VOTE_PASS ? 1 : s->v[j * m + i] == KF_VOTE_FAIL ? -1 : 0;
		right += (balance > 0) == s->label[j];
	}
	return (double)right / s->votes.n_items;
}

/* Five informative verifiers of very different quality, some abstaining. */
static const struct truth five = {
	.prior = 0.3,
	.n = 5,
	.tpr = { 0.90, 0.80, 0.95, 0.70, 0.85 },
	.fpr = { 0.20, 0.10, 0.45, 0.30, 0.05 },
	.abstain = { 0.0, 0.1, 0.2, 0.0, 0.3 },
};

TestSuite(labelmodel);

Test(labelmodel, em_recovers_known_rates_and_prior_from_unlabelled_votes)
{
	struct synth s;
	draw(&five, N_ITEMS, 1, &s);
	struct kf_lm_fit f;
	fit(&s, 0, &f);
	cr_expect_eq(f.n_kept, five.n, "every verifier is informative");
	cr_expect(f.converged);
	cr_expect(f.anchored);
	cr_expect_float_eq(f.prior, five.prior, EM_PRIOR_TOL, "prior %.3f", f.prior);
	for (int i = 0; i < five.n; i++) {
		cr_expect_eq(f.verifiers[i].status, KF_LM_KEPT);
		cr_expect_float_eq(f.verifiers[i].tpr, five.tpr[i], EM_RATE_TOL, "verifier %d: TPR %.3f, true %.3f", i,
				   f.verifiers[i].tpr, five.tpr[i]);
		cr_expect_float_eq(f.verifiers[i].fpr, five.fpr[i], EM_RATE_TOL, "verifier %d: FPR %.3f, true %.3f", i,
				   f.verifiers[i].fpr, five.fpr[i]);
	}
	cr_expect_gt(accuracy(&s, &f), majority_accuracy(&s), "weighting by estimated rates beats a plain vote");
	kf_lm_fit_free(&f);
	synth_free(&s);
}

Test(labelmodel, posteriors_follow_the_fitted_rates)
{
	struct synth s;
	draw(&five, N_ITEMS, 2, &s);
	struct kf_lm_fit f;
	fit(&s, 0, &f);
	/* At the fixed point each posterior is the DESIGN.md formula applied to the fitted rates. */
	for (int j = 0; j < 50; j++) {
		double x = log(f.prior / (1 - f.prior));
		for (int i = 0; i < five.n; i++) {
			const struct kf_lm_verifier *r = &f.verifiers[i];
			int l = s.v[j * five.n + i];
			if (l == KF_VOTE_PASS)
				x += log(r->tpr / r->fpr);
			else if (l == KF_VOTE_FAIL)
				x += log((1 - r->tpr) / (1 - r->fpr));
		}
		cr_expect_float_eq(f.posterior[j], 1 / (1 + exp(-x)), 1e-4, "item %d", j);
	}
	kf_lm_fit_free(&f);
	synth_free(&s);
}

Test(labelmodel, smoothing_adds_one_pass_and_two_votes)
{
	/* Verifier 1 passes exactly the items verifiers 0 and 2 pass; 0 and 2 agree on every item, so the
	 * posteriors settle near 0 and 1 and verifier 1's rates approach (k + 1) / (k + 2) and 1 / (n - k + 2). */
	enum { N = 40, K = 15 };
	signed char v[N * 3];
	for (int j = 0; j < N; j++)
		for (int i = 0; i < 3; i++)
			v[j * 3 + i] = j < K ? KF_VOTE_PASS : KF_VOTE_FAIL;
	struct kf_lm_votes votes = { N, 3, v };
	struct kf_lm_opts o;
	kf_lm_opts_default(&o);
	struct kf_lm_fit f;
	kf_err err;
	cr_assert_eq(kf_lm_fit(&votes, &o, &f, &err), KF_OK, "%s", err.msg);
	cr_expect_float_eq(f.verifiers[1].tpr, (K + 1.0) / (K + 2.0), 1e-3, "TPR %.5f", f.verifiers[1].tpr);
	cr_expect_float_eq(f.verifiers[1].fpr, 1.0 / (N - K + 2.0), 1e-3, "FPR %.5f", f.verifiers[1].fpr);
	cr_expect_float_eq(f.prior, (double)K / N, 1e-3);
	kf_lm_fit_free(&f);
}

Test(labelmodel, triplet_estimate_agrees_with_the_true_rates)
{
	struct synth s;
	draw(&five, N_ITEMS, 3, &s);
	bool use[5] = { true, true, true, true, true };
	double prior, tpr[5], fpr[5];
	cr_assert(kf_lm_triplet(&s.votes, use, &prior, tpr, fpr));
	cr_expect_float_eq(prior, five.prior, TRIPLET_PRIOR_TOL, "prior %.3f", prior);
	for (int i = 0; i < five.n; i++) {
		cr_expect_float_eq(tpr[i], five.tpr[i], TRIPLET_RATE_TOL, "verifier %d: TPR %.3f, true %.3f", i, tpr[i],
				   five.tpr[i]);
		cr_expect_float_eq(fpr[i], five.fpr[i], TRIPLET_RATE_TOL, "verifier %d: FPR %.3f, true %.3f", i, fpr[i],
				   five.fpr[i]);
	}
	synth_free(&s);
}

Test(labelmodel, triplet_needs_three_verifiers)
{
	struct synth s;
	draw(&five, 200, 4, &s);
	bool use[5] = { true, true, false, false, false };
	double prior, tpr[5], fpr[5];
	cr_expect_not(kf_lm_triplet(&s.votes, use, &prior, tpr, fpr));
	cr_expect(isnan(prior) && isnan(tpr[0]) && isnan(fpr[1]));
	synth_free(&s);
}

Test(labelmodel, the_fit_reports_the_triplet_cross_check)
{
	struct synth s;
	draw(&five, N_ITEMS, 5, &s);
	struct kf_lm_fit f;
	fit(&s, 0, &f);
	cr_expect_float_eq(f.triplet_prior, f.prior, TRIPLET_PRIOR_TOL);
	for (int i = 0; i < five.n; i++)
		cr_expect_float_eq(f.verifiers[i].triplet_tpr, f.verifiers[i].tpr, TRIPLET_RATE_TOL, "verifier %d", i);
	kf_lm_fit_free(&f);
	synth_free(&s);
}

Test(labelmodel, drops_a_verifier_that_almost_always_passes)
{
	struct truth t = five;
	t.n = 6;
	t.tpr[5] = 0.99;
	t.fpr[5] = 0.9; /* positive rate about 0.93 */
	struct synth s;
	draw(&t, N_ITEMS, 6, &s);
	struct kf_lm_fit f;
	fit(&s, 0, &f);
	cr_expect_eq(f.verifiers[5].status, KF_LM_DROP_DEGENERATE);
	cr_expect_str_eq(kf_lm_status_name(f.verifiers[5].status), "degenerate");
	cr_expect_eq(f.n_kept, 5);
	cr_expect_gt(f.verifiers[5].pos_rate, KF_LM_MAX_POS_RATE);
	kf_lm_fit_free(&f);
	synth_free(&s);
}

Test(labelmodel, drops_a_verifier_whose_passes_mean_incorrect)
{
	struct truth t = five;
	t.n = 6;
	t.tpr[5] = 0.2;
	t.fpr[5] = 0.8;
	struct synth s;
	draw(&t, N_ITEMS, 7, &s);
	struct kf_lm_fit f;
	fit(&s, 0, &f);
	cr_expect_eq(f.verifiers[5].status, KF_LM_DROP_NO_SIGNAL);
	cr_expect_lt(f.verifiers[5].tpr, f.verifiers[5].fpr, "its rates are still reported, against the final fit");
	for (int i = 0; i < five.n; i++)
		cr_expect_float_eq(f.verifiers[i].tpr, five.tpr[i], EM_RATE_TOL, "verifier %d", i);
	kf_lm_fit_free(&f);
	synth_free(&s);
}

Test(labelmodel, the_anchor_fixes_the_sign_when_most_verifiers_are_inverted)
{
	/* Verifier 0 is the correctness check; 3 to 6 pass incorrect candidates and fail correct ones.
	 * A plain vote (and EM started from it) would call the wrong side correct. */
	struct truth t = {
		.prior = 0.4,
		.n = 7,
		.tpr = { 0.95, 0.85, 0.80, 0.15, 0.20, 0.10, 0.25 },
		.fpr = { 0.10, 0.20, 0.25, 0.85, 0.80, 0.90, 0.75 },
	};
	struct synth s;
	draw(&t, N_ITEMS, 8, &s);
	struct kf_lm_fit anchored, unanchored;
	fit(&s, 0, &anchored);
	fit(&s, -1, &unanchored);
	cr_expect(anchored.anchored);
	cr_expect_gt(accuracy(&s, &anchored), 0.9);
	cr_expect_float_eq(anchored.prior, t.prior, TRIPLET_PRIOR_TOL, "three kept verifiers: prior %.3f", anchored.prior);
	for (int i = 3; i < t.n; i++)
		cr_expect_eq(anchored.verifiers[i].status, KF_LM_DROP_NO_SIGNAL, "inverted verifier %d is dropped", i);
	cr_expect_lt(accuracy(&s, &unanchored), 0.5, "without the anchor the majority's side wins");
	kf_lm_fit_free(&anchored);
	kf_lm_fit_free(&unanchored);
	synth_free(&s);
}

Test(labelmodel, abstains_are_not_votes)
{
	/* Verifier 3 abstains on every incorrect item: over its votes it always passes, a degenerate
	 * positive rate, and an abstain must never have been read as a fail. */
	struct truth t = five;
	struct synth s;
	draw(&t, N_ITEMS, 9, &s);
	for (int j = 0; j < N_ITEMS; j++)
		s.v[j * t.n + 3] = s.label[j] ? KF_VOTE_PASS : KF_VOTE_ABSTAIN;
	struct kf_lm_fit f;
	fit(&s, 0, &f);
	cr_expect_float_eq(f.verifiers[3].pos_rate, 1.0, 1e-12);
	cr_expect_eq(f.verifiers[3].status, KF_LM_DROP_DEGENERATE);
	kf_lm_fit_free(&f);
	synth_free(&s);
}

Test(labelmodel, an_item_without_kept_votes_gets_the_prior)
{
	struct synth s;
	draw(&five, N_ITEMS, 10, &s);
	for (int i = 0; i < five.n; i++)
		s.v[7 * five.n + i] = KF_VOTE_ABSTAIN;
	struct kf_lm_fit f;
	fit(&s, 0, &f);
	cr_expect_float_eq(f.posterior[7], f.prior, 1e-12);
	kf_lm_fit_free(&f);
	synth_free(&s);
}

Test(labelmodel, no_kept_verifier_leaves_every_posterior_unknown)
{
	signed char v[] = { KF_VOTE_PASS, KF_VOTE_PASS, KF_VOTE_PASS, KF_VOTE_PASS };
	struct kf_lm_votes votes = { 4, 1, v };
	struct kf_lm_opts o;
	kf_lm_opts_default(&o);
	struct kf_lm_fit f;
	kf_err err;
	cr_assert_eq(kf_lm_fit(&votes, &o, &f, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(f.n_kept, 0);
	cr_expect(isnan(f.prior) && isnan(f.posterior[0]));
	kf_lm_fit_free(&f);
}

Test(labelmodel, rejects_malformed_vote_matrices)
{
	signed char v[] = { KF_VOTE_PASS, 7 };
	struct kf_lm_votes votes = { 1, 2, v };
	struct kf_lm_opts o;
	kf_lm_opts_default(&o);
	struct kf_lm_fit f;
	kf_err err;
	cr_expect_eq(kf_lm_fit(&votes, &o, &f, &err), KF_EINPUT);
	votes.n_items = 0;
	cr_expect_eq(kf_lm_fit(&votes, &o, &f, &err), KF_EINPUT);
	votes = (struct kf_lm_votes){ 1, 1, v };
	o.anchor = 3;
	cr_expect_eq(kf_lm_fit(&votes, &o, &f, &err), KF_EINPUT);
}

Test(labelmodel, vote_names_round_trip)
{
	enum kf_vote v;
	cr_expect_eq(kf_vote_parse("pass", &v), 0);
	cr_expect_eq(v, KF_VOTE_PASS);
	cr_expect_eq(kf_vote_parse("abstain", &v), 0);
	cr_expect_eq(v, KF_VOTE_ABSTAIN);
	cr_expect_eq(kf_vote_parse("maybe", &v), -1);
	cr_expect_str_eq(kf_vote_name(KF_VOTE_FAIL), "fail");
}
