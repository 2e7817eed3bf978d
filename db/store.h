/* kf_store: the SQLite database that records everything kforge measured (DESIGN.md §11): task specs,
 * submissions (candidates), evaluations with their raw timing samples, and per-machine calibration.
 * WAL, busy_timeout, BEGIN IMMEDIATE for every write, foreign keys, STRICT tables, schema version in
 * PRAGMA user_version. It stores what it is given: it never judges, and it never sees an API key.
 * Errors: KF_EINPUT for what the user can fix (unknown id, a file that is not a kforge database, a
 * database from a newer kforge), KF_EINTERNAL for the environment (disk full, I/O, a lock held past
 * the busy timeout) or a caller's bug. A failed write rolls back whole: nothing of it is kept. */
#ifndef KF_STORE_H
#define KF_STORE_H

#include <cJSON.h>
#include <sqlite3.h>
#include <stdint.h>

#include "common/err.h"

struct kf_store;

/* How long a writer waits for another connection's write transaction before giving up. */
#define KF_STORE_BUSY_TIMEOUT_MS 5000

/* Opens (creating if needed) the database at path and brings its schema up to date. Refuses, before
 * writing anything, a file that is not SQLite, another program's SQLite database (the file is marked
 * with PRAGMA application_id) and a schema newer than this build knows. *out is NULL on failure. */
int kf_store_open(const char *path, struct kf_store **out, kf_err *err);
void kf_store_close(struct kf_store *s);
/* The raw connection, for later modules that add their own tables through a new migration in store.c;
 * they write inside kf_store_begin/kf_store_commit like the store itself. */
sqlite3 *kf_store_db(struct kf_store *s);
int kf_store_schema_version(struct kf_store *s);
/* The newest schema version this build knows (the number of migrations). */
int kf_store_latest_schema_version(void);

/* Write transactions: BEGIN IMMEDIATE takes the write lock up front, so a busy database is waited
 * for (busy_timeout) instead of failing halfway through. A failed commit rolls back. */
int kf_store_begin(struct kf_store *s, kf_err *err);
int kf_store_commit(struct kf_store *s, kf_err *err);
/* Rolls back the open transaction, if any (SQLite may already have rolled back after SQLITE_FULL). */
void kf_store_rollback(struct kf_store *s);

/* Per-machine calibration (CPU peaks, GPU ceilings): one JSON blob per machine key, replaced on put.
 * *json_out is NULL when the machine has none; otherwise the caller frees it with free(). */
int kf_store_get_calibration(struct kf_store *s, const char *machine_key, char **json_out, kf_err *err);
/* The lowest ref_time_ms of an ok evaluation of this task (spec hash) on this backend and machine;
 * NAN when there is none. */
int kf_store_best_ref_time(struct kf_store *s, const char *task_hash, const char *backend, const char *machine_key,
			   double *ms, kf_err *err);
int kf_store_put_calibration(struct kf_store *s, const char *machine_key, const char *json, kf_err *err);

/* Task specs by hash; putting the same spec again changes nothing. */
int kf_store_put_task(struct kf_store *s, const char *name, const char *spec_hash, const char *spec_text,
		      kf_err *err);

struct kf_candidate_rec {
	const char *task;         /* task name */
	const char *task_hash;    /* spec hash (must have been put with kf_store_put_task) */
	const char *backend;      /* "cpu" | "cuda" */
	const char *origin;       /* "submit" (manual) | "agent" */
	const char *submitter;    /* --as NAME, or the model+strategy for agent candidates */
	const char *file_name;    /* as given on the command line; may be NULL */
	const char *source;       /* full source text */
	const char *source_hash;  /* sha256 hex of source (checked) */
	int64_t run_id;           /* 0 = not part of an agent run (stored as NULL) */
};
int kf_store_add_candidate(struct kf_store *s, const struct kf_candidate_rec *c, int64_t *id_out, kf_err *err);

/* Stores one evaluation of a candidate in ONE transaction. `result` fields the store reads (a missing
 * or null field is stored as NULL):
 *   "verdict" (string, required), "reason" (string), "time_ms", "ref_time_ms", "vendor_time_ms",
 *   "speedup", "sol_fraction", "sol_score", "t_sol_ms", "max_abs_err", "max_rel_err" (numbers),
 *   "started_at", "finished_at" (ISO-8601 UTC strings, e.g. from kf_store_utc_now; finished_at
 *   defaults to the time of recording), "machine": {"key": str, ...},
 *   "compile": {"ms": n, "cached": bool, "flags": str, "compiler": str, "key": str, "log": str},
 *   "seeds": [..], "timing": {"candidate": {"samples_ns": [n...], ...}, "reference": {...}, "vendor": {...}}
 * Raw timing samples go into the samples table (evaluation_id, series, idx, ns); the whole object into
 * the details column, with the kforge version beside it. A candidate id that does not exist is
 * KF_EINPUT "no submission with id N"; a field of the wrong type is KF_EINTERNAL (the judge's bug). */
int kf_store_add_evaluation(struct kf_store *s, int64_t candidate_id, const cJSON *result, int64_t *eval_id_out,
			    kf_err *err);

/* For `kforge show ID`: {"submission_id", "task", "task_hash", "backend", "origin", "submitter",
 * "file_name" (null when none), "source_hash", "source", "run_id" (null when none), "created_at",
 * "evaluations": [stored result objects, oldest first, each with "evaluation_id" and "created_at" added]}.
 * Unknown id -> KF_EINPUT "no submission with id N". The caller frees *out with cJSON_Delete. */
int kf_store_get_candidate(struct kf_store *s, int64_t id, cJSON **out, kf_err *err);

/* Helpers for modules that read the store with their own SQL. */
/* KF_EINTERNAL "what: SQLite's message for db's last error". */
int kf_store_fail(sqlite3 *db, kf_err *err, const char *what);
/* A column's text, copied (free it), or NULL for SQL NULL. */
char *kf_store_column_text(sqlite3_stmt *st, int col);
/* A numeric column's value, NAN for NULL (or anything not a number). */
double kf_store_column_number(sqlite3_stmt *st, int col);

/* The current time in the store's timestamp format: "2025-01-31T12:34:56.789Z". */
#define KF_STORE_TIMESTAMP_LEN 25 /* 24 characters + NUL */
void kf_store_utc_now(char out[KF_STORE_TIMESTAMP_LEN]);

#endif
