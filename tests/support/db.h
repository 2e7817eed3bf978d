/* Test support: reading a kforge database from a test (opened read-write with kforge's busy
 * timeout, so a test can look while kforge still writes), one integer per query. */
#ifndef KF_TEST_DB_H
#define KF_TEST_DB_H

#include <stdint.h>

#include <sqlite3.h>

/* Opens path; asserts it opens. */
sqlite3 *kf_test_db_open(const char *path);
/* The first column of the first row, or -1 when the query fails (a database kforge is still
 * creating has no tables yet). */
int64_t kf_test_db_try_int(sqlite3 *h, const char *sql);
/* The same; asserts the query answered. */
int64_t kf_test_db_int(sqlite3 *h, const char *sql);

#endif
