/* Ranking (see rank.h): loading the scope, verifying (or reading stored votes), the optional LLM
 * judge, consensus per task, the pooled label-model fit, storing it, and the order. The SQL of the
 * verifier tables lives here. */
#include "eval/rank/rank.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/rng.h"
#include "common/version.h"

#define VERDICT_OK "ok"
#define KF_RANKING_TRUST_MODEL "posterior"
#define KF_RANKING_TRUST_UNANIMITY "unanimity"
/* Verifier seeds follow from the evaluation id, so verifying again draws the same inputs. */
#define KF_RANK_SEED_SALT 0x6b66766572696679ULL

void kf_ranking_opts_default(struct kf_ranking_opts *o)
{
	memset(o, 0, sizeof *o);
	o->theta = KF_RANKING_DEFAULT_THETA;
	kf_verify_opts_default(&o->verify);
}

/* One candidate while the ranking is built: what the order needs, and what verifying needs. */
struct row {
	struct kf_ranked r;
	char *task_hash, *source, *spec_text;
	cJSON *details;
	struct kf_probe_out *probes;
	int n_probes;
	int task_index; /* into the parsed tasks */
	int item;       /* index in the fit, or -1 */
	bool stored;    /* its verification is in the store (votes can be added to it) */
};

struct build {
	struct kf_store *s;
	sqlite3 *db;
	const struct kf_ranking_opts *o;
	struct row *rows;
	int n_rows;
	struct kf_task **tasks; /* one per distinct task hash */
	char **task_hashes;
	int n_tasks;
};

static void ranked_free(struct kf_ranked *r)
{
	free(r->task);
	free(r->backend);
	free(r->verdict);
	free(r->submitter);
	for (int v = 0; v < KF_VER_COUNT; v++)
		cJSON_Delete(r->votes[v].evidence);
}

static void add_number_or_null(cJSON *o, const char *key, double x)
{
	if (isfinite(x))
		cJSON_AddNumberToObject(o, key, x);
	else
		cJSON_AddNullToObject(o, key);
}

/* ---- the scope ---- */

static const char scope_sql[] =
	"SELECT c.id, e.id, c.run_id, c.task, c.task_hash, c.backend, c.submitter, c.source, e.verdict,"
	"  e.details, e.time_ms, e.sol_fraction, json_extract(e.details, '$.timing.candidate.iqr_ms'),"
	"  length(CAST(c.source AS BLOB)), t.spec_text"
	" FROM candidates c"
	" JOIN evaluations e ON e.id = (SELECT max(id) FROM evaluations WHERE candidate_id = c.id)"
	" JOIN tasks t ON t.spec_hash = c.task_hash"
	" WHERE ?1 IS NULL OR c.run_id IN (SELECT value FROM json_each(?1))"
	" ORDER BY c.id";

enum scope_col {
	COL_SUBMISSION, COL_EVALUATION, COL_RUN, COL_TASK, COL_TASK_HASH, COL_BACKEND, COL_SUBMITTER, COL_SOURCE,
	COL_VERDICT, COL_DETAILS, COL_TIME, COL_SOL, COL_IQR, COL_BYTES, COL_SPEC,
};

static void read_row(sqlite3_stmt *st, struct row *w)
{
	struct kf_ranked *r = &w->r;
	r->submission_id = sqlite3_column_int64(st, COL_SUBMISSION);
	r->evaluation_id = sqlite3_column_int64(st, COL_EVALUATION);
	r->run_id = sqlite3_column_int64(st, COL_RUN);
	r->task = kf_store_column_text(st, COL_TASK);
	r->backend = kf_store_column_text(st, COL_BACKEND);
	r->submitter = kf_store_column_text(st, COL_SUBMITTER);
	r->verdict = kf_store_column_text(st, COL_VERDICT);
	r->time_ms = kf_store_column_number(st, COL_TIME);
	r->sol_fraction = kf_store_column_number(st, COL_SOL);
	r->iqr_ms = kf_store_column_number(st, COL_IQR);
	r->source_bytes = sqlite3_column_int64(st, COL_BYTES);
	r->gates_passed = r->verdict && !strcmp(r->verdict, VERDICT_OK);
	r->p_correct = NAN;
	for (int v = 0; v < KF_VER_COUNT; v++)
		r->votes[v].vote = KF_VOTE_ABSTAIN; /* a verifier with no stored vote (an older database) */
	w->task_hash = kf_store_column_text(st, COL_TASK_HASH);
	w->source = kf_store_column_text(st, COL_SOURCE);
	w->spec_text = kf_store_column_text(st, COL_SPEC);
	const char *details = (const char *)sqlite3_column_text(st, COL_DETAILS);
	w->details = details ? cJSON_Parse(details) : NULL;
	if (!w->details)
		w->details = cJSON_CreateObject();
	w->item = -1;
}

static void scope_name(const struct kf_ranking_opts *o, char *out, size_t len)
{
	if (!o->n_run_ids) {
		snprintf(out, len, "all");
		return;
	}
	size_t used = (size_t)snprintf(out, len, "run%s ", o->n_run_ids > 1 ? "s" : "");
	for (int i = 0; i < o->n_run_ids && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%lld", i ? ", " : "", (long long)o->run_ids[i]);
}

static int load_scope(struct build *b, kf_err *err)
{
	sqlite3_stmt *st = NULL;
	kf_buf runs = KF_BUF_INIT;
	for (int i = 0; i < b->o->n_run_ids; i++)
		kf_buf_addf(&runs, "%s%lld", i ? "," : "[", (long long)b->o->run_ids[i]);
	if (b->o->n_run_ids)
		kf_buf_adds(&runs, "]");
	int rc, ret = KF_OK, cap = 0;
	if (sqlite3_prepare_v2(b->db, scope_sql, -1, &st, NULL) != SQLITE_OK) {
		ret = kf_store_fail(b->db, err, "reading the candidates to rank");
		goto out;
	}
	sqlite3_bind_text(st, 1, runs.data, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b->rows = kf_xgrow(b->rows, b->n_rows, &cap, sizeof *b->rows);
		struct row *w = &b->rows[b->n_rows++];
		memset(w, 0, sizeof *w);
		read_row(st, w);
	}
	if (rc != SQLITE_DONE)
		ret = kf_store_fail(b->db, err, "reading the candidates to rank");
out:
	sqlite3_finalize(st);
	kf_buf_free(&runs);
	return ret;
}

/* The spec each candidate was judged against, parsed once per hash. */
static int parse_tasks(struct build *b, kf_err *err)
{
	for (int i = 0; i < b->n_rows; i++) {
		struct row *w = &b->rows[i];
		int k = 0;
		while (k < b->n_tasks && strcmp(b->task_hashes[k], w->task_hash))
			k++;
		if (k == b->n_tasks) {
			char label[KF_NAME_MAX + 32];
			snprintf(label, sizeof label, "<stored spec>/%s.json", w->r.task);
			struct kf_task *t;
			if (kf_task_parse(label, w->spec_text, strlen(w->spec_text), &t, err) != KF_OK)
				return kf_err_prefix(err, "ranking: ");
			b->tasks = kf_xrealloc(b->tasks, sizeof *b->tasks * (size_t)(b->n_tasks + 1));
			b->task_hashes = kf_xrealloc(b->task_hashes, sizeof *b->task_hashes * (size_t)(b->n_tasks + 1));
			b->tasks[b->n_tasks] = t;
			b->task_hashes[b->n_tasks++] = w->task_hash;
		}
		w->task_index = k;
	}
	return KF_OK;
}

/* ---- stored verifications ---- */

static int load_stored(struct build *b, struct row *w, bool *found, kf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = KF_OK;
	*found = false;
	if (sqlite3_prepare_v2(b->db, "SELECT verifier, vote, evidence FROM verifier_votes WHERE evaluation_id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return kf_store_fail(b->db, err, "reading stored votes");
	sqlite3_bind_int64(st, 1, w->r.evaluation_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		enum kf_verifier v;
		enum kf_vote vote;
		if (kf_verifier_parse((const char *)sqlite3_column_text(st, 0), &v) != 0 ||
		    kf_vote_parse((const char *)sqlite3_column_text(st, 1), &vote) != 0)
			continue; /* a verifier this build does not know */
		w->r.votes[v].vote = vote;
		cJSON_Delete(w->r.votes[v].evidence);
		w->r.votes[v].evidence = cJSON_Parse((const char *)sqlite3_column_text(st, 2));
		*found = true;
	}
	if (rc != SQLITE_DONE)
		ret = kf_store_fail(b->db, err, "reading stored votes");
	sqlite3_finalize(st);
	if (ret != KF_OK || !*found)
		return ret;
	if (sqlite3_prepare_v2(b->db,
			       "SELECT probe_key, shape, ran, counts, data FROM verifier_probes WHERE evaluation_id = ?1"
			       " ORDER BY rowid",
			       -1, &st, NULL) != SQLITE_OK)
		return kf_store_fail(b->db, err, "reading stored probes");
	sqlite3_bind_int64(st, 1, w->r.evaluation_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		w->probes = kf_xrealloc(w->probes, sizeof *w->probes * (size_t)(w->n_probes + 1));
		struct kf_probe_out *p = &w->probes[w->n_probes++];
		memset(p, 0, sizeof *p);
		snprintf(p->key, sizeof p->key, "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(p->shape, sizeof p->shape, "%s", (const char *)sqlite3_column_text(st, 1));
		p->ran = sqlite3_column_int(st, 2) != 0;
		cJSON *counts = cJSON_Parse((const char *)sqlite3_column_text(st, 3)), *c;
		cJSON_ArrayForEach(c, counts)
			if (p->n_outputs < KF_MAX_TENSORS) {
				p->count[p->n_outputs++] = c->valueint;
				p->n += c->valueint;
			}
		cJSON_Delete(counts);
		size_t bytes = (size_t)sqlite3_column_bytes(st, 4);
		if (bytes != sizeof(double) * KF_PROBE_FIELDS * (size_t)p->n) {
			p->ran = false; /* a damaged record is no output */
			p->n = 0;
		}
		p->values = kf_xmalloc(bytes ? bytes : 1);
		if (bytes)
			memcpy(p->values, sqlite3_column_blob(st, 4), bytes);
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = kf_store_fail(b->db, err, "reading stored probes");
	sqlite3_finalize(st);
	return ret;
}

static int put_vote(sqlite3 *db, int64_t eval_id, enum kf_verifier v, const struct kf_vote_rec *rec, kf_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "INSERT OR REPLACE INTO verifier_votes (evaluation_id, verifier, vote, evidence)"
			       " VALUES (?1, ?2, ?3, ?4)",
			       -1, &st, NULL) != SQLITE_OK)
		return kf_store_fail(db, err, "storing a vote");
	char *ev = cJSON_PrintUnformatted(rec->evidence);
	sqlite3_bind_int64(st, 1, eval_id);
	sqlite3_bind_text(st, 2, kf_verifier_name(v), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, kf_vote_name(rec->vote), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, ev ? ev : "{}", -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	cJSON_free(ev);
	return rc == SQLITE_DONE ? KF_OK : kf_store_fail(db, err, "storing a vote");
}

static int put_probe(sqlite3 *db, int64_t eval_id, const struct kf_probe_out *p, kf_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "INSERT OR REPLACE INTO verifier_probes (evaluation_id, probe_key, shape, ran, counts, data)"
			       " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
			       -1, &st, NULL) != SQLITE_OK)
		return kf_store_fail(db, err, "storing a probe");
	cJSON *counts = cJSON_CreateArray();
	for (int i = 0; i < p->n_outputs; i++)
		cJSON_AddItemToArray(counts, cJSON_CreateNumber(p->count[i]));
	char *ct = cJSON_PrintUnformatted(counts);
	cJSON_Delete(counts);
	sqlite3_bind_int64(st, 1, eval_id);
	sqlite3_bind_text(st, 2, p->key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, p->shape, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, p->ran);
	sqlite3_bind_text(st, 5, ct, -1, SQLITE_TRANSIENT);
	sqlite3_bind_blob(st, 6, p->ran ? (const void *)p->values : "",
			  p->ran ? (int)(sizeof(double) * KF_PROBE_FIELDS * (size_t)p->n) : 0, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	cJSON_free(ct);
	return rc == SQLITE_DONE ? KF_OK : kf_store_fail(db, err, "storing a probe");
}

static cJSON *options_json(const struct kf_verify_opts *o)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "backend", kf_backend_name(o->backend));
	cJSON_AddNumberToObject(j, "seed", (double)o->seed);
	cJSON_AddNumberToObject(j, "ragged_seeds", o->ragged_seeds);
	cJSON_AddNumberToObject(j, "hidden_seeds", o->hidden_seeds);
	cJSON_AddNumberToObject(j, "stress_seeds", o->stress_seeds);
	cJSON_AddNumberToObject(j, "determinism_runs", o->determinism_runs);
	cJSON_AddNumberToObject(j, "margin_max", o->margin_max);
	cJSON_AddNumberToObject(j, "max_rse", o->max_rse);
	cJSON_AddNumberToObject(j, "rse_ratio", o->rse_ratio);
	cJSON_AddNumberToObject(j, "clock_excess", o->clock_excess);
	cJSON_AddNumberToObject(j, "probe_blocks", o->probe_blocks);
	cJSON_AddNumberToObject(j, "probe_samples", o->probe_samples);
	cJSON_AddBoolToObject(j, "sanitizers", o->sanitizers);
	return j;
}

static int store_verification(struct build *b, const struct row *w, const struct kf_verify_opts *vo,
			      const struct kf_verify_result *vr, kf_err *err)
{
	if (kf_store_begin(b->s, err) != KF_OK)
		return err->code;
	sqlite3_stmt *st;
	int ret = KF_OK;
	const char *sql[] = { "DELETE FROM verifier_votes WHERE evaluation_id = ?1",
			      "DELETE FROM verifier_probes WHERE evaluation_id = ?1",
			      "INSERT OR REPLACE INTO verifications (evaluation_id, options, seconds, kforge_version)"
			      " VALUES (?1, ?2, ?3, ?4)" };
	cJSON *opts = options_json(vo);
	char *ot = cJSON_PrintUnformatted(opts);
	cJSON_Delete(opts);
	for (size_t i = 0; i < sizeof sql / sizeof sql[0] && ret == KF_OK; i++) {
		if (sqlite3_prepare_v2(b->db, sql[i], -1, &st, NULL) != SQLITE_OK) {
			ret = kf_store_fail(b->db, err, "storing a verification");
			break;
		}
		sqlite3_bind_int64(st, 1, w->r.evaluation_id);
		if (i == 2) {
			sqlite3_bind_text(st, 2, ot, -1, SQLITE_STATIC);
			sqlite3_bind_double(st, 3, vr->seconds);
			sqlite3_bind_text(st, 4, KF_VERSION_STRING, -1, SQLITE_STATIC);
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = kf_store_fail(b->db, err, "storing a verification");
		sqlite3_finalize(st);
	}
	cJSON_free(ot);
	for (int v = 0; v < KF_VER_COUNT && ret == KF_OK; v++)
		ret = put_vote(b->db, w->r.evaluation_id, (enum kf_verifier)v, &vr->votes[v], err);
	for (int k = 0; k < vr->n_probes && ret == KF_OK; k++)
		ret = put_probe(b->db, w->r.evaluation_id, &vr->probes[k], err);
	if (ret != KF_OK) {
		kf_store_rollback(b->s);
		return ret;
	}
	return kf_store_commit(b->s, err);
}

/* Moves the votes and probes of a fresh verification into the row. */
static void adopt(struct row *w, struct kf_verify_result *vr)
{
	for (int v = 0; v < KF_VER_COUNT; v++) {
		cJSON_Delete(w->r.votes[v].evidence);
		w->r.votes[v] = vr->votes[v];
		vr->votes[v].evidence = NULL;
	}
	for (int k = 0; k < w->n_probes; k++)
		free(w->probes[k].values);
	free(w->probes);
	w->probes = vr->probes;
	w->n_probes = vr->n_probes;
	vr->probes = NULL;
	vr->n_probes = 0;
}

static int verify_rows(struct build *b, struct kf_ranking *out, kf_err *err)
{
	kf_ranking_verify_fn verify = b->o->verify_fn;
	for (int i = 0; i < b->n_rows; i++) {
		struct row *w = &b->rows[i];
		bool found = false;
		if (!b->o->reverify && load_stored(b, w, &found, err) != KF_OK)
			return err->code;
		w->stored = found;
		if (found || (b->o->gated_only && !w->r.gates_passed))
			continue;
		struct kf_verify_opts vo = b->o->verify;
		if (kf_backend_parse(w->r.backend, &vo.backend) != 0)
			return kf_errf(err, KF_EINTERNAL, "candidate %lld has an unknown backend '%s'",
				       (long long)w->r.submission_id, w->r.backend);
		uint64_t x = (uint64_t)w->r.evaluation_id ^ KF_RANK_SEED_SALT;
		vo.seed = kf_splitmix64(&x);
		struct kf_verify_result vr;
		const struct kf_task *t = b->tasks[w->task_index];
		int rc = verify ? verify(b->o->verify_ctx, t, w->source, strlen(w->source), w->details, &vo, &vr, err)
				: kf_verify_candidate(t, w->source, strlen(w->source), w->details, &vo, &vr, err);
		if (rc != KF_OK)
			return kf_err_prefix(err, "verifying candidate %lld: ", (long long)w->r.submission_id);
		rc = vr.partial ? KF_OK : store_verification(b, w, &vo, &vr, err);
		w->stored = !vr.partial && rc == KF_OK;
		adopt(w, &vr);
		kf_verify_result_free(&vr);
		if (rc != KF_OK)
			return rc;
		out->n_verified++;
	}
	return KF_OK;
}

/* ---- the LLM judge ---- */

/* Its stored vote came from this model. */
static bool judged_by(const struct kf_vote_rec *v, const char *model)
{
	const char *by = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v->evidence, "model"));
	return by && model && !strcmp(by, model);
}

/* Asks the LLM judge about every verified survivor it has not judged yet, all at once. */
static int llm_judge(struct build *b, kf_err *err)
{
	if (!b->o->llm_judge)
		return KF_OK;
	struct kf_ranking_llm_item *items = kf_xcalloc((size_t)b->n_rows + 1, sizeof *items);
	struct kf_vote_rec *votes = kf_xcalloc((size_t)b->n_rows + 1, sizeof *votes);
	int *members = kf_xcalloc((size_t)b->n_rows + 1, sizeof *members), n = 0, ret = KF_OK;
	for (int i = 0; i < b->n_rows; i++) {
		struct row *w = &b->rows[i];
		if (!w->r.gates_passed || !w->stored ||
		    (!b->o->reverify && judged_by(&w->r.votes[KF_VER_LLM_JUDGE], b->o->llm_judge_model)))
			continue;
		enum kf_backend be = KF_BACKEND_CPU;
		kf_backend_parse(w->r.backend, &be);
		items[n] = (struct kf_ranking_llm_item){ b->tasks[w->task_index], be, w->r.submission_id, w->source };
		members[n++] = i;
	}
	if (n)
		ret = b->o->llm_judge(b->o->llm_judge_ctx, items, n, votes, err);
	if (ret == KF_OK && n && (ret = kf_store_begin(b->s, err)) == KF_OK) {
		for (int m = 0; m < n && ret == KF_OK; m++)
			ret = put_vote(b->db, b->rows[members[m]].r.evaluation_id, KF_VER_LLM_JUDGE, &votes[m], err);
		if (ret == KF_OK)
			ret = kf_store_commit(b->s, err);
		else
			kf_store_rollback(b->s);
	}
	for (int m = 0; m < n; m++) {
		struct kf_vote_rec *v = &b->rows[members[m]].r.votes[KF_VER_LLM_JUDGE];
		cJSON_Delete(v->evidence);
		*v = votes[m];
	}
	free(items);
	free(votes);
	free(members);
	return ret;
}

/* ---- consensus, per task spec ---- */

static int consensus(struct build *b, kf_err *err)
{
	int ret = KF_OK;
	struct kf_probe_set *sets = kf_xcalloc((size_t)b->n_rows + 1, sizeof *sets);
	int64_t *ids = kf_xcalloc((size_t)b->n_rows + 1, sizeof *ids);
	struct kf_vote_rec *votes = kf_xcalloc((size_t)b->n_rows + 1, sizeof *votes);
	int *members = kf_xcalloc((size_t)b->n_rows + 1, sizeof *members);
	if (kf_store_begin(b->s, err) != KF_OK) {
		ret = err->code;
		goto out;
	}
	for (int k = 0; k < b->n_tasks && ret == KF_OK; k++) {
		int n = 0;
		for (int i = 0; i < b->n_rows; i++)
			if (b->rows[i].task_index == k && b->rows[i].n_probes > 0) {
				sets[n] = (struct kf_probe_set){ b->rows[i].probes, b->rows[i].n_probes };
				ids[n] = b->rows[i].r.submission_id;
				members[n++] = i;
			}
		memset(votes, 0, sizeof *votes * (size_t)n);
		kf_verify_consensus(b->tasks[k], sets, ids, n, votes);
		for (int m = 0; m < n; m++) {
			struct row *w = &b->rows[members[m]];
			cJSON_Delete(w->r.votes[KF_VER_CONSENSUS].evidence);
			w->r.votes[KF_VER_CONSENSUS] = votes[m];
			if (ret == KF_OK)
				ret = put_vote(b->db, w->r.evaluation_id, KF_VER_CONSENSUS, &votes[m], err);
		}
	}
	if (ret == KF_OK)
		ret = kf_store_commit(b->s, err);
	else
		kf_store_rollback(b->s);
out:
	free(sets);
	free(ids);
	free(votes);
	free(members);
	return ret;
}

/* ---- the fit ---- */

cJSON *kf_ranking_model_json(const struct kf_lm_fit *fit)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "items", fit->n_items);
	cJSON_AddNumberToObject(m, "kept", fit->n_kept);
	add_number_or_null(m, "prior", fit->prior);
	cJSON_AddNumberToObject(m, "iterations", fit->iterations);
	cJSON_AddBoolToObject(m, "converged", fit->converged);
	cJSON_AddStringToObject(m, "sign", fit->anchored ? "anchored on " KF_RANKING_ANCHOR_NAME : "majority of kept verifiers");
	add_number_or_null(m, "triplet_prior", fit->triplet_prior);
	cJSON *vs = cJSON_AddArrayToObject(m, "verifiers");
	for (int i = 0; i < fit->n_verifiers; i++) {
		const struct kf_lm_verifier *v = &fit->verifiers[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", kf_verifier_name((enum kf_verifier)i));
		cJSON_AddStringToObject(o, "status", kf_lm_status_name(v->status));
		cJSON_AddNumberToObject(o, "votes", v->n_votes);
		add_number_or_null(o, "positive_rate", v->pos_rate);
		add_number_or_null(o, "tpr", v->tpr);
		add_number_or_null(o, "fpr", v->fpr);
		add_number_or_null(o, "triplet_tpr", v->triplet_tpr);
		add_number_or_null(o, "triplet_fpr", v->triplet_fpr);
		cJSON_AddItemToArray(vs, o);
	}
	return m;
}

static int store_fit(struct build *b, struct kf_ranking *out, kf_err *err)
{
	if (kf_store_begin(b->s, err) != KF_OK)
		return err->code;
	sqlite3_stmt *st = NULL;
	int ret = KF_OK;
	cJSON *model = kf_ranking_model_json(&out->fit);
	cJSON_AddNumberToObject(model, "theta", out->theta);
	cJSON_AddStringToObject(model, "trust", out->unanimity ? KF_RANKING_TRUST_UNANIMITY : KF_RANKING_TRUST_MODEL);
	if (out->unanimity) {
		cJSON *ids = cJSON_AddArrayToObject(model, "trusted_evaluations");
		for (int i = 0; i < b->n_rows; i++)
			if (b->rows[i].r.trusted)
				cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)b->rows[i].r.evaluation_id));
	}
	char *mt = cJSON_PrintUnformatted(model);
	cJSON_Delete(model);
	if (sqlite3_prepare_v2(b->db, "INSERT INTO label_fits (scope, model, kforge_version) VALUES (?1, ?2, ?3)", -1, &st,
			       NULL) != SQLITE_OK) {
		ret = kf_store_fail(b->db, err, "storing the label model");
		goto out;
	}
	sqlite3_bind_text(st, 1, out->scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, mt, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, KF_VERSION_STRING, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		ret = kf_store_fail(b->db, err, "storing the label model");
		goto out;
	}
	out->fit_id = sqlite3_last_insert_rowid(b->db);
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(b->db, "INSERT INTO posteriors (fit_id, evaluation_id, p_correct) VALUES (?1, ?2, ?3)", -1,
			       &st, NULL) != SQLITE_OK) {
		ret = kf_store_fail(b->db, err, "storing posteriors");
		goto out;
	}
	for (int i = 0; i < b->n_rows && ret == KF_OK; i++) {
		const struct kf_ranked *r = &b->rows[i].r;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, out->fit_id);
		sqlite3_bind_int64(st, 2, r->evaluation_id);
		if (isfinite(r->p_correct))
			sqlite3_bind_double(st, 3, r->p_correct);
		else
			sqlite3_bind_null(st, 3);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = kf_store_fail(b->db, err, "storing posteriors");
	}
out:
	sqlite3_finalize(st);
	cJSON_free(mt);
	if (ret != KF_OK) {
		kf_store_rollback(b->s);
		return ret;
	}
	return kf_store_commit(b->s, err);
}

bool kf_ranking_unanimity_verifier(enum kf_verifier v)
{
	switch (v) {
	case KF_VER_RAGGED:
	case KF_VER_HIDDEN:
	case KF_VER_STRESS:
	case KF_VER_DETERMINISM:
	case KF_VER_CONSENSUS:
	case KF_VER_MEMCHECK:
	case KF_VER_RACECHECK:
		return true;
	default:
		return false;
	}
}

static bool unanimous(const struct kf_ranked *r)
{
	for (int v = 0; v < KF_VER_COUNT; v++)
		if (kf_ranking_unanimity_verifier((enum kf_verifier)v) && r->votes[v].vote == KF_VOTE_FAIL)
			return false;
	return true;
}

/* One fit over the candidates of every task in scope that passed the hard gates. Candidates the
 * judge rejected stay out: their verdict already says they are wrong, and pooling them makes the
 * model learn "rejected or not" (they fail every verifier at once) instead of which survivors to
 * trust. Among survivors the judge's own tests always pass, so the sign is anchored on the hidden
 * shapes, the same correctness check on shapes the judge never ran. A pool the model cannot fit
 * (no verifier kept) falls back to the unanimity rule, so that a hidden-shape failure still counts
 * in a run with a handful of survivors. */
static int fit(struct build *b, struct kf_ranking *out, kf_err *err)
{
	signed char *v = kf_xcalloc((size_t)b->n_rows * KF_VER_COUNT + 1, 1);
	int n = 0;
	for (int i = 0; i < b->n_rows; i++) {
		struct row *w = &b->rows[i];
		if (!w->r.gates_passed)
			continue;
		w->item = n;
		for (int k = 0; k < KF_VER_COUNT; k++)
			v[n * KF_VER_COUNT + k] = (signed char)w->r.votes[k].vote;
		n++;
	}
	out->n_fitted = n;
	out->fit.prior = out->fit.triplet_prior = NAN;
	int ret = KF_OK;
	if (n > 0) {
		struct kf_lm_votes votes = { n, KF_VER_COUNT, v };
		struct kf_lm_opts lo;
		kf_lm_opts_default(&lo);
		lo.anchor = KF_RANKING_ANCHOR;
		ret = kf_lm_fit(&votes, &lo, &out->fit, err);
	}
	free(v);
	if (ret != KF_OK)
		return ret;
	out->unanimity = n > 0 && out->fit.n_kept == 0;
	for (int i = 0; i < b->n_rows; i++) {
		struct kf_ranked *r = &b->rows[i].r;
		r->p_correct = b->rows[i].item >= 0 ? out->fit.posterior[b->rows[i].item] : NAN;
		r->trusted = out->unanimity ? r->gates_passed && unanimous(r)
					    : r->p_correct >= out->theta; /* NAN compares false */
	}
	return store_fit(b, out, err);
}

/* ---- the order ---- */

static int cmp_nan_last(double a, double b, bool higher_first)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	int d = (a > b) - (a < b);
	return higher_first ? -d : d;
}

int kf_ranking_compare(const struct kf_ranked *a, const struct kf_ranked *b)
{
	if (a->gates_passed != b->gates_passed)
		return a->gates_passed ? -1 : 1;
	if (a->trusted != b->trusted)
		return a->trusted ? -1 : 1;
	int d = cmp_nan_last(a->sol_fraction, b->sol_fraction, true);
	if (!d)
		d = cmp_nan_last(a->iqr_ms, b->iqr_ms, false);
	if (!d)
		d = (a->source_bytes > b->source_bytes) - (a->source_bytes < b->source_bytes);
	if (!d)
		d = (a->submission_id > b->submission_id) - (a->submission_id < b->submission_id);
	return d;
}

static int cmp_task_then_rank(const void *pa, const void *pb)
{
	const struct kf_ranked *a = pa, *b = pb;
	int d = strcmp(a->task, b->task);
	if (!d)
		d = strcmp(a->backend, b->backend);
	return d ? d : kf_ranking_compare(a, b);
}

static void order(struct build *b, struct kf_ranking *out)
{
	out->n = 0;
	out->c = kf_xcalloc((size_t)b->n_rows + 1, sizeof *out->c);
	for (int i = 0; i < b->n_rows; i++) {
		struct kf_ranked *r = &b->rows[i].r;
		if (b->o->task && strcmp(r->task, b->o->task)) {
			ranked_free(r);
			continue;
		}
		out->c[out->n++] = *r;
	}
	qsort(out->c, (size_t)out->n, sizeof *out->c, cmp_task_then_rank);
	for (int i = 0; i < out->n; i++) {
		bool same = i && !strcmp(out->c[i].task, out->c[i - 1].task) && !strcmp(out->c[i].backend, out->c[i - 1].backend);
		out->c[i].position = same ? out->c[i - 1].position + 1 : 1;
	}
}

static void build_free(struct build *b)
{
	for (int i = 0; i < b->n_rows; i++) {
		struct row *w = &b->rows[i];
		free(w->task_hash);
		free(w->source);
		free(w->spec_text);
		cJSON_Delete(w->details);
		for (int k = 0; k < w->n_probes; k++)
			free(w->probes[k].values);
		free(w->probes);
	}
	free(b->rows);
	for (int k = 0; k < b->n_tasks; k++)
		kf_task_free(b->tasks[k]);
	free(b->tasks);
	free(b->task_hashes);
}

int kf_ranking_build(struct kf_store *s, const struct kf_ranking_opts *o, struct kf_ranking **out, kf_err *err)
{
	struct build b = { .s = s, .db = kf_store_db(s), .o = o };
	struct kf_ranking *r = kf_xcalloc(1, sizeof *r);
	r->theta = o->theta;
	scope_name(o, r->scope, sizeof r->scope);
	*out = NULL;
	int ret = load_scope(&b, err);
	if (ret == KF_OK && b.n_rows == 0)
		ret = kf_errf(err, KF_EINPUT, "no candidate to rank in %s (see kforge leaderboard for what is stored)",
			      r->scope);
	if (ret == KF_OK)
		ret = parse_tasks(&b, err);
	if (ret == KF_OK)
		ret = verify_rows(&b, r, err);
	if (ret == KF_OK)
		ret = llm_judge(&b, err);
	if (ret == KF_OK)
		ret = consensus(&b, err);
	if (ret == KF_OK)
		ret = fit(&b, r, err);
	if (ret != KF_OK) {
		for (int i = 0; i < b.n_rows; i++)
			ranked_free(&b.rows[i].r);
		build_free(&b);
		kf_ranking_free(r);
		return ret;
	}
	order(&b, r);
	build_free(&b);
	*out = r;
	return KF_OK;
}

void kf_ranking_free(struct kf_ranking *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n; i++)
		ranked_free(&r->c[i]);
	free(r->c);
	kf_lm_fit_free(&r->fit);
	free(r);
}

/* ---- a run's stored posteriors ---- */

int kf_ranking_run_posteriors(struct kf_store *s, int64_t run_id, struct kf_posterior **out, int *n, kf_err *err)
{
	static const char sql[] =
		"WITH fit AS (SELECT id, model, json_extract(model, '$.theta') AS theta FROM label_fits"
		"             WHERE scope = ?1 ORDER BY id DESC LIMIT 1)"
		" SELECT e.candidate_id, p.p_correct, fit.theta,"
		"  EXISTS (SELECT 1 FROM json_each(fit.model, '$.trusted_evaluations') j WHERE j.value = p.evaluation_id)"
		" FROM fit JOIN posteriors p ON p.fit_id = fit.id JOIN evaluations e ON e.id = p.evaluation_id"
		" ORDER BY e.candidate_id";
	sqlite3 *db = kf_store_db(s);
	sqlite3_stmt *st;
	char scope[64];
	struct kf_ranking_opts o = { .run_ids = &run_id, .n_run_ids = 1 };
	scope_name(&o, scope, sizeof scope);
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return kf_store_fail(db, err, "reading the run's posteriors");
	sqlite3_bind_text(st, 1, scope, -1, SQLITE_STATIC);
	int rc, cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = kf_xgrow(*out, *n, &cap, sizeof **out);
		struct kf_posterior *p = &(*out)[(*n)++];
		p->submission_id = sqlite3_column_int64(st, 0);
		p->p_correct = kf_store_column_number(st, 1);
		double theta = kf_store_column_number(st, 2);
		p->trusted = p->p_correct >= (isfinite(theta) ? theta : KF_RANKING_DEFAULT_THETA) || /* NAN: false */
			     sqlite3_column_int(st, 3);
	}
	int ret = rc == SQLITE_DONE ? KF_OK : kf_store_fail(db, err, "reading the run's posteriors");
	sqlite3_finalize(st);
	if (ret != KF_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

/* ---- JSON ---- */

static cJSON *candidate_json(const struct kf_ranked *r, bool with_evidence)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "rank", r->position);
	cJSON_AddNumberToObject(o, "submission_id", (double)r->submission_id);
	cJSON_AddNumberToObject(o, "evaluation_id", (double)r->evaluation_id);
	if (r->run_id)
		cJSON_AddNumberToObject(o, "run_id", (double)r->run_id);
	else
		cJSON_AddNullToObject(o, "run_id");
	cJSON_AddStringToObject(o, "submitter", r->submitter ? r->submitter : "");
	cJSON_AddStringToObject(o, "verdict", r->verdict ? r->verdict : "");
	cJSON_AddBoolToObject(o, "gates_passed", r->gates_passed);
	add_number_or_null(o, "p_correct", r->p_correct);
	cJSON_AddBoolToObject(o, "trusted", r->trusted);
	add_number_or_null(o, "sol_fraction", r->sol_fraction);
	add_number_or_null(o, "time_ms", r->time_ms);
	add_number_or_null(o, "iqr_ms", r->iqr_ms);
	cJSON_AddNumberToObject(o, "source_bytes", (double)r->source_bytes);
	cJSON *votes = cJSON_AddObjectToObject(o, "votes");
	for (int v = 0; v < KF_VER_COUNT; v++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "vote", kf_vote_name(r->votes[v].vote));
		if (with_evidence && r->votes[v].evidence)
			cJSON_AddItemToObject(e, "evidence", cJSON_Duplicate(r->votes[v].evidence, 1));
		cJSON_AddItemToObject(votes, kf_verifier_name((enum kf_verifier)v), e);
	}
	return o;
}

cJSON *kf_ranking_json(const struct kf_ranking *r, bool with_evidence)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "scope", r->scope);
	cJSON_AddNumberToObject(j, "theta", r->theta);
	cJSON_AddNumberToObject(j, "fit_id", (double)r->fit_id);
	cJSON_AddNumberToObject(j, "verified_now", r->n_verified);
	cJSON_AddStringToObject(j, "trust", r->unanimity ? KF_RANKING_TRUST_UNANIMITY : KF_RANKING_TRUST_MODEL);
	cJSON_AddItemToObject(j, "label_model", kf_ranking_model_json(&r->fit));
	cJSON *tasks = cJSON_AddArrayToObject(j, "tasks");
	cJSON *cands = NULL;
	for (int i = 0; i < r->n; i++) {
		if (r->c[i].position == 1) {
			cJSON *t = cJSON_CreateObject();
			cJSON_AddStringToObject(t, "task", r->c[i].task);
			cJSON_AddStringToObject(t, "backend", r->c[i].backend);
			cands = cJSON_AddArrayToObject(t, "candidates");
			cJSON_AddItemToArray(tasks, t);
		}
		cJSON_AddItemToArray(cands, candidate_json(&r->c[i], with_evidence));
	}
	return j;
}
