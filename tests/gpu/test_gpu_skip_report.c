/* Says how many GPU tests skipped themselves: Criterion's synthesis counts only the tests that ran
 * and prints skips only with --verbose, so a machine without a GPU would otherwise look like a
 * short, green run. Holds no test. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>

/* A test that skipped itself carries its reason; one left out by --filter carries none. */
static bool has_reason(const struct criterion_test_stats *t)
{
	return t->message && *t->message;
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	size_t n_skipped = 0, n_tests = 0;
	for (const struct criterion_suite_stats *s = stats->suites; s; s = s->next) {
		for (const struct criterion_test_stats *t = s->tests; t; t = t->next) {
			bool skipped = t->test_status == CR_STATUS_SKIPPED;
			n_tests += !skipped || has_reason(t);
			n_skipped += skipped && has_reason(t);
		}
	}
	if (n_skipped)
		fprintf(stderr, "kforge-gpu-tests: %zu of %zu tests skipped themselves (run with --verbose for the reasons)\n",
			n_skipped, n_tests);
}
