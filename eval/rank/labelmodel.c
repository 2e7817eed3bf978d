/* Dawid–Skene EM and the triplet estimate (see labelmodel.h). Votes are 0/1 (abstain skipped);
 * the latent label is 1 for a correct candidate. The EM follows DESIGN.md §9 to the letter:
 *   pi = mean T;  TPR_i = (sum_j T_j [l_ij = 1] + 1) / (sum_j T_j [l_ij voted] + 2), FPR_i likewise
 *   with 1 - T_j;  T_j = sigmoid(logit pi + sum_i l_ij log(TPR_i / FPR_i)
 *                                          + (1 - l_ij) log((1 - TPR_i) / (1 - FPR_i))).
 * The likelihood is symmetric under swapping the labels, so the sign is fixed afterwards. */
#include "eval/rank/labelmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#define KF_LM_DEFAULT_MAX_ITERS 500
#define KF_LM_DEFAULT_TOL 1e-7
#define KF_LM_DEFAULT_MIN_VOTES 3
/* pi never reaches 0 or 1, so logit pi stays finite. */
#define KF_LM_PI_CLIP 1e-6
/* Pairs and triples of verifiers need this many items voted on by all of them to enter the
 * triplet estimate; a covariance below COV_EPS in magnitude carries no usable signal. */
#define KF_LM_MIN_SHARED_ITEMS 10
#define KF_LM_COV_EPS 1e-9

const char *kf_vote_name(enum kf_vote v)
{
	return v == KF_VOTE_PASS ? "pass" : v == KF_VOTE_FAIL ? "fail" : "abstain";
}

int kf_vote_parse(const char *s, enum kf_vote *out)
{
	static const enum kf_vote all[] = { KF_VOTE_ABSTAIN, KF_VOTE_FAIL, KF_VOTE_PASS };
	for (size_t i = 0; s && i < sizeof all / sizeof all[0]; i++)
		if (!strcmp(s, kf_vote_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	return -1;
}

const char *kf_lm_status_name(enum kf_lm_status s)
{
	switch (s) {
	case KF_LM_KEPT: return "kept";
	case KF_LM_DROP_FEW_VOTES: return "too_few_votes";
	case KF_LM_DROP_DEGENERATE: return "degenerate";
	default: return "no_signal";
	}
}

void kf_lm_opts_default(struct kf_lm_opts *o)
{
	o->anchor = -1;
	o->max_iters = KF_LM_DEFAULT_MAX_ITERS;
	o->tol = KF_LM_DEFAULT_TOL;
	o->min_pos_rate = KF_LM_MIN_POS_RATE;
	o->max_pos_rate = KF_LM_MAX_POS_RATE;
	o->min_votes = KF_LM_DEFAULT_MIN_VOTES;
}

static int vote_at(const struct kf_lm_votes *v, int item, int verifier)
{
	return v->v[(size_t)item * (size_t)v->n_verifiers + (size_t)verifier];
}

static double sigmoid(double x)
{
	return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

static double clip_pi(double p)
{
	return p < KF_LM_PI_CLIP ? KF_LM_PI_CLIP : p > 1 - KF_LM_PI_CLIP ? 1 - KF_LM_PI_CLIP : p;
}

/* ---- EM ---- */

struct em {
	const struct kf_lm_votes *v;
	const bool *kept;
	bool *active; /* items with at least one kept vote */
	int n_active;
	double *t;    /* posterior per item */
	double *tpr, *fpr;
	double prior;
};

/* The +1/+2 smoothed rates of verifier i against the posteriors t. */
static void rates_against(const struct kf_lm_votes *v, const bool *active, const double *t, int i, double *tpr,
			  double *fpr)
{
	double tp = 0, t_all = 0, fp = 0, f_all = 0;
	for (int j = 0; j < v->n_items; j++) {
		int l = vote_at(v, j, i);
		if (!active[j] || l == KF_VOTE_ABSTAIN)
			continue;
		t_all += t[j];
		f_all += 1 - t[j];
		if (l == KF_VOTE_PASS) {
			tp += t[j];
			fp += 1 - t[j];
		}
	}
	*tpr = (tp + 1) / (t_all + 2);
	*fpr = (fp + 1) / (f_all + 2);
}

static void m_step(struct em *e)
{
	double sum = 0;
	for (int j = 0; j < e->v->n_items; j++)
		if (e->active[j])
			sum += e->t[j];
	e->prior = clip_pi(sum / e->n_active);
	for (int i = 0; i < e->v->n_verifiers; i++)
		if (e->kept[i])
			rates_against(e->v, e->active, e->t, i, &e->tpr[i], &e->fpr[i]);
}

/* Returns the largest change of a posterior. */
static double e_step(struct em *e)
{
	double logit_pi = log(e->prior / (1 - e->prior)), moved = 0;
	for (int j = 0; j < e->v->n_items; j++) {
		if (!e->active[j])
			continue;
		double s = logit_pi;
		for (int i = 0; i < e->v->n_verifiers; i++) {
			int l = vote_at(e->v, j, i);
			if (!e->kept[i] || l == KF_VOTE_ABSTAIN)
				continue;
			s += l == KF_VOTE_PASS ? log(e->tpr[i] / e->fpr[i]) : log((1 - e->tpr[i]) / (1 - e->fpr[i]));
		}
		double t = sigmoid(s);
		if (fabs(t - e->t[j]) > moved)
			moved = fabs(t - e->t[j]);
		e->t[j] = t;
	}
	return moved;
}

/* Starts from the share of kept verifiers that pass each item (a soft majority vote). */
static void em_init(struct em *e)
{
	e->n_active = 0;
	for (int j = 0; j < e->v->n_items; j++) {
		int pass = 0, voted = 0;
		for (int i = 0; i < e->v->n_verifiers; i++) {
			int l = vote_at(e->v, j, i);
			if (e->kept[i] && l != KF_VOTE_ABSTAIN) {
				voted++;
				pass += l == KF_VOTE_PASS;
			}
		}
		e->active[j] = voted > 0;
		e->n_active += voted > 0;
		e->t[j] = voted ? (pass + 0.5) / (voted + 1.0) : NAN;
	}
}

static void em_run(struct em *e, const struct kf_lm_opts *o, int *iters, bool *converged)
{
	em_init(e);
	*converged = false;
	for (*iters = 0; *iters < o->max_iters && e->n_active > 0;) {
		m_step(e);
		++*iters;
		if (e_step(e) < o->tol) {
			*converged = true;
			break;
		}
	}
	m_step(e);
}

static void em_flip(struct em *e)
{
	for (int j = 0; j < e->v->n_items; j++)
		if (e->active[j])
			e->t[j] = 1 - e->t[j];
	e->prior = 1 - e->prior;
	for (int i = 0; i < e->v->n_verifiers; i++) {
		double x = e->tpr[i];
		e->tpr[i] = e->fpr[i];
		e->fpr[i] = x;
	}
}

/* Label swapping leaves the likelihood unchanged: the correct side is the one where the anchor
 * (else the kept verifiers on balance) passes correct candidates more often than incorrect ones. */
static bool em_fix_sign(struct em *e, int anchor)
{
	if (anchor >= 0 && e->kept[anchor]) {
		if (e->tpr[anchor] < e->fpr[anchor])
			em_flip(e);
		return true;
	}
	double balance = 0;
	for (int i = 0; i < e->v->n_verifiers; i++)
		if (e->kept[i])
			balance += e->tpr[i] - e->fpr[i];
	if (balance < 0)
		em_flip(e);
	return false;
}

/* ---- filtering and the fit ---- */

static void first_filter(const struct kf_lm_votes *v, const struct kf_lm_opts *o, struct kf_lm_fit *f, bool *kept)
{
	for (int i = 0; i < v->n_verifiers; i++) {
		struct kf_lm_verifier *r = &f->verifiers[i];
		int pass = 0;
		r->n_votes = 0;
		for (int j = 0; j < v->n_items; j++) {
			int l = vote_at(v, j, i);
			r->n_votes += l != KF_VOTE_ABSTAIN;
			pass += l == KF_VOTE_PASS;
		}
		r->pos_rate = r->n_votes ? (double)pass / r->n_votes : NAN;
		r->tpr = r->fpr = r->triplet_tpr = r->triplet_fpr = NAN;
		if (r->n_votes < o->min_votes || r->n_votes == 0)
			r->status = KF_LM_DROP_FEW_VOTES;
		else if (!(r->pos_rate > o->min_pos_rate && r->pos_rate < o->max_pos_rate))
			r->status = KF_LM_DROP_DEGENERATE;
		else
			r->status = KF_LM_KEPT;
		kept[i] = r->status == KF_LM_KEPT;
	}
}

static int check_votes(const struct kf_lm_votes *v, const struct kf_lm_opts *o, kf_err *err)
{
	if (v->n_items <= 0 || v->n_verifiers <= 0 || !v->v)
		return kf_errf(err, KF_EINPUT, "the label model needs at least one item and one verifier");
	if (o->anchor >= v->n_verifiers)
		return kf_errf(err, KF_EINPUT, "anchor verifier %d is out of range (%d verifiers)", o->anchor,
			       v->n_verifiers);
	for (size_t k = 0; k < (size_t)v->n_items * (size_t)v->n_verifiers; k++)
		if (v->v[k] != KF_VOTE_ABSTAIN && v->v[k] != KF_VOTE_FAIL && v->v[k] != KF_VOTE_PASS)
			return kf_errf(err, KF_EINPUT, "vote %d of item %zu is not pass, fail or abstain", v->v[k],
				       k / (size_t)v->n_verifiers);
	return KF_OK;
}

int kf_lm_fit(const struct kf_lm_votes *votes, const struct kf_lm_opts *o, struct kf_lm_fit *out, kf_err *err)
{
	memset(out, 0, sizeof *out);
	if (check_votes(votes, o, err) != KF_OK)
		return err->code;
	int n = votes->n_items, m = votes->n_verifiers;
	out->n_items = n;
	out->n_verifiers = m;
	out->verifiers = kf_xcalloc((size_t)m, sizeof *out->verifiers);
	out->posterior = kf_xcalloc((size_t)n, sizeof *out->posterior);
	bool *kept = kf_xcalloc((size_t)m, sizeof *kept);
	struct em e = { .v = votes, .kept = kept };
	e.active = kf_xcalloc((size_t)n, sizeof *e.active);
	e.t = kf_xcalloc((size_t)n, sizeof *e.t);
	e.tpr = kf_xcalloc((size_t)m, sizeof *e.tpr);
	e.fpr = kf_xcalloc((size_t)m, sizeof *e.fpr);
	first_filter(votes, o, out, kept);
	/* Dropping a verifier changes the others' fit, so fit again until every kept one carries signal. */
	for (bool dropped = true; dropped;) {
		dropped = false;
		out->n_kept = 0;
		for (int i = 0; i < m; i++)
			out->n_kept += kept[i];
		if (!out->n_kept)
			break;
		em_run(&e, o, &out->iterations, &out->converged);
		out->anchored = em_fix_sign(&e, o->anchor);
		for (int i = 0; i < m; i++)
			if (kept[i] && e.tpr[i] <= e.fpr[i]) {
				kept[i] = false;
				out->verifiers[i].status = KF_LM_DROP_NO_SIGNAL;
				dropped = true;
			}
	}
	if (!out->n_kept) {
		out->prior = NAN;
		for (int j = 0; j < n; j++)
			out->posterior[j] = NAN;
		goto out;
	}
	out->prior = e.prior;
	for (int j = 0; j < n; j++)
		out->posterior[j] = e.active[j] ? e.t[j] : e.prior;
	for (int i = 0; i < m; i++) {
		struct kf_lm_verifier *r = &out->verifiers[i];
		if (kept[i]) {
			r->tpr = e.tpr[i];
			r->fpr = e.fpr[i];
		} else if (r->n_votes > 0) {
			rates_against(votes, e.active, e.t, i, &r->tpr, &r->fpr);
		}
	}
	double *ttpr = kf_xcalloc((size_t)m, sizeof *ttpr), *tfpr = kf_xcalloc((size_t)m, sizeof *tfpr);
	out->triplet_prior = NAN;
	if (kf_lm_triplet(votes, kept, &out->triplet_prior, ttpr, tfpr))
		for (int i = 0; i < m; i++)
			if (kept[i]) {
				out->verifiers[i].triplet_tpr = ttpr[i];
				out->verifiers[i].triplet_fpr = tfpr[i];
			}
	free(ttpr);
	free(tfpr);
out:
	free(kept);
	free(e.active);
	free(e.t);
	free(e.tpr);
	free(e.fpr);
	return KF_OK;
}

void kf_lm_fit_free(struct kf_lm_fit *f)
{
	free(f->verifiers);
	free(f->posterior);
	memset(f, 0, sizeof *f);
}

/* ---- the triplet estimate ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of(double *x, int n)
{
	if (n == 0)
		return NAN;
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* Central moment of order len(idx) over the items on which every verifier in idx voted; NAN when
 * fewer than KF_LM_MIN_SHARED_ITEMS share them. */
static double shared_moment(const struct kf_lm_votes *v, const int *idx, int k)
{
	double mean[3] = { 0, 0, 0 }, acc = 0;
	int shared = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int j = 0; j < v->n_items; j++) {
			bool all = true;
			for (int a = 0; a < k && all; a++)
				all = vote_at(v, j, idx[a]) != KF_VOTE_ABSTAIN;
			if (!all)
				continue;
			if (pass == 0) {
				shared++;
				for (int a = 0; a < k; a++)
					mean[a] += vote_at(v, j, idx[a]);
				continue;
			}
			double prod = 1;
			for (int a = 0; a < k; a++)
				prod *= vote_at(v, j, idx[a]) - mean[a];
			acc += prod;
		}
		if (pass == 0) {
			if (shared < KF_LM_MIN_SHARED_ITEMS)
				return NAN;
			for (int a = 0; a < k; a++)
				mean[a] /= shared;
		}
	}
	return acc / shared;
}

/* d_i = (TPR_i - FPR_i) sqrt(pi (1 - pi)) for each used verifier: Cov(l_i, l_j) = d_i d_j, so
 * d_i^2 = Cov_ij Cov_ik / Cov_jk for any two others j, k; the median over them is robust. NAN where
 * no pair gives a positive estimate. */
static void triplet_d(const struct kf_lm_votes *votes, const bool *use, double *d, double *scratch)
{
	int m = votes->n_verifiers;
	double *cov = kf_xmalloc(sizeof *cov * (size_t)m * (size_t)m);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			cov[i * m + j] = use[i] && use[j] && i != j ? shared_moment(votes, (int[]){ i, j }, 2) : NAN;
	for (int i = 0; i < m; i++) {
		int n = 0;
		for (int j = 0; j < m && use[i]; j++)
			for (int k = j + 1; k < m; k++) {
				if (j == i || k == i || !use[j] || !use[k])
					continue;
				double cij = cov[i * m + j], cik = cov[i * m + k], cjk = cov[j * m + k];
				if (isnan(cij) || isnan(cik) || isnan(cjk) || fabs(cjk) < KF_LM_COV_EPS)
					continue;
				double d2 = cij * cik / cjk;
				if (d2 > 0)
					scratch[n++] = d2;
			}
		d[i] = n ? sqrt(median_of(scratch, n)) : NAN;
	}
	free(cov);
}

/* The prior from the third moments: E[prod (l - mean)] over a triple = d_i d_j d_k r with
 * r = (1 - 2 pi) / sqrt(pi (1 - pi)); the median r over triples gives pi. NAN without a triple. */
static double triplet_prior(const struct kf_lm_votes *votes, const bool *use, const double *d, double *scratch)
{
	int m = votes->n_verifiers, n = 0;
	for (int i = 0; i < m; i++)
		for (int j = i + 1; j < m; j++)
			for (int k = j + 1; k < m; k++) {
				if (!use[i] || !use[j] || !use[k] || !(d[i] > 0) || !(d[j] > 0) || !(d[k] > 0))
					continue;
				double m3 = shared_moment(votes, (int[]){ i, j, k }, 3);
				if (!isnan(m3))
					scratch[n++] = m3 / (d[i] * d[j] * d[k]);
			}
	if (!n)
		return NAN;
	/* (1 - 2 pi)^2 = 1 - 4 pi (1 - pi) = r^2 pi (1 - pi), so pi (1 - pi) = 1 / (4 + r^2). */
	double r = median_of(scratch, n), q = 1 / (4 + r * r);
	return (1 - (r >= 0 ? 1 : -1) * sqrt(1 - 4 * q)) / 2;
}

bool kf_lm_triplet(const struct kf_lm_votes *votes, const bool *use, double *prior, double *tpr, double *fpr)
{
	int m = votes->n_verifiers, n_use = 0;
	*prior = NAN;
	for (int i = 0; i < m; i++) {
		tpr[i] = fpr[i] = NAN;
		n_use += use[i];
	}
	if (n_use < 3)
		return false;
	double *d = kf_xmalloc(sizeof *d * (size_t)m);
	double *scratch = kf_xmalloc(sizeof *scratch * (size_t)m * (size_t)m * (size_t)m + sizeof *scratch);
	triplet_d(votes, use, d, scratch);
	double pi = triplet_prior(votes, use, d, scratch);
	*prior = pi;
	for (int i = 0; i < m && !isnan(pi); i++) {
		if (!use[i] || isnan(d[i]))
			continue;
		double mean = 0;
		int voted = 0;
		for (int j = 0; j < votes->n_items; j++) {
			int l = vote_at(votes, j, i);
			if (l != KF_VOTE_ABSTAIN) {
				mean += l;
				voted++;
			}
		}
		mean /= voted;
		/* mean = FPR + (TPR - FPR) pi */
		double delta = d[i] / sqrt(pi * (1 - pi));
		fpr[i] = fmin(1, fmax(0, mean - delta * pi));
		tpr[i] = fmin(1, fmax(0, mean - delta * pi + delta));
	}
	free(d);
	free(scratch);
	return !isnan(pi);
}
