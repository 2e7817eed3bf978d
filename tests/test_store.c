/* Tests for db/store: schema creation and migration guards, round trips of submissions and
 * evaluations, timing samples, rollback of failed writes, and two connections writing at once. */
#include <criterion/criterion.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "common/version.h"
#include "db/store.h"

static char dir[PATH_MAX];
static char db_path[PATH_MAX + 16];

static const char spec_text[] = "{\"name\": \"vector_add\", \"level\": 1}\n";
static char spec_hash[KF_SHA256_HEX_LEN];
static const char source[] = "int kf_launch(const float *x, const float *y, float *out, int n) { return 0; }\n";
static char source_hash[KF_SHA256_HEX_LEN];

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_mkdtemp("/tmp", "kf-store-test-", dir, sizeof dir, &err), KF_OK, "%s", err.msg);
	snprintf(db_path, sizeof db_path, "%s/kforge.db", dir);
	kf_sha256_hex(spec_text, strlen(spec_text), spec_hash);
	kf_sha256_hex(source, strlen(source), source_hash);
}

static void teardown(void) { kf_rm_rf(dir); }

TestSuite(store, .init = setup, .fini = teardown);

static struct kf_store *open_store(void)
{
	struct kf_store *s;
	kf_err err;
	cr_assert_eq(kf_store_open(db_path, &s, &err), KF_OK, "%s", err.msg);
	return s;
}

static int64_t query_int(struct kf_store *s, const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(kf_store_db(s), sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(kf_store_db(s)));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s returned no row", sql);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The first column of the first row as text ("" for NULL), or NULL when there is no row. */
static char *query_text(struct kf_store *s, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;
	cr_assert_eq(sqlite3_prepare_v2(kf_store_db(s), sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(kf_store_db(s)));
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		v = kf_xstrdup(t ? (const char *)t : "");
	}
	sqlite3_finalize(st);
	return v;
}

static void put_task(struct kf_store *s)
{
	kf_err err;
	cr_assert_eq(kf_store_put_task(s, "vector_add", spec_hash, spec_text, &err), KF_OK, "%s", err.msg);
}

static const struct kf_candidate_rec demo_candidate = {
	.task = "vector_add",
	.task_hash = spec_hash,
	.backend = "cpu",
	.origin = "submit",
	.submitter = "alice",
	.file_name = "kernels/va.c",
	.source = source,
	.source_hash = source_hash,
	.run_id = 7,
};

static int64_t add_candidate(struct kf_store *s)
{
	int64_t id = 0;
	kf_err err;
	cr_assert_eq(kf_store_add_candidate(s, &demo_candidate, &id, &err), KF_OK, "%s", err.msg);
	cr_assert_gt(id, 0);
	return id;
}

static cJSON *samples_array(int n, int64_t first_ns)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)(first_ns + 3 * i)));
	return a;
}

/* A result carrying every field the store reads, with distinct values. */
static cJSON *full_result(const char *verdict)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "verdict", verdict);
	cJSON_AddStringToObject(r, "reason", "all 24 trials within tolerance");
	cJSON_AddNumberToObject(r, "time_ms", 1.25);
	cJSON_AddNumberToObject(r, "ref_time_ms", 2.5);
	cJSON_AddNumberToObject(r, "vendor_time_ms", 1.125);
	cJSON_AddNumberToObject(r, "speedup", 2.0);
	cJSON_AddNumberToObject(r, "sol_fraction", 0.6180339887498949);
	cJSON_AddNumberToObject(r, "sol_score", 0.75);
	cJSON_AddNumberToObject(r, "t_sol_ms", 0.7725);
	cJSON_AddNumberToObject(r, "max_abs_err", 1.1920929e-07);
	cJSON_AddNumberToObject(r, "max_rel_err", 3.5e-06);
	cJSON_AddStringToObject(r, "started_at", "2025-01-31T12:00:00.000Z");
	cJSON_AddStringToObject(r, "finished_at", "2025-01-31T12:00:03.500Z");
	cJSON *m = cJSON_AddObjectToObject(r, "machine");
	cJSON_AddStringToObject(m, "key", "cpu:epyc-9654:96");
	cJSON_AddStringToObject(m, "cpu", "AMD EPYC 9654");
	cJSON *c = cJSON_AddObjectToObject(r, "compile");
	cJSON_AddNumberToObject(c, "ms", 412.5);
	cJSON_AddBoolToObject(c, "cached", 1);
	cJSON_AddStringToObject(c, "flags", "-O3 -march=native -fopenmp -shared -fPIC");
	cJSON_AddStringToObject(c, "compiler", "gcc 12.2.0");
	cJSON_AddStringToObject(c, "key", "abc123");
	cJSON_AddStringToObject(c, "log", "");
	cJSON *seeds = cJSON_AddArrayToObject(r, "seeds");
	cJSON_AddItemToArray(seeds, cJSON_CreateNumber(1));
	cJSON_AddItemToArray(seeds, cJSON_CreateNumber(4294967295.0));
	cJSON *t = cJSON_AddObjectToObject(r, "timing");
	cJSON *tc = cJSON_AddObjectToObject(t, "candidate");
	cJSON_AddItemToObject(tc, "samples_ns", samples_array(5, 1250000));
	cJSON_AddNumberToObject(tc, "median_ms", 1.25);
	cJSON *tr = cJSON_AddObjectToObject(t, "reference");
	cJSON_AddItemToObject(tr, "samples_ns", samples_array(3, 2500000));
	cJSON *tv = cJSON_AddObjectToObject(t, "vendor");
	cJSON_AddItemToObject(tv, "samples_ns", samples_array(2, 1234567890123LL));
	return r;
}

static int64_t add_evaluation(struct kf_store *s, int64_t cand, const cJSON *result)
{
	int64_t id = 0;
	kf_err err;
	cr_assert_eq(kf_store_add_evaluation(s, cand, result, &id, &err), KF_OK, "%s", err.msg);
	cr_assert_gt(id, 0);
	return id;
}

static void expect_string(const cJSON *obj, const char *name, const char *want)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	cr_assert(cJSON_IsString(v), "field %s is not a string", name);
	cr_assert_str_eq(v->valuestring, want, "field %s", name);
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" */
static void expect_timestamp(const char *t)
{
	cr_assert_eq(strlen(t), (size_t)KF_STORE_TIMESTAMP_LEN - 1, "timestamp %s", t);
	cr_assert(t[4] == '-' && t[7] == '-' && t[10] == 'T' && t[13] == ':' && t[16] == ':' && t[19] == '.' &&
			  t[23] == 'Z',
		  "timestamp %s is not ISO-8601 UTC", t);
}

Test(store, creates_the_schema_in_wal_mode_with_a_user_version)
{
	struct kf_store *s = open_store();
	int latest = kf_store_latest_schema_version();
	cr_assert_geq(latest, 1);
	cr_assert_eq(kf_store_schema_version(s), latest);
	cr_assert_eq(query_int(s, "PRAGMA user_version"), latest);
	cr_assert_neq(query_int(s, "PRAGMA application_id"), 0, "the file is not marked as kforge's");
	char *mode = query_text(s, "PRAGMA journal_mode");
	cr_assert_str_eq(mode, "wal");
	free(mode);
	cr_assert_eq(query_int(s, "PRAGMA foreign_keys"), 1);
	cr_assert_eq(query_int(s, "PRAGMA busy_timeout"), KF_STORE_BUSY_TIMEOUT_MS);
	static const char *const tables[] = { "tasks", "candidates", "evaluations", "samples", "calibrations" };
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		char sql[256];
		snprintf(sql, sizeof sql, "SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = '%s'",
			 tables[i]);
		cr_assert_eq(query_int(s, sql), 1, "table %s is missing or not STRICT", tables[i]);
	}
	kf_store_close(s);
}

Test(store, reopens_an_existing_database_without_migrating_again)
{
	struct kf_store *s = open_store();
	put_task(s);
	int64_t cand = add_candidate(s);
	int latest = kf_store_schema_version(s);
	kf_store_close(s);

	s = open_store();
	cr_assert_eq(kf_store_schema_version(s), latest);
	cr_assert_eq(query_int(s, "PRAGMA user_version"), latest);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM candidates"), 1);
	cJSON *got;
	kf_err err;
	cr_assert_eq(kf_store_get_candidate(s, cand, &got, &err), KF_OK, "%s", err.msg);
	cJSON_Delete(got);
	kf_store_close(s);
}

Test(store, refuses_a_database_from_a_newer_kforge_naming_both_versions)
{
	struct kf_store *s = open_store();
	int latest = kf_store_schema_version(s);
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", latest + 1);
	cr_assert_eq(sqlite3_exec(kf_store_db(s), sql, NULL, NULL, NULL), SQLITE_OK);
	kf_store_close(s);

	kf_err err;
	s = (struct kf_store *)&err; /* must be reset to NULL on failure */
	cr_assert_eq(kf_store_open(db_path, &s, &err), KF_EINPUT);
	cr_assert_null(s);
	char newer[64], known[64];
	snprintf(newer, sizeof newer, "schema version %d", latest + 1);
	snprintf(known, sizeof known, "up to %d", latest);
	cr_assert(strstr(err.msg, newer) && strstr(err.msg, known) && strstr(err.msg, db_path),
		  "message does not name both versions and the file: %s", err.msg);

	sqlite3 *raw;
	cr_assert_eq(sqlite3_open(db_path, &raw), SQLITE_OK);
	sqlite3_stmt *st;
	sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, NULL);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_eq(sqlite3_column_int(st, 0), latest + 1, "the newer database was modified");
	sqlite3_finalize(st);
	sqlite3_close(raw);
}

Test(store, refuses_a_file_that_is_not_a_sqlite_database_and_leaves_it_alone)
{
	kf_buf text = KF_BUF_INIT;
	for (int i = 0; i < 64; i++)
		kf_buf_addf(&text, "line %d of a results file, not a database\n", i);
	kf_err err;
	cr_assert_eq(kf_write_file(db_path, text.data, text.len, &err), KF_OK, "%s", err.msg);

	struct kf_store *s;
	cr_assert_eq(kf_store_open(db_path, &s, &err), KF_EINPUT);
	cr_assert(strstr(err.msg, "not a SQLite database") && strstr(err.msg, db_path), "message: %s", err.msg);

	char *after;
	size_t len;
	cr_assert_eq(kf_read_file(db_path, 1 << 20, &after, &len, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(len, text.len);
	cr_assert_eq(memcmp(after, text.data, len), 0, "the file was modified");
	free(after);
	kf_buf_free(&text);
}

Test(store, refuses_another_programs_sqlite_database_without_touching_it)
{
	sqlite3 *raw;
	cr_assert_eq(sqlite3_open(db_path, &raw), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(raw, "CREATE TABLE photos (path TEXT); PRAGMA user_version = 1", NULL, NULL, NULL),
		     SQLITE_OK);
	sqlite3_close(raw);

	struct kf_store *s;
	kf_err err;
	cr_assert_eq(kf_store_open(db_path, &s, &err), KF_EINPUT);
	cr_assert(strstr(err.msg, "not a kforge one") && strstr(err.msg, db_path), "message: %s", err.msg);

	cr_assert_eq(sqlite3_open(db_path, &raw), SQLITE_OK);
	sqlite3_stmt *st;
	sqlite3_prepare_v2(raw, "SELECT group_concat(name) FROM sqlite_master", -1, &st, NULL);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "photos", "kforge tables were added");
	sqlite3_finalize(st);
	sqlite3_close(raw);
}

Test(store, refuses_a_database_in_a_directory_that_does_not_exist)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/missing/kforge.db", dir);
	struct kf_store *s;
	kf_err err;
	cr_assert_eq(kf_store_open(path, &s, &err), KF_EINPUT);
	cr_assert(strstr(err.msg, path), "message does not name the file: %s", err.msg);
}

Test(store, round_trips_a_submission_and_its_evaluations_with_every_field)
{
	struct kf_store *s = open_store();
	put_task(s);
	int64_t cand = add_candidate(s);
	cJSON *first = full_result("ok");
	cJSON *second = full_result("wrong_answer");
	int64_t e1 = add_evaluation(s, cand, first);
	int64_t e2 = add_evaluation(s, cand, second);
	cr_assert_gt(e2, e1);

	cJSON *got;
	kf_err err;
	cr_assert_eq(kf_store_get_candidate(s, cand, &got, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(got, "submission_id")->valuedouble, (double)cand);
	expect_string(got, "task", "vector_add");
	expect_string(got, "task_hash", spec_hash);
	expect_string(got, "backend", "cpu");
	expect_string(got, "origin", "submit");
	expect_string(got, "submitter", "alice");
	expect_string(got, "file_name", "kernels/va.c");
	expect_string(got, "source_hash", source_hash);
	expect_string(got, "source", source);
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(got, "run_id")->valuedouble, 7.0);
	expect_timestamp(cJSON_GetObjectItemCaseSensitive(got, "created_at")->valuestring);

	cJSON *evals = cJSON_GetObjectItemCaseSensitive(got, "evaluations");
	cr_assert_eq(cJSON_GetArraySize(evals), 2);
	const cJSON *want[] = { first, second };
	const int64_t ids[] = { e1, e2 };
	for (int i = 0; i < 2; i++) {
		cJSON *e = cJSON_GetArrayItem(evals, i);
		cr_assert_eq(cJSON_GetObjectItemCaseSensitive(e, "evaluation_id")->valuedouble, (double)ids[i]);
		expect_timestamp(cJSON_GetObjectItemCaseSensitive(e, "created_at")->valuestring);
		cJSON_DeleteItemFromObjectCaseSensitive(e, "evaluation_id");
		cJSON_DeleteItemFromObjectCaseSensitive(e, "created_at");
		cr_assert(cJSON_Compare(e, want[i], 1), "evaluation %d did not round-trip", i);
	}
	cJSON_Delete(got);
	cJSON_Delete(first);
	cJSON_Delete(second);
	kf_store_close(s);
}

Test(store, keeps_key_result_fields_as_queryable_columns)
{
	struct kf_store *s = open_store();
	put_task(s);
	cJSON *r = full_result("ok");
	int64_t e = add_evaluation(s, add_candidate(s), r);
	char sql[512];
	snprintf(sql, sizeof sql,
		 "SELECT verdict || '|' || reason || '|' || time_ms || '|' || ref_time_ms || '|' || vendor_time_ms"
		 " || '|' || speedup || '|' || sol_score || '|' || t_sol_ms || '|' || max_rel_err || '|' || machine_key"
		 " || '|' || compile_ms || '|' || compile_cached || '|' || compile_flags || '|' || compiler || '|'"
		 " || compile_key || '|' || seeds || '|' || kforge_version || '|' || started_at || '|' || finished_at"
		 " FROM evaluations WHERE id = %lld",
		 (long long)e);
	char *row = query_text(s, sql);
	cr_assert_str_eq(row, "ok|all 24 trials within tolerance|1.25|2.5|1.125|2.0|0.75|0.7725|3.5e-06"
			      "|cpu:epyc-9654:96|412.5|1|-O3 -march=native -fopenmp -shared -fPIC|gcc 12.2.0|abc123"
			      "|[1,4294967295]|" KF_VERSION_STRING "|2025-01-31T12:00:00.000Z|2025-01-31T12:00:03.500Z");
	free(row);
	snprintf(sql, sizeof sql, "SELECT sol_fraction = 0.6180339887498949 FROM evaluations WHERE id = %lld",
		 (long long)e);
	cr_assert_eq(query_int(s, sql), 1);
	cJSON_Delete(r);
	kf_store_close(s);
}

Test(store, stores_timing_samples_in_order_per_series)
{
	struct kf_store *s = open_store();
	put_task(s);
	cJSON *r = full_result("ok");
	int64_t e = add_evaluation(s, add_candidate(s), r);
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(kf_store_db(s),
					"SELECT series, idx, ns FROM samples WHERE evaluation_id = ?"
					" ORDER BY series, idx",
					-1, &st, NULL),
		     SQLITE_OK);
	sqlite3_bind_int64(st, 1, e);
	static const struct {
		const char *series;
		int n;
		int64_t first_ns;
	} want[] = { { "candidate", 5, 1250000 }, { "reference", 3, 2500000 }, { "vendor", 2, 1234567890123LL } };
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		for (int i = 0; i < want[k].n; i++) {
			cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "missing %s[%d]", want[k].series, i);
			cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), want[k].series);
			cr_assert_eq(sqlite3_column_int64(st, 1), i);
			cr_assert_eq(sqlite3_column_int64(st, 2), want[k].first_ns + 3 * i, "%s[%d]", want[k].series, i);
		}
	}
	cr_assert_eq(sqlite3_step(st), SQLITE_DONE, "extra samples stored");
	sqlite3_finalize(st);
	cJSON_Delete(r);
	kf_store_close(s);
}

Test(store, stores_missing_numbers_as_null_and_defaults_finished_at_to_now)
{
	struct kf_store *s = open_store();
	put_task(s);
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "verdict", "compile_error");
	cJSON_AddStringToObject(r, "reason", "va.c:1: expected ';'");
	cJSON_AddNullToObject(r, "speedup");
	char before[KF_STORE_TIMESTAMP_LEN], after[KF_STORE_TIMESTAMP_LEN];
	kf_store_utc_now(before);
	int64_t e = add_evaluation(s, add_candidate(s), r);
	kf_store_utc_now(after);

	char sql[256];
	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM evaluations WHERE id = %lld AND time_ms IS NULL AND speedup IS NULL"
		 " AND sol_fraction IS NULL AND max_abs_err IS NULL AND machine_key IS NULL AND compile_cached IS NULL"
		 " AND seeds IS NULL AND started_at IS NULL",
		 (long long)e);
	cr_assert_eq(query_int(s, sql), 1);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM samples"), 0);
	snprintf(sql, sizeof sql, "SELECT finished_at FROM evaluations WHERE id = %lld", (long long)e);
	char *finished = query_text(s, sql);
	expect_timestamp(finished);
	cr_assert(strcmp(before, finished) <= 0 && strcmp(finished, after) <= 0, "%s not within [%s, %s]", finished,
		  before, after);
	free(finished);
	cJSON_Delete(r);
	kf_store_close(s);
}

Test(store, refuses_an_evaluation_of_a_missing_submission_without_writing_anything)
{
	struct kf_store *s = open_store();
	put_task(s);
	add_candidate(s);
	cJSON *r = full_result("ok");
	int64_t id = -1;
	kf_err err;
	cr_assert_eq(kf_store_add_evaluation(s, 4242, r, &id, &err), KF_EINPUT);
	cr_assert(strstr(err.msg, "no submission with id 4242"), "message: %s", err.msg);
	cr_assert_eq(id, -1, "an id was reported for a failed write");
	cr_assert_eq(query_int(s, "SELECT count(*) FROM evaluations"), 0);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM samples"), 0);
	cJSON_Delete(r);
	kf_store_close(s);
}

Test(store, rolls_back_an_evaluation_whose_samples_are_malformed)
{
	struct kf_store *s = open_store();
	put_task(s);
	int64_t cand = add_candidate(s);
	cJSON *r = full_result("ok");
	cJSON *vendor = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "timing"), "vendor");
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(vendor, "samples_ns"), cJSON_CreateNumber(-5));
	int64_t id;
	kf_err err;
	cr_assert_eq(kf_store_add_evaluation(s, cand, r, &id, &err), KF_EINTERNAL);
	cr_assert(strstr(err.msg, "timing.vendor.samples_ns[2]"), "message: %s", err.msg);
	/* The evaluation row and the candidate/reference samples went in before the bad one. */
	cr_assert_eq(query_int(s, "SELECT count(*) FROM evaluations"), 0);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM samples"), 0);
	cJSON_Delete(r);
	kf_store_close(s);
}

Test(store, rolls_back_a_write_that_runs_out_of_space_and_keeps_earlier_rows)
{
	struct kf_store *s = open_store();
	put_task(s);
	int64_t cand = add_candidate(s);
	cJSON *r = full_result("ok");
	int64_t e1 = add_evaluation(s, cand, r);
	int64_t samples_before = query_int(s, "SELECT count(*) FROM samples");

	/* Freeze the file at its current size: the next write that needs a page fails with SQLITE_FULL. */
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld", (long long)query_int(s, "PRAGMA page_count"));
	cr_assert_eq(sqlite3_exec(kf_store_db(s), sql, NULL, NULL, NULL), SQLITE_OK);
	cJSON *big = full_result("ok");
	cJSON *cand_timing =
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(big, "timing"), "candidate");
	cJSON_ReplaceItemInObjectCaseSensitive(cand_timing, "samples_ns", samples_array(20000, 1000));
	int64_t id = -1;
	kf_err err;
	cr_assert_eq(kf_store_add_evaluation(s, cand, big, &id, &err), KF_EINTERNAL);
	cr_assert(strstr(err.msg, "full"), "message does not say the database is full: %s", err.msg);
	cr_assert_eq(id, -1);

	cr_assert_eq(query_int(s, "SELECT count(*) FROM evaluations"), 1);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM samples"), samples_before);
	cJSON *got;
	cr_assert_eq(kf_store_get_candidate(s, cand, &got, &err), KF_OK, "%s", err.msg);
	cJSON *evals = cJSON_GetObjectItemCaseSensitive(got, "evaluations");
	cr_assert_eq(cJSON_GetArraySize(evals), 1);
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(evals, 0), "evaluation_id")->valuedouble,
		     (double)e1);
	cJSON_Delete(got);

	/* Once there is room again the same handle writes normally. */
	cr_assert_eq(sqlite3_exec(kf_store_db(s), "PRAGMA max_page_count = 1000000", NULL, NULL, NULL), SQLITE_OK);
	add_evaluation(s, cand, big);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM samples"), samples_before + 20000 + 3 + 2);
	cJSON_Delete(big);
	cJSON_Delete(r);
	kf_store_close(s);
}

struct writer {
	struct kf_store *s;
	int64_t cand;
	int n_evaluations;
	int failures;
	kf_err err;
	int64_t elapsed_ns;
};

static void *write_evaluations(void *arg)
{
	struct writer *w = arg;
	cJSON *r = full_result("ok");
	int64_t start = kf_now_ns();
	for (int i = 0; i < w->n_evaluations; i++) {
		int64_t id;
		if (kf_store_add_evaluation(w->s, w->cand, r, &id, &w->err) != KF_OK)
			w->failures++;
	}
	w->elapsed_ns = kf_now_ns() - start;
	cJSON_Delete(r);
	return NULL;
}

Test(store, waits_for_another_connections_write_instead_of_failing)
{
	enum { HOLD_MS = 300 };
	struct kf_store *a = open_store(), *b = open_store();
	put_task(a);
	int64_t cand = add_candidate(a);
	kf_err err;
	cr_assert_eq(kf_store_begin(a, &err), KF_OK, "%s", err.msg);

	struct writer w = { .s = b, .cand = cand, .n_evaluations = 1 };
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, write_evaluations, &w), 0);
	struct timespec hold = { 0, HOLD_MS * 1000000L };
	nanosleep(&hold, NULL);
	cr_assert_eq(kf_store_commit(a, &err), KF_OK, "%s", err.msg);
	pthread_join(t, NULL);

	cr_assert_eq(w.failures, 0, "the waiting writer failed: %s", w.err.msg);
	cr_assert_geq(kf_ns_to_ms(w.elapsed_ns), HOLD_MS / 2, "the write did not wait for the lock");
	cr_assert_eq(query_int(a, "SELECT count(*) FROM evaluations"), 1);
	kf_store_close(b);
	kf_store_close(a);
}

Test(store, interleaves_writes_from_two_handles_on_one_file)
{
	enum { PER_WRITER = 40 };
	struct kf_store *a = open_store(), *b = open_store();
	put_task(a);
	int64_t cand = add_candidate(b);
	struct writer wa = { .s = a, .cand = cand, .n_evaluations = PER_WRITER };
	struct writer wb = { .s = b, .cand = cand, .n_evaluations = PER_WRITER };
	pthread_t ta, tb;
	cr_assert_eq(pthread_create(&ta, NULL, write_evaluations, &wa), 0);
	cr_assert_eq(pthread_create(&tb, NULL, write_evaluations, &wb), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);

	cr_assert_eq(wa.failures, 0, "writer a: %s", wa.err.msg);
	cr_assert_eq(wb.failures, 0, "writer b: %s", wb.err.msg);
	cr_assert_eq(query_int(a, "SELECT count(*) FROM evaluations"), 2 * PER_WRITER);
	cr_assert_eq(query_int(b, "SELECT count(*) FROM samples"), 2 * PER_WRITER * (5 + 3 + 2));
	kf_store_close(b);
	kf_store_close(a);
}

Test(store, replaces_a_machine_calibration_on_put)
{
	struct kf_store *s = open_store();
	char *json = (char *)"unset";
	kf_err err;
	cr_assert_eq(kf_store_get_calibration(s, "cpu:epyc", &json, &err), KF_OK, "%s", err.msg);
	cr_assert_null(json, "a machine never calibrated has a calibration");

	cr_assert_eq(kf_store_put_calibration(s, "cpu:epyc", "{\"gbps\": 100}", &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_store_put_calibration(s, "cpu:epyc", "{\"gbps\": 120}", &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_store_put_calibration(s, "cpu:other", "{\"gbps\": 5}", &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_store_get_calibration(s, "cpu:epyc", &json, &err), KF_OK, "%s", err.msg);
	cr_assert_str_eq(json, "{\"gbps\": 120}");
	free(json);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM calibrations"), 2);
	kf_store_close(s);
}

Test(store, refuses_a_calibration_that_is_not_json)
{
	struct kf_store *s = open_store();
	kf_err err;
	cr_assert_eq(kf_store_put_calibration(s, "cpu:epyc", "{gbps: 100", &err), KF_EINTERNAL);
	cr_assert(strstr(err.msg, "cpu:epyc"), "message: %s", err.msg);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM calibrations"), 0);
	kf_store_close(s);
}

Test(store, stores_a_task_spec_once_however_often_it_is_put)
{
	struct kf_store *s = open_store();
	put_task(s);
	put_task(s);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM tasks"), 1);
	char *stored = query_text(s, "SELECT spec_text FROM tasks WHERE name = 'vector_add'");
	cr_assert_str_eq(stored, spec_text);
	free(stored);
	kf_store_close(s);
}

Test(store, refuses_a_submission_whose_task_spec_was_never_stored)
{
	struct kf_store *s = open_store();
	int64_t id = -1;
	kf_err err;
	cr_assert_eq(kf_store_add_candidate(s, &demo_candidate, &id, &err), KF_EINTERNAL);
	cr_assert(strstr(err.msg, spec_hash) && strstr(err.msg, "never stored"), "message: %s", err.msg);
	cr_assert_eq(id, -1);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM candidates"), 0);
	kf_store_close(s);
}

Test(store, refuses_a_submission_whose_source_does_not_match_its_hash)
{
	struct kf_store *s = open_store();
	put_task(s);
	struct kf_candidate_rec c = demo_candidate;
	c.source = "int kf_launch(void) { return 1; }\n";
	int64_t id;
	kf_err err;
	cr_assert_eq(kf_store_add_candidate(s, &c, &id, &err), KF_EINTERNAL);
	cr_assert(strstr(err.msg, "does not match"), "message: %s", err.msg);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM candidates"), 0);
	kf_store_close(s);
}

Test(store, stores_a_manual_submission_without_run_or_file_name_as_null)
{
	struct kf_store *s = open_store();
	put_task(s);
	struct kf_candidate_rec c = demo_candidate;
	c.file_name = NULL;
	c.run_id = 0;
	int64_t id;
	kf_err err;
	cr_assert_eq(kf_store_add_candidate(s, &c, &id, &err), KF_OK, "%s", err.msg);
	cJSON *got;
	cr_assert_eq(kf_store_get_candidate(s, id, &got, &err), KF_OK, "%s", err.msg);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(got, "file_name")));
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(got, "run_id")));
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(got, "evaluations")), 0);
	cJSON_Delete(got);
	kf_store_close(s);
}

Test(store, refuses_a_result_without_a_verdict)
{
	struct kf_store *s = open_store();
	put_task(s);
	int64_t cand = add_candidate(s);
	cJSON *r = full_result("ok");
	cJSON_DeleteItemFromObjectCaseSensitive(r, "verdict");
	int64_t id;
	kf_err err;
	cr_assert_eq(kf_store_add_evaluation(s, cand, r, &id, &err), KF_EINTERNAL);
	cr_assert(strstr(err.msg, "verdict"), "message: %s", err.msg);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM evaluations"), 0);
	cJSON_Delete(r);
	kf_store_close(s);
}

Test(store, refuses_a_result_field_of_the_wrong_type)
{
	struct kf_store *s = open_store();
	put_task(s);
	int64_t cand = add_candidate(s);
	cJSON *r = full_result("ok");
	cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "compile"), "ms",
					       cJSON_CreateString("fast"));
	int64_t id;
	kf_err err;
	cr_assert_eq(kf_store_add_evaluation(s, cand, r, &id, &err), KF_EINTERNAL);
	cr_assert(strstr(err.msg, "compile.ms"), "message: %s", err.msg);
	cr_assert_eq(query_int(s, "SELECT count(*) FROM evaluations"), 0);
	cJSON_Delete(r);
	kf_store_close(s);
}

Test(store, reports_an_unknown_submission_id_as_an_input_error)
{
	struct kf_store *s = open_store();
	cJSON *got = (cJSON *)&got;
	kf_err err;
	cr_assert_eq(kf_store_get_candidate(s, 42, &got, &err), KF_EINPUT);
	cr_assert_str_eq(err.msg, "no submission with id 42");
	cr_assert_null(got);
	kf_store_close(s);
}
