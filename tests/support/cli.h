/* Test support: runs the kforge binary (build/kforge, next to the test binary) as a child
 * process with arguments, extra environment and a wall timeout, captures its stdout, stderr
 * and exit status, and parses stdout as JSON. Also the checks every CLI-level test shares
 * (the one-line error contract, typed JSON field access, a private temp directory). */
#ifndef KF_TEST_CLI_H
#define KF_TEST_CLI_H

#include <cJSON.h>
#include <limits.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* Bytes of each captured stream kept; the rest is read and dropped so the child never blocks. */
#define KF_CLI_OUTPUT_MAX (16u << 20)

struct kf_cli_result {
	int exit_code;        /* -1 when the child did not exit by itself */
	int term_signal;      /* the signal that ended it, or 0 */
	bool timed_out;       /* the wall limit ran out and the child's process group was killed */
	double wall_s;
	char *out, *err;      /* NUL-terminated, at most KF_CLI_OUTPUT_MAX bytes each */
	size_t out_len, err_len;
	cJSON *json;          /* all of stdout parsed as one JSON value, or NULL */
};

/* The kforge under test: $KFORGE_TEST_KFORGE (make test KFORGE_INSTALLED=DIR sets it to an installed
 * DIR/bin/kforge, which then runs without KFORGE_HOME), else <directory of the running test binary>/kforge. */
#define KF_CLI_INSTALLED_ENV "KFORGE_TEST_KFORGE"
const char *kf_cli_kforge_path(void);

/* Runs kforge with args (NULL-terminated, without the program name) and the test's environment
 * plus env ("NAME=VALUE" entries, NULL-terminated, may be NULL; they replace inherited ones of
 * the same name). Stdin is /dev/null. Fails only when the child cannot be started. */
int kf_cli_run(const char *const *args, const char *const *env, double timeout_s, struct kf_cli_result *res,
	       kf_err *err);
void kf_cli_result_free(struct kf_cli_result *res);

/* Starts kforge with args (NULL-terminated, without the program name, at most 38) in its own process
 * group, its stdout and stderr in dir/run.out and dir/run.err; returns its pid, for the caller to signal
 * and reap (a run killed mid-way). */
pid_t kf_cli_spawn(const char *const *args, const char *dir);

/* The error contract: stderr is exactly one line, starting with "kforge: ". */
bool kf_cli_is_one_error_line(const struct kf_cli_result *res);

/* Typed access to a JSON object's member: NULL / false when absent or of another type. */
const char *kf_cli_json_str(const cJSON *obj, const char *key);
bool kf_cli_json_num(const cJSON *obj, const char *key, double *out);

/* Writes the file prelude (relative to kforge's home) followed by body (relative too) to out: an
 * attack prelude put in front of an honest kernel, so attacker and control share one computation. */
int kf_cli_join_kernel(const char *prelude, const char *body, const char *out, kf_err *err);

/* A fresh private directory for one test ("/tmp/kforge-test-XXXXXX"); remove it with kf_rm_rf. */
int kf_cli_tmpdir(char out[PATH_MAX], kf_err *err);

#endif
