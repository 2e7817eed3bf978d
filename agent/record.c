/* The agent's SQL (see record.h). Statements take their values through one small typed parameter
 * list, so NULL handling (unknown tokens, no cost, no parent) is the same everywhere. */
#include "agent/record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/sha256.h"
#include "common/version.h"

#define SQL_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

enum ptype { P_NULL, P_INT, P_REAL, P_TEXT };
struct param {
	enum ptype t;
	int64_t i;
	double d;
	const char *s;
	size_t n; /* P_TEXT: bytes, or SIZE_MAX for NUL-terminated */
};
#define PI(x) ((struct param){ .t = P_INT, .i = (x) })
/* Unknown numbers (NAN, or negative counts) are stored as NULL. */
#define PD(x) ((struct param){ .t = isnan(x) ? P_NULL : P_REAL, .d = (x) })
#define PCOUNT(x) ((struct param){ .t = (x) < 0 ? P_NULL : P_INT, .i = (x) })
#define PID(x) ((struct param){ .t = (x) > 0 ? P_INT : P_NULL, .i = (x) })
#define PT(x) text_param((x), SIZE_MAX)
#define PTN(x, len) text_param((x), (len))
#define NPARAMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static struct param text_param(const char *s, size_t n)
{
	return (struct param){ .t = s ? P_TEXT : P_NULL, .s = s, .n = n };
}

static int fail(struct kf_store *s, kf_err *err, const char *what)
{
	return kf_store_fail(kf_store_db(s), err, what);
}

static int prepare(struct kf_store *s, const char *sql, const struct param *p, int n, sqlite3_stmt **st,
		   kf_err *err, const char *what)
{
	if (sqlite3_prepare_v2(kf_store_db(s), sql, -1, st, NULL) != SQLITE_OK)
		return fail(s, err, what);
	for (int i = 0; i < n; i++) {
		switch (p[i].t) {
		case P_NULL: break;
		case P_INT: sqlite3_bind_int64(*st, i + 1, p[i].i); break;
		case P_REAL: sqlite3_bind_double(*st, i + 1, p[i].d); break;
		case P_TEXT:
			sqlite3_bind_text(*st, i + 1, p[i].s, p[i].n == SIZE_MAX ? -1 : (int)p[i].n, SQLITE_STATIC);
			break;
		}
	}
	return KF_OK;
}

/* One statement inside the caller's transaction. */
static int exec(struct kf_store *s, const char *sql, const struct param *p, int n, kf_err *err, const char *what)
{
	sqlite3_stmt *st;
	int rc = prepare(s, sql, p, n, &st, err, what);
	if (rc != KF_OK)
		return rc;
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = fail(s, err, what);
	sqlite3_finalize(st);
	return rc;
}

/* One statement in its own write transaction. */
static int exec_tx(struct kf_store *s, const char *sql, const struct param *p, int n, kf_err *err,
		   const char *what)
{
	int rc = kf_store_begin(s, err);
	if (rc != KF_OK)
		return rc;
	if ((rc = exec(s, sql, p, n, err, what)) != KF_OK) {
		kf_store_rollback(s);
		return rc;
	}
	return kf_store_commit(s, err);
}

static void column_copy(sqlite3_stmt *st, int col, char *out, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(out, len, "%s", t ? (const char *)t : "");
}

/* ---- runs ---- */

int kf_record_create_run(struct kf_store *s, const struct kf_record_run *run, struct kf_task *const *tasks, int n,
			 int64_t *id_out, kf_err *err)
{
	for (int i = 0; i < n; i++)
		if (kf_store_put_task(s, tasks[i]->name, tasks[i]->spec_hash, tasks[i]->spec_text, err) != KF_OK)
			return err->code;
	char *config = cJSON_PrintUnformatted(run->config);
	int rc = kf_store_begin(s, err);
	if (rc != KF_OK)
		goto out;
	const struct param p[] = { PT(run->provider), PT(run->model),  PT(run->base_url),
				   PT(run->backend),  PT(config),      PT(KF_VERSION_STRING) };
	rc = exec(s,
		  "INSERT INTO runs (provider, model, base_url, backend, config, status, kforge_version)"
		  " VALUES (?, ?, ?, ?, ?, 'running', ?)",
		  p, NPARAMS(p), err, "recording the run");
	int64_t id = sqlite3_last_insert_rowid(kf_store_db(s));
	for (int i = 0; i < n && rc == KF_OK; i++) {
		const struct param q[] = { PI(id), PI(i), PT(tasks[i]->name), PT(tasks[i]->spec_hash) };
		rc = exec(s, "INSERT INTO run_tasks (run_id, position, task, task_hash) VALUES (?, ?, ?, ?)", q,
			  NPARAMS(q), err, "recording the run's tasks");
	}
	if (rc != KF_OK) {
		kf_store_rollback(s);
		goto out;
	}
	if ((rc = kf_store_commit(s, err)) == KF_OK)
		*id_out = id;
out:
	free(config);
	return rc;
}

int kf_record_load_run(struct kf_store *s, int64_t id, struct kf_record_run *out, kf_err *err)
{
	sqlite3_stmt *st;
	memset(out, 0, sizeof *out);
	const struct param p[] = { PI(id) };
	int rc = prepare(s, "SELECT provider, model, base_url, backend, config, status, stop_reason FROM runs WHERE id = ?",
			 p, NPARAMS(p), &st, err, "reading the run");
	if (rc != KF_OK)
		return rc;
	int step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		rc = kf_errf(err, KF_EINPUT, "no run with id %lld in this database", (long long)id);
	} else if (step != SQLITE_ROW) {
		rc = fail(s, err, "reading the run");
	} else {
		out->id = id;
		column_copy(st, 0, out->provider, sizeof out->provider);
		out->model = kf_store_column_text(st, 1);
		out->base_url = kf_store_column_text(st, 2);
		column_copy(st, 3, out->backend, sizeof out->backend);
		out->config = cJSON_Parse((const char *)sqlite3_column_text(st, 4));
		column_copy(st, 5, out->status, sizeof out->status);
		out->stop_reason = kf_store_column_text(st, 6);
		if (!cJSON_IsObject(out->config))
			rc = kf_errf(err, KF_EINTERNAL, "run %lld: the stored configuration is not a JSON object", (long long)id);
	}
	sqlite3_finalize(st);
	if (rc != KF_OK)
		kf_record_run_free(out);
	return rc;
}

void kf_record_run_free(struct kf_record_run *r)
{
	free(r->model);
	free(r->base_url);
	free(r->stop_reason);
	cJSON_Delete(r->config);
	memset(r, 0, sizeof *r);
}

int kf_record_run_tasks(struct kf_store *s, int64_t run_id, struct kf_task ***tasks, int *n, kf_err *err)
{
	sqlite3_stmt *st;
	*tasks = NULL;
	*n = 0;
	const struct param p[] = { PI(run_id) };
	int rc = prepare(s,
			 "SELECT r.task, t.spec_text FROM run_tasks r JOIN tasks t ON t.spec_hash = r.task_hash"
			 " WHERE r.run_id = ? ORDER BY r.position",
			 p, NPARAMS(p), &st, err, "reading the run's tasks");
	if (rc != KF_OK)
		return rc;
	int cap = 0, step;
	while (rc == KF_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		/* The loader checks the name against the file name: the label mimics one. */
		char label[KF_NAME_MAX + 32];
		snprintf(label, sizeof label, "stored/%s.json", (const char *)sqlite3_column_text(st, 0));
		struct kf_task *t;
		rc = kf_task_parse(label, (const char *)sqlite3_column_text(st, 1), (size_t)sqlite3_column_bytes(st, 1), &t,
				   err);
		if (rc != KF_OK)
			break;
		*tasks = kf_xgrow(*tasks, *n, &cap, sizeof **tasks);
		(*tasks)[(*n)++] = t;
	}
	if (rc == KF_OK && step != SQLITE_DONE)
		rc = fail(s, err, "reading the run's tasks");
	sqlite3_finalize(st);
	if (rc != KF_OK) {
		kf_task_list_free(*tasks, *n);
		*tasks = NULL;
		*n = 0;
	}
	return rc;
}

int kf_record_update_run(struct kf_store *s, int64_t id, const char *status, const char *stop_reason,
			 const cJSON *config, const char *base_url, kf_err *err)
{
	char *text = config ? cJSON_PrintUnformatted(config) : NULL;
	const struct param p[] = { PT(status), PT(stop_reason), PT(text), PT(base_url), PI(id) };
	int rc = exec_tx(s,
			 "UPDATE runs SET status = ?, stop_reason = ?, config = COALESCE(?, config),"
			 " base_url = COALESCE(?, base_url), updated_at = " SQL_NOW " WHERE id = ?",
			 p, NPARAMS(p), err, "updating the run");
	free(text);
	return rc;
}

/* ---- requests ---- */

static const char *const status_names[] = { "pending", "done", "failed" };

static enum kf_request_status status_of(const char *s)
{
	return !strcmp(s, "done") ? KF_REQ_DONE : !strcmp(s, "failed") ? KF_REQ_FAILED : KF_REQ_PENDING;
}

int kf_record_load_requests(struct kf_store *s, int64_t run_id, struct kf_record_request **rows, int *n,
			    kf_err *err)
{
	sqlite3_stmt *st;
	*rows = NULL;
	*n = 0;
	const struct param p[] = { PI(run_id) };
	int rc = prepare(s,
			 "SELECT id, task, round, slot, status, outcome, attempts, candidate_id, parent_candidate_id,"
			 " CASE WHEN status = 'pending' THEN messages END,"
			 " CASE WHEN outcome = 'code' AND candidate_id IS NULL THEN reply END"
			 " FROM requests WHERE run_id = ? ORDER BY id",
			 p, NPARAMS(p), &st, err, "reading the run's requests");
	if (rc != KF_OK)
		return rc;
	int cap = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		*rows = kf_xgrow(*rows, *n, &cap, sizeof **rows);
		struct kf_record_request *r = &(*rows)[(*n)++];
		memset(r, 0, sizeof *r);
		r->id = sqlite3_column_int64(st, 0);
		column_copy(st, 1, r->task, sizeof r->task);
		r->round = sqlite3_column_int(st, 2);
		r->slot = sqlite3_column_int(st, 3);
		r->status = status_of((const char *)sqlite3_column_text(st, 4));
		column_copy(st, 5, r->outcome, sizeof r->outcome);
		r->attempts = sqlite3_column_int(st, 6);
		r->candidate_id = sqlite3_column_int64(st, 7);
		r->parent_id = sqlite3_column_int64(st, 8);
		r->messages = kf_store_column_text(st, 9);
		r->reply = kf_store_column_text(st, 10);
	}
	if (step != SQLITE_DONE)
		rc = fail(s, err, "reading the run's requests");
	sqlite3_finalize(st);
	return rc;
}

void kf_record_requests_free(struct kf_record_request *rows, int n)
{
	for (int i = 0; i < n; i++) {
		free(rows[i].messages);
		free(rows[i].reply);
	}
	free(rows);
}

int kf_record_plan_round(struct kf_store *s, int64_t run_id, const char *task, int round, int n,
			 const int64_t *parents, cJSON *const *messages, const char *model, const cJSON *params,
			 int64_t *ids_out, kf_err *err)
{
	char *params_text = cJSON_PrintUnformatted(params);
	int rc = kf_store_begin(s, err);
	for (int i = 0; i < n && rc == KF_OK; i++) {
		char *msgs = cJSON_PrintUnformatted(messages[i]);
		char hash[KF_SHA256_HEX_LEN];
		kf_sha256_hex(msgs, strlen(msgs), hash);
		const struct param p[] = { PI(run_id), PT(task), PI(round), PI(i), PID(parents[i]),
					   PT(model), PT(params_text), PT(msgs), PT(hash) };
		rc = exec(s,
			  "INSERT INTO requests (run_id, task, round, slot, parent_candidate_id, model, params, messages,"
			  " prompt_hash, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
			  p, NPARAMS(p), err, "planning requests");
		ids_out[i] = sqlite3_last_insert_rowid(kf_store_db(s));
		free(msgs);
	}
	if (rc == KF_OK)
		rc = kf_store_commit(s, err);
	else
		kf_store_rollback(s);
	free(params_text);
	return rc;
}

int kf_record_add_attempt(struct kf_store *s, int64_t request_id, const struct kf_record_attempt *a, kf_err *err)
{
	int rc = kf_store_begin(s, err);
	if (rc != KF_OK)
		return rc;
	const struct param p[] = { PI(request_id),
				   PI(a->attempt),
				   PID(a->http_status),
				   PT(a->error),
				   PD(a->latency_ms),
				   PD(a->retry_after_s < 0 ? NAN : a->retry_after_s),
				   PD(a->retry_in_s < 0 ? NAN : a->retry_in_s) };
	/* REPLACE: a resumed request may repeat an attempt number that a crash left half-recorded. */
	rc = exec(s,
		  "INSERT OR REPLACE INTO request_attempts (request_id, attempt, http_status, error, latency_ms,"
		  " retry_after_s, retry_in_s) VALUES (?, ?, ?, ?, ?, ?, ?)",
		  p, NPARAMS(p), err, "recording an HTTP attempt");
	const struct param q[] = { PI(a->attempt), PI(request_id) };
	if (rc == KF_OK)
		rc = exec(s, "UPDATE requests SET attempts = MAX(attempts, ?) WHERE id = ?", q, NPARAMS(q), err,
			  "recording an HTTP attempt");
	if (rc != KF_OK) {
		kf_store_rollback(s);
		return rc;
	}
	return kf_store_commit(s, err);
}

int kf_record_finish_request(struct kf_store *s, int64_t id, const struct kf_record_reply *r, kf_err *err)
{
	const struct param p[] = {
		PT(status_names[r->status]), PT(r->outcome),       PID(r->http_status),
		PI(r->attempts),             PTN(r->response, r->response_len), PT(r->reply),
		PT(r->finish_reason && *r->finish_reason ? r->finish_reason : NULL),
		PCOUNT(r->tokens_in),        PCOUNT(r->tokens_out), PCOUNT(r->tokens_reasoning),
		PD(r->latency_ms),           PD(r->cost_usd),      PT(r->error && *r->error ? r->error : NULL),
		PI(id),
	};
	return exec_tx(s,
		       "UPDATE requests SET status = ?, outcome = ?, http_status = ?, attempts = MAX(attempts, ?),"
		       " response = ?, reply = ?, finish_reason = ?, tokens_in = ?, tokens_out = ?, tokens_reasoning = ?,"
		       " latency_ms = ?, cost_usd = ?, error = ?, finished_at = " SQL_NOW " WHERE id = ?",
		       p, NPARAMS(p), err, "recording a reply");
}

int kf_record_link_candidate(struct kf_store *s, int64_t request_id, int64_t candidate_id, kf_err *err)
{
	const struct param p[] = { PI(candidate_id), PI(request_id) };
	return exec_tx(s, "UPDATE requests SET candidate_id = ? WHERE id = ?", p, NPARAMS(p), err,
		       "linking a request to its candidate");
}

/* ---- candidates ---- */

int kf_record_find_candidate(struct kf_store *s, int64_t run_id, const char *task, const char *source_hash,
			     int64_t *id, kf_err *err)
{
	sqlite3_stmt *st;
	*id = 0;
	const struct param p[] = { PI(run_id), PT(task), PT(source_hash) };
	int rc = prepare(s, "SELECT MIN(id) FROM candidates WHERE run_id = ? AND task = ? AND source_hash = ?", p,
			 NPARAMS(p), &st, err, "looking up a candidate");
	if (rc != KF_OK)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else
		rc = fail(s, err, "looking up a candidate");
	sqlite3_finalize(st);
	return rc;
}

int kf_record_load_candidates(struct kf_store *s, int64_t run_id, struct kf_record_candidate **rows, int *n,
			      kf_err *err)
{
	sqlite3_stmt *st;
	*rows = NULL;
	*n = 0;
	const struct param p[] = { PI(run_id) };
	int rc = prepare(s,
			 "SELECT c.id, c.task, e.id, e.verdict, e.sol_fraction, e.time_ms, e.speedup FROM candidates c"
			 " LEFT JOIN evaluations e ON e.id = (SELECT MAX(id) FROM evaluations WHERE candidate_id = c.id)"
			 " WHERE c.run_id = ? ORDER BY c.id",
			 p, NPARAMS(p), &st, err, "reading the run's candidates");
	if (rc != KF_OK)
		return rc;
	int cap = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		*rows = kf_xgrow(*rows, *n, &cap, sizeof **rows);
		struct kf_record_candidate *c = &(*rows)[(*n)++];
		memset(c, 0, sizeof *c);
		c->id = sqlite3_column_int64(st, 0);
		column_copy(st, 1, c->task, sizeof c->task);
		c->evaluated = sqlite3_column_type(st, 2) != SQLITE_NULL;
		column_copy(st, 3, c->verdict, sizeof c->verdict);
		c->sol_fraction = kf_store_column_number(st, 4);
		c->time_ms = kf_store_column_number(st, 5);
		c->speedup = kf_store_column_number(st, 6);
	}
	if (step != SQLITE_DONE)
		rc = fail(s, err, "reading the run's candidates");
	sqlite3_finalize(st);
	return rc;
}

int kf_record_candidate_source(struct kf_store *s, int64_t id, char **source, size_t *len, kf_err *err)
{
	sqlite3_stmt *st;
	*source = NULL;
	const struct param p[] = { PI(id) };
	int rc = prepare(s, "SELECT source FROM candidates WHERE id = ?", p, NPARAMS(p), &st, err, "reading a candidate");
	if (rc != KF_OK)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*source = kf_store_column_text(st, 0);
		if (len)
			*len = (size_t)sqlite3_column_bytes(st, 0);
	} else {
		rc = kf_errf(err, KF_EINTERNAL, "candidate %lld has vanished from the database", (long long)id);
	}
	sqlite3_finalize(st);
	return rc;
}

int kf_record_latest_result(struct kf_store *s, int64_t candidate_id, cJSON **result, kf_err *err)
{
	sqlite3_stmt *st;
	*result = NULL;
	const struct param p[] = { PI(candidate_id) };
	int rc = prepare(s, "SELECT details FROM evaluations WHERE candidate_id = ? ORDER BY id DESC LIMIT 1", p,
			 NPARAMS(p), &st, err, "reading an evaluation");
	if (rc != KF_OK)
		return rc;
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*result = cJSON_Parse((const char *)sqlite3_column_text(st, 0));
	else if (step != SQLITE_DONE)
		rc = fail(s, err, "reading an evaluation");
	sqlite3_finalize(st);
	return rc;
}

int kf_record_failures(struct kf_store *s, int64_t run_id, int max, struct kf_record_failure **rows, int *n,
		       kf_err *err)
{
	sqlite3_stmt *st;
	*rows = NULL;
	*n = 0;
	const struct param p[] = { PI(run_id), PI(max) };
	int rc = prepare(s,
			 "SELECT COALESCE(error, outcome, 'no reason recorded'), COUNT(*) FROM requests"
			 " WHERE run_id = ? AND status = 'failed' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?",
			 p, NPARAMS(p), &st, err, "reading the run's failed requests");
	if (rc != KF_OK)
		return rc;
	int cap = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		*rows = kf_xgrow(*rows, *n, &cap, sizeof **rows);
		struct kf_record_failure *f = &(*rows)[(*n)++];
		column_copy(st, 0, f->error, sizeof f->error);
		f->count = sqlite3_column_int(st, 1);
	}
	if (step != SQLITE_DONE)
		rc = fail(s, err, "reading the run's failed requests");
	sqlite3_finalize(st);
	return rc;
}

int kf_record_totals(struct kf_store *s, int64_t run_id, const char *task, struct kf_record_task_totals *out,
		     kf_err *err)
{
	sqlite3_stmt *st;
	memset(out, 0, sizeof *out);
	const struct param p[] = { PI(run_id), PT(task), PT(task) };
	int rc = prepare(s,
			 "SELECT COUNT(*), TOTAL(status = 'failed'), TOTAL(status = 'done' AND outcome <> 'code'),"
			 " TOTAL(tokens_in), TOTAL(tokens_out), TOTAL(cost_usd),"
			 " TOTAL(status = 'done' AND cost_usd IS NULL) + (COUNT(cost_usd) = 0)"
			 " FROM requests WHERE run_id = ? AND status <> 'pending' AND (? IS NULL OR task = ?)",
			 p, NPARAMS(p), &st, err, "adding up the run's requests");
	if (rc != KF_OK)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		out->requests = sqlite3_column_int(st, 0);
		out->failed = (int)sqlite3_column_double(st, 1);
		out->no_code = (int)sqlite3_column_double(st, 2);
		out->tokens_in = (int64_t)sqlite3_column_double(st, 3);
		out->tokens_out = (int64_t)sqlite3_column_double(st, 4);
		out->cost_usd = sqlite3_column_double(st, 6) > 0 ? NAN : sqlite3_column_double(st, 5);
	} else {
		rc = fail(s, err, "adding up the run's requests");
	}
	sqlite3_finalize(st);
	return rc;
}
