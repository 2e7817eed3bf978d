/* kf_store implementation: connection setup, the ordered schema migrations, and the reads and writes
 * declared in store.h. All of kforge's SQL for these tables lives here; the JSON a result carries is
 * read, never interpreted (verdicts and statistics belong to eval/). */
#include "db/store.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/sha256.h"
#include "common/version.h"

struct kf_store {
	sqlite3 *db;
	int schema_version;
};

/* ISO-8601 UTC with milliseconds: the format of every timestamp column (and of kf_store_utc_now). */
#define SQL_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

/* Migration N (index N-1) takes the schema from version N-1 to N. Append only: never edit a migration
 * that has shipped, databases in the field already ran it. */
static const char *const migrations[] = {
	/* 1: task specs, candidates, evaluations with their raw timing samples, machine calibration.
	 * Key result fields are columns so leaderboards can query them; `details` keeps the whole result.
	 * candidates.run_id gets its table (agent runs) in a later migration. */
	"CREATE TABLE tasks ("
	"  spec_hash TEXT PRIMARY KEY,"
	"  name TEXT NOT NULL,"
	"  spec_text TEXT NOT NULL,"
	"  created_at TEXT NOT NULL DEFAULT (" SQL_NOW ")"
	") STRICT;"
	"CREATE INDEX tasks_by_name ON tasks(name);"
	"CREATE TABLE candidates ("
	"  id INTEGER PRIMARY KEY,"
	"  task TEXT NOT NULL,"
	"  task_hash TEXT NOT NULL REFERENCES tasks(spec_hash),"
	"  backend TEXT NOT NULL,"
	"  origin TEXT NOT NULL CHECK (origin IN ('submit', 'agent')),"
	"  submitter TEXT NOT NULL,"
	"  file_name TEXT,"
	"  source TEXT NOT NULL,"
	"  source_hash TEXT NOT NULL,"
	"  run_id INTEGER,"
	"  created_at TEXT NOT NULL DEFAULT (" SQL_NOW ")"
	") STRICT;"
	"CREATE INDEX candidates_by_task ON candidates(task, backend);"
	"CREATE INDEX candidates_by_run ON candidates(run_id);"
	"CREATE INDEX candidates_by_source ON candidates(source_hash);"
	"CREATE TABLE evaluations ("
	"  id INTEGER PRIMARY KEY,"
	"  candidate_id INTEGER NOT NULL REFERENCES candidates(id),"
	"  verdict TEXT NOT NULL,"
	"  reason TEXT,"
	"  time_ms REAL, ref_time_ms REAL, vendor_time_ms REAL, speedup REAL,"
	"  sol_fraction REAL, sol_score REAL, t_sol_ms REAL, max_abs_err REAL, max_rel_err REAL,"
	"  machine_key TEXT,"
	"  compile_ms REAL,"
	"  compile_cached INTEGER CHECK (compile_cached IN (0, 1)),"
	"  compile_flags TEXT, compiler TEXT, compile_key TEXT,"
	"  seeds TEXT CHECK (seeds IS NULL OR json_valid(seeds)),"
	"  details TEXT NOT NULL CHECK (json_valid(details)),"
	"  kforge_version TEXT NOT NULL,"
	"  started_at TEXT,"
	"  finished_at TEXT NOT NULL,"
	"  created_at TEXT NOT NULL DEFAULT (" SQL_NOW ")"
	") STRICT;"
	"CREATE INDEX evaluations_by_candidate ON evaluations(candidate_id);"
	"CREATE TABLE samples ("
	"  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id),"
	"  series TEXT NOT NULL CHECK (series IN ('candidate', 'reference', 'vendor')),"
	"  idx INTEGER NOT NULL CHECK (idx >= 0),"
	"  ns INTEGER NOT NULL CHECK (ns >= 0),"
	"  PRIMARY KEY (evaluation_id, series, idx)"
	") STRICT, WITHOUT ROWID;"
	"CREATE TABLE calibrations ("
	"  machine_key TEXT PRIMARY KEY,"
	"  json TEXT NOT NULL CHECK (json_valid(json)),"
	"  updated_at TEXT NOT NULL DEFAULT (" SQL_NOW ")"
	") STRICT;",
	/* 2: agent runs (agent/record.c owns the SQL). A run asks a model for kernels for a list of
	 * tasks; every LLM request is a row planned before it is sent (task, round, slot), so a killed
	 * run resumes from the database alone; every HTTP attempt of a request is kept, faults included.
	 * Candidates of a run are ordinary candidates with run_id set; requests point at them. */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  provider TEXT NOT NULL CHECK (provider IN ('openai', 'anthropic')),"
	"  model TEXT NOT NULL,"
	"  base_url TEXT NOT NULL,"
	"  backend TEXT NOT NULL,"
	"  config TEXT NOT NULL CHECK (json_valid(config)),"
	"  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'stopped')),"
	"  stop_reason TEXT,"
	"  kforge_version TEXT NOT NULL,"
	"  created_at TEXT NOT NULL DEFAULT (" SQL_NOW "),"
	"  updated_at TEXT NOT NULL DEFAULT (" SQL_NOW ")"
	") STRICT;"
	"CREATE TABLE run_tasks ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  position INTEGER NOT NULL CHECK (position >= 0),"
	"  task TEXT NOT NULL,"
	"  task_hash TEXT NOT NULL REFERENCES tasks(spec_hash),"
	"  PRIMARY KEY (run_id, position),"
	"  UNIQUE (run_id, task)"
	") STRICT;"
	"CREATE TABLE requests ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  task TEXT NOT NULL,"
	"  round INTEGER NOT NULL CHECK (round >= 1),"
	"  slot INTEGER NOT NULL CHECK (slot >= 0),"
	"  parent_candidate_id INTEGER REFERENCES candidates(id),"
	"  model TEXT NOT NULL,"
	"  params TEXT NOT NULL CHECK (json_valid(params)),"
	"  messages TEXT NOT NULL CHECK (json_valid(messages)),"
	"  prompt_hash TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),"
	"  outcome TEXT CHECK (outcome IS NULL OR outcome IN ('code', 'no_code', 'empty_block',"
	"    'conflicting_files', 'unterminated_block', 'wrong_language', 'http_error', 'transport_error',"
	"    'malformed_response', 'oversized_response')),"
	"  http_status INTEGER,"
	"  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),"
	"  response TEXT,"
	"  reply TEXT,"
	"  finish_reason TEXT,"
	"  tokens_in INTEGER, tokens_out INTEGER, tokens_reasoning INTEGER,"
	"  latency_ms REAL,"
	"  cost_usd REAL,"
	"  error TEXT,"
	"  candidate_id INTEGER REFERENCES candidates(id),"
	"  created_at TEXT NOT NULL DEFAULT (" SQL_NOW "),"
	"  finished_at TEXT,"
	"  UNIQUE (run_id, task, round, slot)"
	") STRICT;"
	"CREATE INDEX requests_by_candidate ON requests(candidate_id);"
	"CREATE TABLE request_attempts ("
	"  request_id INTEGER NOT NULL REFERENCES requests(id),"
	"  attempt INTEGER NOT NULL CHECK (attempt >= 1),"
	"  http_status INTEGER,"
	"  error TEXT,"
	"  latency_ms REAL NOT NULL,"
	"  retry_after_s REAL,"
	"  retry_in_s REAL,"
	"  finished_at TEXT NOT NULL DEFAULT (" SQL_NOW "),"
	"  PRIMARY KEY (request_id, attempt)"
	") STRICT;",
	/* 3: weak verifiers and the label model (eval/rank/rank.c owns the SQL). A verification of an
	 * evaluation keeps one vote per verifier with its evidence, and the consensus probes (the
	 * candidate's outputs at fixed positions of fixed inputs, little-endian doubles); every ranking
	 * keeps its label-model fit and the posterior P(correct) of each evaluation it covered. */
	"CREATE TABLE verifications ("
	"  evaluation_id INTEGER PRIMARY KEY REFERENCES evaluations(id),"
	"  options TEXT NOT NULL CHECK (json_valid(options)),"
	"  seconds REAL NOT NULL,"
	"  kforge_version TEXT NOT NULL,"
	"  created_at TEXT NOT NULL DEFAULT (" SQL_NOW ")"
	") STRICT;"
	"CREATE TABLE verifier_votes ("
	"  evaluation_id INTEGER NOT NULL REFERENCES verifications(evaluation_id),"
	"  verifier TEXT NOT NULL,"
	"  vote TEXT NOT NULL CHECK (vote IN ('pass', 'fail', 'abstain')),"
	"  evidence TEXT NOT NULL CHECK (json_valid(evidence)),"
	"  updated_at TEXT NOT NULL DEFAULT (" SQL_NOW "),"
	"  PRIMARY KEY (evaluation_id, verifier)"
	") STRICT;"
	"CREATE TABLE verifier_probes ("
	"  evaluation_id INTEGER NOT NULL REFERENCES verifications(evaluation_id),"
	"  probe_key TEXT NOT NULL,"
	"  shape TEXT NOT NULL,"
	"  ran INTEGER NOT NULL CHECK (ran IN (0, 1)),"
	"  counts TEXT NOT NULL CHECK (json_valid(counts)),"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (evaluation_id, probe_key)"
	") STRICT;"
	"CREATE TABLE label_fits ("
	"  id INTEGER PRIMARY KEY,"
	"  scope TEXT NOT NULL,"
	"  model TEXT NOT NULL CHECK (json_valid(model)),"
	"  kforge_version TEXT NOT NULL,"
	"  created_at TEXT NOT NULL DEFAULT (" SQL_NOW ")"
	") STRICT;"
	"CREATE TABLE posteriors ("
	"  fit_id INTEGER NOT NULL REFERENCES label_fits(id),"
	"  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id),"
	"  p_correct REAL CHECK (p_correct IS NULL OR (p_correct >= 0 AND p_correct <= 1)),"
	"  PRIMARY KEY (fit_id, evaluation_id)"
	") STRICT;"
	"CREATE INDEX posteriors_by_evaluation ON posteriors(evaluation_id, fit_id);",
	/* 4: profiles of evaluated candidates (eval/judge/profile.c owns the SQL): one separate
	 * sandboxed run per profiled evaluation, kept apart from its verdict and times. */
	"CREATE TABLE profiles ("
	"  evaluation_id INTEGER PRIMARY KEY REFERENCES evaluations(id),"
	"  backend TEXT NOT NULL,"
	"  profile TEXT NOT NULL CHECK (json_valid(profile)),"
	"  seconds REAL NOT NULL,"
	"  kforge_version TEXT NOT NULL,"
	"  created_at TEXT NOT NULL DEFAULT (" SQL_NOW ")"
	") STRICT;",
};

#define LATEST_SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

/* Extended result codes keep the primary code in their low byte. */
#define PRIMARY_CODE(rc) ((rc) & 0xff)
#define PRAGMA_SQL_MAX 64
/* PRAGMA application_id marks the file as kforge's ("kfge"), so --db pointing at another program's
 * SQLite database is refused instead of being filled with kforge tables. */
#define APPLICATION_ID 0x6b666765
/* Timing samples are int64 nanoseconds; this is the first double past INT64_MAX. */
#define NS_LIMIT 0x1p63

/* A missing, unreadable, read-only or damaged database file is the user's to fix (exit 2); anything
 * else is the environment. */
static enum kf_code code_of(int rc)
{
	switch (PRIMARY_CODE(rc)) {
	case SQLITE_NOTADB:
	case SQLITE_CANTOPEN:
	case SQLITE_CORRUPT:
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return KF_EINPUT;
	default:
		return KF_EINTERNAL;
	}
}

/* err = "<what failed>: <SQLite's explanation>". Call before anything else touches the connection. */
static int db_fail(sqlite3 *db, int rc, kf_err *err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int db_fail(sqlite3 *db, int rc, kf_err *err, const char *fmt, ...)
{
	char what[KF_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return kf_errf(err, code_of(rc), "%s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
	return sqlite3_prepare_v2(db, sql, -1, st, NULL);
}

/* Runs a query that yields one integer (a pragma, a count). */
static int query_int(sqlite3 *db, const char *sql, int *out)
{
	sqlite3_stmt *st;
	int rc = prepare(db, sql, &st);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

static int check_not_newer(const char *path, int version, kf_err *err)
{
	if (version <= LATEST_SCHEMA_VERSION)
		return KF_OK;
	return kf_errf(err, KF_EINPUT,
		       "database %s has schema version %d, but this kforge (%s) knows only versions up to %d: "
		       "use a newer kforge or another --db",
		       path, version, KF_VERSION_STRING, LATEST_SCHEMA_VERSION);
}

int kf_store_begin(struct kf_store *s, kf_err *err)
{
	int rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s->db, rc, err, "starting a write transaction");
	return KF_OK;
}

int kf_store_commit(struct kf_store *s, kf_err *err)
{
	int rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int ret = db_fail(s->db, rc, err, "committing");
		kf_store_rollback(s);
		return ret;
	}
	return KF_OK;
}

void kf_store_rollback(struct kf_store *s)
{
	/* A failed ROLLBACK leaves nothing better to do: SQLite rolls back on close or on the next
	 * connection's recovery, so the error is not reported over the one that caused the rollback. */
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Re-reads the version under the write lock: another process may have migrated since the first read. */
static int migrate(struct kf_store *s, const char *path, kf_err *err)
{
	int rc, version, ret;
	if ((ret = kf_store_begin(s, err)) != KF_OK)
		return kf_err_prefix(err, "migrating %s: ", path);
	if ((rc = query_int(s->db, "PRAGMA user_version", &version)) != SQLITE_OK) {
		ret = db_fail(s->db, rc, err, "reading the schema version of %s", path);
		goto out_rollback;
	}
	if ((ret = check_not_newer(path, version, err)) != KF_OK)
		goto out_rollback;
	for (int v = version + 1; v <= LATEST_SCHEMA_VERSION; v++) {
		if ((rc = sqlite3_exec(s->db, migrations[v - 1], NULL, NULL, NULL)) != SQLITE_OK) {
			ret = db_fail(s->db, rc, err, "migrating %s to schema version %d", path, v);
			goto out_rollback;
		}
	}
	char sql[PRAGMA_SQL_MAX];
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d", APPLICATION_ID,
		 LATEST_SCHEMA_VERSION);
	if ((rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL)) != SQLITE_OK) {
		ret = db_fail(s->db, rc, err, "setting the schema version of %s", path);
		goto out_rollback;
	}
	if ((ret = kf_store_commit(s, err)) != KF_OK)
		return kf_err_prefix(err, "migrating %s: ", path);
	s->schema_version = LATEST_SCHEMA_VERSION;
	return KF_OK;
out_rollback:
	kf_store_rollback(s);
	return ret;
}

/* Reads back a one-row pragma as text, to check that a setting took. */
static int pragma_text(sqlite3 *db, const char *sql, char *out, size_t out_len)
{
	sqlite3_stmt *st;
	int rc = prepare(db, sql, &st);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *text = sqlite3_column_text(st, 0);
		snprintf(out, out_len, "%s", text ? (const char *)text : "");
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/* WAL lets readers (leaderboards) run while the judge writes; foreign keys keep evaluations attached
 * to real candidates. Both are per-connection settings that SQLite may silently decline. */
static int configure(struct kf_store *s, const char *path, kf_err *err)
{
	static const struct {
		const char *sql, *expect, *what;
	} settings[] = {
		{ "PRAGMA foreign_keys = ON", NULL, "enabling foreign keys" },
		{ "PRAGMA foreign_keys", "1", "enabling foreign keys" },
		{ "PRAGMA journal_mode = WAL", "wal", "switching to WAL mode" },
	};
	char got[PRAGMA_SQL_MAX];
	for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
		got[0] = '\0';
		int rc = pragma_text(s->db, settings[i].sql, got, sizeof got);
		if (rc != SQLITE_OK && rc != SQLITE_DONE)
			return db_fail(s->db, rc, err, "%s on %s", settings[i].what, path);
		if (settings[i].expect && strcmp(got, settings[i].expect) != 0)
			return kf_errf(err, KF_EINTERNAL, "%s on %s: SQLite answered \"%s\"", settings[i].what, path,
				       got);
	}
	return KF_OK;
}

/* A file is kforge's when it carries kforge's application id, or is still empty (a new database).
 * Only reads: a wrong --db is refused before anything is written to the file it points at. */
static int check_ours(struct kf_store *s, const char *path, kf_err *err)
{
	int rc, app_id, objects;
	if ((rc = query_int(s->db, "PRAGMA application_id", &app_id)) != SQLITE_OK ||
	    (rc = query_int(s->db, "PRAGMA user_version", &s->schema_version)) != SQLITE_OK ||
	    (rc = query_int(s->db, "SELECT count(*) FROM sqlite_master", &objects)) != SQLITE_OK) {
		if (PRIMARY_CODE(rc) == SQLITE_NOTADB)
			return kf_errf(err, KF_EINPUT, "%s is not a SQLite database (is --db pointing at the right file?)",
				       path);
		return db_fail(s->db, rc, err, "reading the header of %s", path);
	}
	if (app_id != APPLICATION_ID && (app_id != 0 || s->schema_version != 0 || objects != 0))
		return kf_errf(err, KF_EINPUT,
			       "%s is a SQLite database but not a kforge one (is --db pointing at the right file?)", path);
	return check_not_newer(path, s->schema_version, err);
}

int kf_store_open(const char *path, struct kf_store **out, kf_err *err)
{
	int rc, ret;
	struct kf_store *s = kf_xcalloc(1, sizeof *s);
	*out = NULL;
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE,
			     NULL);
	if (rc != SQLITE_OK) {
		ret = db_fail(s->db, rc, err, "opening database %s", path);
		goto out_close;
	}
	sqlite3_busy_timeout(s->db, KF_STORE_BUSY_TIMEOUT_MS);
	if ((ret = check_ours(s, path, err)) != KF_OK)
		goto out_close;
	if ((ret = configure(s, path, err)) != KF_OK)
		goto out_close;
	if (s->schema_version < LATEST_SCHEMA_VERSION && (ret = migrate(s, path, err)) != KF_OK)
		goto out_close;
	*out = s;
	return KF_OK;
out_close:
	kf_store_close(s);
	return ret;
}

void kf_store_close(struct kf_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

sqlite3 *kf_store_db(struct kf_store *s) { return s->db; }

int kf_store_schema_version(struct kf_store *s) { return s->schema_version; }

int kf_store_latest_schema_version(void) { return LATEST_SCHEMA_VERSION; }

/* Runs one statement with text parameters (NULL binds SQL NULL) in its own write transaction. */
static int write_texts(struct kf_store *s, const char *sql, const char *const *params, int n_params, kf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc, ret;
	if ((ret = kf_store_begin(s, err)) != KF_OK)
		return ret;
	if ((rc = prepare(s->db, sql, &st)) != SQLITE_OK)
		goto out_fail;
	for (int i = 0; i < n_params; i++)
		if ((rc = sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_STATIC)) != SQLITE_OK)
			goto out_fail;
	if ((rc = sqlite3_step(st)) != SQLITE_DONE)
		goto out_fail;
	sqlite3_finalize(st);
	return kf_store_commit(s, err);
out_fail:
	ret = db_fail(s->db, rc, err, "writing");
	sqlite3_finalize(st);
	kf_store_rollback(s);
	return ret;
}

int kf_store_get_calibration(struct kf_store *s, const char *machine_key, char **json_out, kf_err *err)
{
	sqlite3_stmt *st;
	int rc, ret = KF_OK;
	*json_out = NULL;
	if ((rc = prepare(s->db, "SELECT json FROM calibrations WHERE machine_key = ?", &st)) != SQLITE_OK)
		return db_fail(s->db, rc, err, "reading the calibration of machine %s", machine_key);
	sqlite3_bind_text(st, 1, machine_key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*json_out = kf_xstrdup((const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_DONE)
		ret = db_fail(s->db, rc, err, "reading the calibration of machine %s", machine_key);
	sqlite3_finalize(st);
	return ret;
}

int kf_store_best_ref_time(struct kf_store *s, const char *task_hash, const char *backend, const char *machine_key,
			   double *ms, kf_err *err)
{
	sqlite3_stmt *st;
	int rc, ret = KF_OK;
	*ms = NAN;
	if ((rc = prepare(s->db,
			  "SELECT MIN(e.ref_time_ms) FROM evaluations e JOIN candidates c ON c.id = e.candidate_id"
			  " WHERE c.task_hash = ? AND c.backend = ? AND e.machine_key = ? AND e.verdict = 'ok'"
			  " AND e.ref_time_ms IS NOT NULL",
			  &st)) != SQLITE_OK)
		return db_fail(s->db, rc, err, "reading the reference's best time");
	sqlite3_bind_text(st, 1, task_hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, backend, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, machine_key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*ms = sqlite3_column_double(st, 0);
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = db_fail(s->db, rc, err, "reading the reference's best time");
	sqlite3_finalize(st);
	return ret;
}

int kf_store_put_calibration(struct kf_store *s, const char *machine_key, const char *json, kf_err *err)
{
	const char *params[] = { machine_key, json };
	int ret = write_texts(s,
			      "INSERT INTO calibrations (machine_key, json) VALUES (?, ?)"
			      " ON CONFLICT (machine_key) DO UPDATE SET json = excluded.json, updated_at = " SQL_NOW,
			      params, 2, err);
	return ret == KF_OK ? KF_OK : kf_err_prefix(err, "storing the calibration of machine %s: ", machine_key);
}

static int check_hash(const char *what, const char *text, const char *hash, kf_err *err)
{
	char actual[KF_SHA256_HEX_LEN];
	kf_sha256_hex(text, strlen(text), actual);
	if (strcmp(actual, hash) != 0)
		return kf_errf(err, KF_EINTERNAL, "%s hash %s does not match its text (sha256 %s)", what, hash, actual);
	return KF_OK;
}

int kf_store_put_task(struct kf_store *s, const char *name, const char *spec_hash, const char *spec_text,
		      kf_err *err)
{
	const char *params[] = { spec_hash, name, spec_text };
	int ret = check_hash("spec", spec_text, spec_hash, err);
	if (ret == KF_OK)
		ret = write_texts(s,
				  "INSERT INTO tasks (spec_hash, name, spec_text) VALUES (?, ?, ?)"
				  " ON CONFLICT (spec_hash) DO NOTHING",
				  params, 3, err);
	return ret == KF_OK ? KF_OK : kf_err_prefix(err, "storing task %s: ", name);
}

/* Inside the caller's transaction: the spec must be stored, under the same task name. */
static int check_task(struct kf_store *s, const struct kf_candidate_rec *c, kf_err *err)
{
	sqlite3_stmt *st;
	int rc, ret = KF_OK;
	if ((rc = prepare(s->db, "SELECT name FROM tasks WHERE spec_hash = ?", &st)) != SQLITE_OK)
		return db_fail(s->db, rc, err, "looking up the task spec");
	sqlite3_bind_text(st, 1, c->task_hash, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		ret = kf_errf(err, KF_EINTERNAL, "task spec %s was never stored (kf_store_put_task first)", c->task_hash);
	else if (rc != SQLITE_ROW)
		ret = db_fail(s->db, rc, err, "looking up the task spec");
	else if (strcmp((const char *)sqlite3_column_text(st, 0), c->task) != 0)
		ret = kf_errf(err, KF_EINTERNAL, "task spec %s belongs to task %s", c->task_hash,
			      (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return ret;
}

static int insert_candidate(struct kf_store *s, const struct kf_candidate_rec *c, int64_t *id_out, kf_err *err)
{
	sqlite3_stmt *st;
	int rc;
	const char *texts[] = { c->task,      c->task_hash, c->backend, c->origin,
				c->submitter, c->file_name, c->source,  c->source_hash };
	const int n_texts = sizeof texts / sizeof texts[0];
	rc = prepare(s->db,
		     "INSERT INTO candidates (task, task_hash, backend, origin, submitter, file_name, source,"
		     " source_hash, run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		     &st);
	if (rc != SQLITE_OK)
		return db_fail(s->db, rc, err, "inserting the submission");
	for (int i = 0; i < n_texts; i++)
		sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
	if (c->run_id)
		sqlite3_bind_int64(st, n_texts + 1, c->run_id);
	if ((rc = sqlite3_step(st)) != SQLITE_DONE) {
		int ret = db_fail(s->db, rc, err, "inserting the submission");
		sqlite3_finalize(st);
		return ret;
	}
	sqlite3_finalize(st);
	*id_out = sqlite3_last_insert_rowid(s->db);
	return KF_OK;
}

int kf_store_add_candidate(struct kf_store *s, const struct kf_candidate_rec *c, int64_t *id_out, kf_err *err)
{
	int ret;
	if (!c->task || !c->task_hash || !c->backend || !c->origin || !c->submitter || !c->source ||
	    !c->source_hash || c->run_id < 0)
		return kf_errf(err, KF_EINTERNAL, "adding a submission: incomplete record");
	if ((ret = check_hash("source", c->source, c->source_hash, err)) != KF_OK)
		goto out_prefix;
	if ((ret = kf_store_begin(s, err)) != KF_OK)
		goto out_prefix;
	if ((ret = check_task(s, c, err)) != KF_OK || (ret = insert_candidate(s, c, id_out, err)) != KF_OK) {
		kf_store_rollback(s);
		goto out_prefix;
	}
	if ((ret = kf_store_commit(s, err)) != KF_OK)
		goto out_prefix;
	return KF_OK;
out_prefix:
	return kf_err_prefix(err, "adding a submission for task %s: ", c->task);
}

enum field_type { FIELD_NUMBER, FIELD_STRING, FIELD_BOOL };

/* Result fields kept as evaluation columns: `param` names the INSERT's parameter (= the column). */
static const struct result_column {
	const char *param, *group, *field;
	enum field_type type;
} result_columns[] = {
	{ ":verdict", NULL, "verdict", FIELD_STRING },
	{ ":reason", NULL, "reason", FIELD_STRING },
	{ ":time_ms", NULL, "time_ms", FIELD_NUMBER },
	{ ":ref_time_ms", NULL, "ref_time_ms", FIELD_NUMBER },
	{ ":vendor_time_ms", NULL, "vendor_time_ms", FIELD_NUMBER },
	{ ":speedup", NULL, "speedup", FIELD_NUMBER },
	{ ":sol_fraction", NULL, "sol_fraction", FIELD_NUMBER },
	{ ":sol_score", NULL, "sol_score", FIELD_NUMBER },
	{ ":t_sol_ms", NULL, "t_sol_ms", FIELD_NUMBER },
	{ ":max_abs_err", NULL, "max_abs_err", FIELD_NUMBER },
	{ ":max_rel_err", NULL, "max_rel_err", FIELD_NUMBER },
	{ ":started_at", NULL, "started_at", FIELD_STRING },
	{ ":finished_at", NULL, "finished_at", FIELD_STRING },
	{ ":machine_key", "machine", "key", FIELD_STRING },
	{ ":compile_ms", "compile", "ms", FIELD_NUMBER },
	{ ":compile_cached", "compile", "cached", FIELD_BOOL },
	{ ":compile_flags", "compile", "flags", FIELD_STRING },
	{ ":compiler", "compile", "compiler", FIELD_STRING },
	{ ":compile_key", "compile", "key", FIELD_STRING },
};

#define INSERT_EVALUATION_SQL                                                                                \
	"INSERT INTO evaluations (candidate_id, verdict, reason, time_ms, ref_time_ms, vendor_time_ms,"      \
	" speedup, sol_fraction, sol_score, t_sol_ms, max_abs_err, max_rel_err, started_at, finished_at,"    \
	" machine_key, compile_ms, compile_cached, compile_flags, compiler, compile_key, seeds, details,"     \
	" kforge_version) VALUES (:candidate_id, :verdict, :reason, :time_ms, :ref_time_ms, :vendor_time_ms," \
	" :speedup, :sol_fraction, :sol_score, :t_sol_ms, :max_abs_err, :max_rel_err, :started_at,"          \
	" COALESCE(:finished_at, " SQL_NOW "), :machine_key, :compile_ms, :compile_cached, :compile_flags,"  \
	" :compiler, :compile_key, :seeds, :details, :kforge_version)"

static const char *const type_names[] = {
	[FIELD_NUMBER] = "a number",
	[FIELD_STRING] = "a string",
	[FIELD_BOOL] = "true or false",
};

static int bind_result_column(sqlite3_stmt *st, const struct result_column *col, const cJSON *result,
			      kf_err *err)
{
	const cJSON *v = result;
	if (col->group) {
		v = cJSON_GetObjectItemCaseSensitive(result, col->group);
		if (v && !cJSON_IsNull(v) && !cJSON_IsObject(v))
			return kf_errf(err, KF_EINTERNAL, "result field %s is not an object", col->group);
	}
	v = cJSON_GetObjectItemCaseSensitive(v, col->field);
	int idx = sqlite3_bind_parameter_index(st, col->param);
	bool ok = !v || cJSON_IsNull(v) || (col->type == FIELD_NUMBER && cJSON_IsNumber(v)) ||
		  (col->type == FIELD_STRING && cJSON_IsString(v)) || (col->type == FIELD_BOOL && cJSON_IsBool(v));
	if (!ok)
		return kf_errf(err, KF_EINTERNAL, "result field %s%s%s is not %s", col->group ? col->group : "",
			       col->group ? "." : "", col->field, type_names[col->type]);
	if (!v || cJSON_IsNull(v))
		return KF_OK; /* parameters start out NULL */
	if (col->type == FIELD_NUMBER)
		sqlite3_bind_double(st, idx, v->valuedouble);
	else if (col->type == FIELD_STRING)
		sqlite3_bind_text(st, idx, v->valuestring, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int(st, idx, cJSON_IsTrue(v));
	return KF_OK;
}

/* Binds the JSON text of `item` (handed to SQLite, which frees it); a missing item stays NULL. */
static int bind_json(sqlite3_stmt *st, const char *param, const cJSON *item, kf_err *err)
{
	if (!item || cJSON_IsNull(item))
		return KF_OK;
	char *text = cJSON_PrintUnformatted(item);
	if (!text)
		return kf_errf(err, KF_EINTERNAL, "out of memory printing %s", param + 1);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, param), text, -1, cJSON_free);
	return KF_OK;
}

static int insert_evaluation(struct kf_store *s, int64_t candidate_id, const cJSON *result, int64_t *eval_id_out,
			     kf_err *err)
{
	sqlite3_stmt *st;
	int rc, ret = KF_OK;
	const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(result, "seeds");
	if (seeds && !cJSON_IsNull(seeds) && !cJSON_IsArray(seeds))
		return kf_errf(err, KF_EINTERNAL, "result field seeds is not an array");
	if ((rc = prepare(s->db, INSERT_EVALUATION_SQL, &st)) != SQLITE_OK)
		return db_fail(s->db, rc, err, "inserting the evaluation");
	for (size_t i = 0; i < sizeof result_columns / sizeof result_columns[0] && ret == KF_OK; i++)
		ret = bind_result_column(st, &result_columns[i], result, err);
	if (ret != KF_OK)
		goto out;
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":candidate_id"), candidate_id);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":kforge_version"), KF_VERSION_STRING, -1,
			  SQLITE_STATIC);
	if ((ret = bind_json(st, ":seeds", seeds, err)) != KF_OK ||
	    (ret = bind_json(st, ":details", result, err)) != KF_OK)
		goto out;
	if ((rc = sqlite3_step(st)) != SQLITE_DONE) {
		ret = db_fail(s->db, rc, err, "inserting the evaluation");
		goto out;
	}
	*eval_id_out = sqlite3_last_insert_rowid(s->db);
out:
	sqlite3_finalize(st);
	return ret;
}

static const char *const sample_series[] = { "candidate", "reference", "vendor" };

/* The samples array of one series, or NULL when the result has none. */
static int series_samples(const cJSON *timing, const char *series, const cJSON **out, kf_err *err)
{
	const cJSON *entry = cJSON_GetObjectItemCaseSensitive(timing, series);
	*out = NULL;
	if (entry && !cJSON_IsNull(entry) && !cJSON_IsObject(entry))
		return kf_errf(err, KF_EINTERNAL, "result field timing.%s is not an object", series);
	*out = cJSON_GetObjectItemCaseSensitive(entry, "samples_ns");
	if (*out && !cJSON_IsNull(*out) && !cJSON_IsArray(*out))
		return kf_errf(err, KF_EINTERNAL, "result field timing.%s.samples_ns is not an array", series);
	if (*out && cJSON_IsNull(*out))
		*out = NULL;
	return KF_OK;
}

static int insert_series(struct kf_store *s, sqlite3_stmt *st, const char *series, const cJSON *samples,
			 kf_err *err)
{
	int64_t idx = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, samples) {
		if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0 && x->valuedouble < NS_LIMIT) ||
		    x->valuedouble != floor(x->valuedouble))
			return kf_errf(err, KF_EINTERNAL, "timing.%s.samples_ns[%lld] is not a whole number of ns",
				       series, (long long)idx);
		sqlite3_bind_text(st, 2, series, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, idx);
		sqlite3_bind_int64(st, 4, (int64_t)x->valuedouble);
		int rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			return db_fail(s->db, rc, err, "inserting timing sample %s[%lld]", series, (long long)idx);
		sqlite3_reset(st);
		idx++;
	}
	return KF_OK;
}

static int insert_samples(struct kf_store *s, int64_t eval_id, const cJSON *result, kf_err *err)
{
	sqlite3_stmt *st;
	int rc, ret = KF_OK;
	const cJSON *timing = cJSON_GetObjectItemCaseSensitive(result, "timing");
	if (!timing || cJSON_IsNull(timing))
		return KF_OK;
	if (!cJSON_IsObject(timing))
		return kf_errf(err, KF_EINTERNAL, "result field timing is not an object");
	rc = prepare(s->db, "INSERT INTO samples (evaluation_id, series, idx, ns) VALUES (?, ?, ?, ?)", &st);
	if (rc != SQLITE_OK)
		return db_fail(s->db, rc, err, "inserting timing samples");
	sqlite3_bind_int64(st, 1, eval_id);
	for (size_t i = 0; i < sizeof sample_series / sizeof sample_series[0] && ret == KF_OK; i++) {
		const cJSON *samples;
		ret = series_samples(timing, sample_series[i], &samples, err);
		if (ret == KF_OK && samples)
			ret = insert_series(s, st, sample_series[i], samples, err);
	}
	sqlite3_finalize(st);
	return ret;
}

/* Inside the caller's transaction, so the candidate cannot vanish before the evaluation lands. */
static int check_candidate(struct kf_store *s, int64_t id, kf_err *err)
{
	sqlite3_stmt *st;
	int rc, ret = KF_OK;
	if ((rc = prepare(s->db, "SELECT 1 FROM candidates WHERE id = ?", &st)) != SQLITE_OK)
		return db_fail(s->db, rc, err, "looking up submission %lld", (long long)id);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		ret = kf_errf(err, KF_EINPUT, "no submission with id %lld", (long long)id);
	else if (rc != SQLITE_ROW)
		ret = db_fail(s->db, rc, err, "looking up submission %lld", (long long)id);
	sqlite3_finalize(st);
	return ret;
}

int kf_store_add_evaluation(struct kf_store *s, int64_t candidate_id, const cJSON *result, int64_t *eval_id_out,
			    kf_err *err)
{
	int ret;
	int64_t eval_id = 0;
	if (!cJSON_IsObject(result) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(result, "verdict"))) {
		ret = kf_errf(err, KF_EINTERNAL, "the result has no verdict");
		goto out_prefix;
	}
	if ((ret = kf_store_begin(s, err)) != KF_OK)
		goto out_prefix;
	if ((ret = check_candidate(s, candidate_id, err)) != KF_OK ||
	    (ret = insert_evaluation(s, candidate_id, result, &eval_id, err)) != KF_OK ||
	    (ret = insert_samples(s, eval_id, result, err)) != KF_OK) {
		kf_store_rollback(s);
		goto out_prefix;
	}
	if ((ret = kf_store_commit(s, err)) != KF_OK)
		goto out_prefix;
	*eval_id_out = eval_id;
	return KF_OK;
out_prefix:
	return kf_err_prefix(err, "recording an evaluation of submission %lld: ", (long long)candidate_id);
}

static void add_text_column(cJSON *obj, const char *name, sqlite3_stmt *st, int col)
{
	const unsigned char *text = sqlite3_column_text(st, col);
	if (text)
		cJSON_AddStringToObject(obj, name, (const char *)text);
	else
		cJSON_AddNullToObject(obj, name);
}

/* Appends the stored results of candidate `id` to `list`, oldest first. */
static int read_evaluations(struct kf_store *s, int64_t id, cJSON *list, kf_err *err)
{
	sqlite3_stmt *st;
	int rc, ret = KF_OK;
	rc = prepare(s->db, "SELECT id, details, created_at FROM evaluations WHERE candidate_id = ? ORDER BY id", &st);
	if (rc != SQLITE_OK)
		return db_fail(s->db, rc, err, "reading the evaluations of submission %lld", (long long)id);
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t eval_id = sqlite3_column_int64(st, 0);
		cJSON *e = cJSON_ParseWithLength((const char *)sqlite3_column_text(st, 1),
						 (size_t)sqlite3_column_bytes(st, 1));
		if (!cJSON_IsObject(e)) {
			cJSON_Delete(e);
			ret = kf_errf(err, KF_EINTERNAL, "evaluation %lld: stored details are not a JSON object",
				      (long long)eval_id);
			goto out;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(e, "evaluation_id");
		cJSON_DeleteItemFromObjectCaseSensitive(e, "created_at");
		cJSON_AddNumberToObject(e, "evaluation_id", (double)eval_id);
		add_text_column(e, "created_at", st, 2);
		cJSON_AddItemToArray(list, e);
	}
	if (rc != SQLITE_DONE)
		ret = db_fail(s->db, rc, err, "reading the evaluations of submission %lld", (long long)id);
out:
	sqlite3_finalize(st);
	return ret;
}

int kf_store_get_candidate(struct kf_store *s, int64_t id, cJSON **out, kf_err *err)
{
	static const char *const text_fields[] = { "task",	  "task_hash", "backend", "origin",	"submitter",
						   "file_name", "source_hash", "source", "created_at" };
	const int n_text = sizeof text_fields / sizeof text_fields[0];
	sqlite3_stmt *st;
	int rc, ret = KF_OK;
	cJSON *c = NULL;
	*out = NULL;
	rc = prepare(s->db,
		     "SELECT task, task_hash, backend, origin, submitter, file_name, source_hash, source, created_at,"
		     " run_id FROM candidates WHERE id = ?",
		     &st);
	if (rc != SQLITE_OK)
		return db_fail(s->db, rc, err, "reading submission %lld", (long long)id);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		ret = kf_errf(err, KF_EINPUT, "no submission with id %lld", (long long)id);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ret = db_fail(s->db, rc, err, "reading submission %lld", (long long)id);
		goto out;
	}
	c = cJSON_CreateObject();
	cJSON_AddNumberToObject(c, "submission_id", (double)id);
	for (int i = 0; i < n_text; i++)
		add_text_column(c, text_fields[i], st, i);
	if (sqlite3_column_type(st, n_text) == SQLITE_NULL)
		cJSON_AddNullToObject(c, "run_id");
	else
		cJSON_AddNumberToObject(c, "run_id", (double)sqlite3_column_int64(st, n_text));
	ret = read_evaluations(s, id, cJSON_AddArrayToObject(c, "evaluations"), err);
out:
	sqlite3_finalize(st);
	if (ret != KF_OK)
		cJSON_Delete(c);
	else
		*out = c;
	return ret;
}

void kf_store_utc_now(char out[KF_STORE_TIMESTAMP_LEN])
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(out, KF_STORE_TIMESTAMP_LEN, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, KF_STORE_TIMESTAMP_LEN - n, ".%03dZ", (int)(ts.tv_nsec / 1000000));
}

int kf_store_fail(sqlite3 *db, kf_err *err, const char *what)
{
	return kf_errf(err, code_of(sqlite3_extended_errcode(db)), "%s: %s", what, sqlite3_errmsg(db));
}

char *kf_store_column_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? kf_xstrdup((const char *)t) : NULL;
}

double kf_store_column_number(sqlite3_stmt *st, int col)
{
	int type = sqlite3_column_type(st, col);
	return type == SQLITE_INTEGER || type == SQLITE_FLOAT ? sqlite3_column_double(st, col) : NAN;
}
