/* Test support: one-integer queries on a kforge database (see db.h). */
#include "tests/support/db.h"

#include <criterion/criterion.h>

#include "db/store.h"

sqlite3 *kf_test_db_open(const char *path)
{
	sqlite3 *h = NULL;
	cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK, "%s", path);
	sqlite3_busy_timeout(h, KF_STORE_BUSY_TIMEOUT_MS);
	return h;
}

int64_t kf_test_db_try_int(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(st);
	int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	return v;
}

int64_t kf_test_db_int(sqlite3 *h, const char *sql)
{
	int64_t v = kf_test_db_try_int(h, sql);
	cr_assert_geq(v, 0, "%s: %s", sql, sqlite3_errmsg(h));
	return v;
}
