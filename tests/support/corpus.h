/* Test support: judges one kernel of a test corpus (a directory of kernel files whose first line is
 * "/\* kforge-test: task=T expect=V [reason~=S] [limit_s=N] *\/") through `kforge submit --backend B`
 * and asserts what every corpus suite asserts: the verdict, the reason, the exit code, that kforge
 * finished in time without crashing, that the evaluation was recorded, and that no secret leaked.
 * Shared by the CPU suite and the GPU suites; the suites own their kernel lists. */
#ifndef KF_TEST_CORPUS_H
#define KF_TEST_CORPUS_H

#include <limits.h>
#include <stddef.h>

#include "common/err.h"
#include "eval/tasks/task.h"
#include "tests/support/cli.h"

#define KF_CORPUS_DEFAULT_LIMIT_S 60.0
#define KF_CORPUS_MAX_LIMIT_S 240.0
/* kforge may overrun its limit by this much before it is killed, so an overrun is measured, not hidden. */
#define KF_CORPUS_OVERRUN_MARGIN_S 30.0
/* Criterion's limit for a test that judges one kernel: above MAX_LIMIT_S + OVERRUN_MARGIN_S + the `show` call. */
#define KF_CORPUS_TEST_TIMEOUT_S 330.0

/* The highest SOL fraction an `ok` CUDA kernel can have: above it the judge says faster_than_light. */
#define KF_CORPUS_CUDA_SOL_FRACTION_MAX 1.05

/* A directory of kernels judged on one backend. */
struct kf_corpus {
	const char *dir;            /* relative to KFORGE_HOME, e.g. "tests/kernels/cuda" */
	const char *ext;            /* file name ending, e.g. ".cu" */
	const char *backend;        /* "cpu" or "cuda" */
	const char *call_timeout_s; /* passed to submit as --call-timeout; NULL keeps kforge's default */
	const char *const *names;   /* the suite's list of kernels (file names without ext) */
	size_t n_names;
};

/* What a kernel must get, from its header line. */
struct kf_corpus_spec {
	char task[KF_NAME_MAX];
	char expect[KF_NAME_MAX];
	char reason[KF_NAME_MAX]; /* case-insensitive substring the reason must contain; "" = any */
	double limit_s;
};

/* One test's state: a private directory (holding the database) and the latest kforge outputs,
 * kept so a suite can check more fields; freed by kf_corpus_run_free even after a failed assertion. */
struct kf_corpus_run {
	char tmpdir[PATH_MAX];
	char db[PATH_MAX];
	struct kf_cli_result submit; /* the latest `kforge submit --json` */
	struct kf_cli_result show;   /* the latest `kforge show --json` of that submission */
};

/* Suite .init / .fini hooks for a `static struct kf_corpus_run`. */
void kf_corpus_run_init(struct kf_corpus_run *run);
void kf_corpus_run_free(struct kf_corpus_run *run);

/* Reads the header line of a kernel's text; errors name path, line and reason. */
int kf_corpus_parse_header(const char *path, const char *text, struct kf_corpus_spec *spec, kf_err *err);

/* KFORGE_HOME/<dir>/<name><ext>; asserts it fits. */
void kf_corpus_path(const struct kf_corpus *c, const char *name, char *out, size_t out_len);

/* Reads and parses the header of kernel `name`; asserts it is well formed. */
void kf_corpus_load_spec(const struct kf_corpus *c, const char *name, struct kf_corpus_spec *spec);

/* Submits the file at path (test name `name` in messages) and asserts everything against spec. */
void kf_corpus_judge_file(struct kf_corpus_run *run, const struct kf_corpus *c, const char *name, const char *path,
			  const struct kf_corpus_spec *spec);

/* kf_corpus_load_spec + kf_corpus_judge_file for kernel `name` of the corpus. */
void kf_corpus_judge(struct kf_corpus_run *run, const struct kf_corpus *c, const char *name);

/* Judges <dir>/<task><ext>, a correct kernel without a header line: it must get ok on `task`
 * within limit_s. */
void kf_corpus_judge_correct(struct kf_corpus_run *run, const struct kf_corpus *c, const char *task, double limit_s);

/* The latest submission got ok with time_ms, ref_time_ms, speedup (= ref_time_ms / time_ms) and
 * sol_fraction (in (0, sol_fraction_max]) positive numbers and sol_score a number, and its recorded
 * evaluation holds the same numbers. */
void kf_corpus_expect_timed_ok(const struct kf_corpus_run *run, const char *name, double sol_fraction_max);

/* Every file in c->dir ending in c->ext is in c->names, and every name has a file. */
void kf_corpus_expect_listing_matches_dir(const struct kf_corpus *c);

/* The last evaluation in run->show (asserted present). */
const cJSON *kf_corpus_recorded_evaluation(const struct kf_corpus_run *run);

/* Skips the calling test, with a message saying why, unless an NVIDIA GPU is present and
 * kforge's CUDA runner and device library were built next to it. */
void kf_corpus_require_gpu(void);

#endif
