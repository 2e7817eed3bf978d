/* The weak verifiers (eval/rank/verify.c): votes read from the judge's record, extra runs that catch what
 * the judge's default tests miss (hidden shapes, stress inputs on ragged shapes, outputs that change
 * between runs) on a handful of corpus kernels, the static checks, consensus over a pool, and clean
 * abstention where a verifier cannot say anything (CPU candidates for compute-sanitizer, CUDA ones on
 * a machine without a GPU). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "eval/judge/area.h"
#include "eval/judge/judge.h"
#include "eval/rank/verify.h"

#define MAX_KERNEL (256u << 10)

static char *read_kernel(const char *rel, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", kf_home(), rel);
	char *src;
	kf_err err;
	cr_assert_eq(kf_read_file(path, MAX_KERNEL, &src, len, &err), KF_OK, "%s", err.msg);
	return src;
}

static struct kf_task *task(const char *name)
{
	struct kf_task *t;
	kf_err err;
	cr_assert_eq(kf_task_find(NULL, name, &t, &err), KF_OK, "%s", err.msg);
	return t;
}

/* A judge record as kf_judge_evaluate writes it, reduced to what the verifiers read. */
static cJSON *judge_record(const char *verdict, double margin, double rse, double ref_rse)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "verdict", verdict);
	cJSON_AddStringToObject(r, "reason", strcmp(verdict, "ok") ? "made up for the test" : "passed every check");
	cJSON_AddNumberToObject(r, "error_margin", margin);
	cJSON *trials = cJSON_AddArrayToObject(r, "trials");
	static const char *const sets[] = { "test", "ragged", "stress" };
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "set", sets[i]);
		cJSON_AddBoolToObject(t, "pass", !strcmp(verdict, "ok"));
		cJSON_AddItemToArray(trials, t);
	}
	if (rse >= 0) {
		cJSON *timing = cJSON_AddObjectToObject(r, "timing");
		cJSON *c = cJSON_AddObjectToObject(timing, "candidate"), *ref = cJSON_AddObjectToObject(timing, "reference");
		cJSON_AddNumberToObject(c, "rse", rse);
		cJSON_AddNumberToObject(c, "n", 40);
		cJSON_AddNumberToObject(c, "clock_disagreements", 0);
		cJSON_AddNumberToObject(ref, "rse", ref_rse);
		cJSON_AddNumberToObject(ref, "n", 40);
		cJSON_AddNumberToObject(ref, "clock_disagreements", 0);
		cJSON_AddNumberToObject(r, "sol_fraction", 0.3);
	}
	return r;
}

static void verify(const char *task_name, const char *kernel, const cJSON *record, struct kf_verify_result *out)
{
	struct kf_task *t = task(task_name);
	size_t len;
	char *src = read_kernel(kernel, &len);
	struct kf_verify_opts o;
	kf_verify_opts_default(&o);
	o.seed = 42;
	kf_err err;
	cr_assert_eq(kf_verify_candidate(t, src, len, record, &o, out, &err), KF_OK, "%s", err.msg);
	free(src);
	kf_task_free(t);
}

static const char *why(const struct kf_verify_result *r, enum kf_verifier v)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(r->votes[v].evidence, "why"));
	return s ? s : "";
}

#define EXPECT_VOTE(r, v, want)                                                                                \
	cr_expect_eq((r)->votes[v].vote, want, "%s voted %s, expected %s: %s", kf_verifier_name(v),            \
		     kf_vote_name((r)->votes[v].vote), kf_vote_name(want), why(r, v))

TestSuite(verify, .timeout = 180);

Test(verify, names_round_trip_and_every_verifier_has_a_summary)
{
	for (int v = 0; v < KF_VER_COUNT; v++) {
		enum kf_verifier back;
		cr_expect_eq(kf_verifier_parse(kf_verifier_name((enum kf_verifier)v), &back), 0);
		cr_expect_eq((int)back, v);
		cr_expect_gt(strlen(kf_verifier_summary((enum kf_verifier)v)), 20);
	}
	enum kf_verifier x;
	cr_expect_eq(kf_verifier_parse("oracle", &x), -1);
}

Test(verify, a_correct_kernel_passes_everything_that_can_run_on_the_cpu)
{
	cJSON *rec = judge_record("ok", 0.01, 0.004, 0.005);
	struct kf_verify_result r;
	verify("vector_add", "examples/cpu/vector_add.c", rec, &r);
	static const enum kf_verifier pass[] = { KF_VER_TESTS,	      KF_VER_RAGGED, KF_VER_HIDDEN, KF_VER_STRESS,
						 KF_VER_DETERMINISM, KF_VER_ERROR_MARGIN, KF_VER_STATIC, KF_VER_TIMING };
	for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
		EXPECT_VOTE(&r, pass[i], KF_VOTE_PASS);
	EXPECT_VOTE(&r, KF_VER_CONSENSUS, KF_VOTE_ABSTAIN);
	EXPECT_VOTE(&r, KF_VER_MEMCHECK, KF_VOTE_ABSTAIN);
	cr_expect(strstr(why(&r, KF_VER_MEMCHECK), "CUDA"), "%s", why(&r, KF_VER_MEMCHECK));
	cr_expect_not(r.partial);
	/* The benchmark shape, two hidden shapes, the three ragged and two hidden shapes under the one stress
	 * variant. */
	cr_assert_eq(r.n_probes, 8);
	for (int k = 0; k < r.n_probes; k++) {
		cr_expect(r.probes[k].ran);
		cr_expect_gt(r.probes[k].n, 0);
		cr_expect_eq(strlen(r.probes[k].key), KF_PROBE_KEY_LEN - 1);
	}
	kf_verify_result_free(&r);
	cJSON_Delete(rec);
}

Test(verify, reads_error_margin_and_timing_from_the_judges_record)
{
	cJSON *rec = judge_record("ok", 0.8, 0.4, 0.01);
	struct kf_verify_result r;
	verify("vector_add", "examples/cpu/vector_add.c", rec, &r);
	EXPECT_VOTE(&r, KF_VER_ERROR_MARGIN, KF_VOTE_FAIL);
	EXPECT_VOTE(&r, KF_VER_TIMING, KF_VOTE_FAIL);
	cr_expect(strstr(why(&r, KF_VER_TIMING), "standard error"), "%s", why(&r, KF_VER_TIMING));
	kf_verify_result_free(&r);
	cJSON_Delete(rec);
	rec = judge_record("faster_than_light", 0.1, 0.004, 0.004);
	cJSON_ReplaceItemInObject(rec, "sol_fraction", cJSON_CreateNumber(3.0));
	verify("vector_add", "examples/cpu/vector_add.c", rec, &r);
	EXPECT_VOTE(&r, KF_VER_TIMING, KF_VOTE_FAIL);
	EXPECT_VOTE(&r, KF_VER_TESTS, KF_VOTE_PASS);
	kf_verify_result_free(&r);
	cJSON_Delete(rec);
}

Test(verify, hidden_shapes_catch_a_tail_bug_the_default_tests_miss)
{
	/* n % 32 in 16..31 loses elements: only the hidden shape n = 77777 has such a remainder. The
	 * stress verifier runs the hidden shapes too, with stress inputs. */
	cJSON *rec = judge_record("ok", 0.0, 0.004, 0.005);
	struct kf_verify_result r;
	verify("vector_add", "tests/corpus/vector_add/b01_unroll32_tail_mask.c", rec, &r);
	EXPECT_VOTE(&r, KF_VER_HIDDEN, KF_VOTE_FAIL);
	cr_expect(strstr(why(&r, KF_VER_HIDDEN), "n=77777"), "%s", why(&r, KF_VER_HIDDEN));
	EXPECT_VOTE(&r, KF_VER_STRESS, KF_VOTE_FAIL);
	EXPECT_VOTE(&r, KF_VER_RAGGED, KF_VOTE_PASS);
	EXPECT_VOTE(&r, KF_VER_DETERMINISM, KF_VOTE_PASS);
	kf_verify_result_free(&r);
	cJSON_Delete(rec);
}

Test(verify, stress_on_ragged_shapes_catches_an_overflow_the_default_stress_misses)
{
	/* Rows under 64 columns skip the max subtraction: every test shape is wider. */
	cJSON *rec = judge_record("ok", 0.05, 0.004, 0.005);
	struct kf_verify_result r;
	verify("softmax_rows", "tests/corpus/softmax_rows/b02_short_rows_no_max.c", rec, &r);
	EXPECT_VOTE(&r, KF_VER_STRESS, KF_VOTE_FAIL);
	EXPECT_VOTE(&r, KF_VER_HIDDEN, KF_VOTE_PASS);
	EXPECT_VOTE(&r, KF_VER_RAGGED, KF_VOTE_PASS);
	kf_verify_result_free(&r);
	cJSON_Delete(rec);
}

Test(verify, determinism_catches_output_that_changes_between_runs_within_tolerance)
{
	/* Each call perturbs the result by far less than the tolerance, but vector_add asks for bitwise
	 * reproducibility. */
	static const char src[] = "static int calls;\n"
				  "int kf_launch(const float *x, const float *y, float *out, int n)\n"
				  "{\n"
				  "\tfloat bump = (calls++ & 1) ? 1e-7f : 0.0f;\n"
				  "\tfor (int i = 0; i < n; i++)\n"
				  "\t\tout[i] = x[i] + y[i] + bump;\n"
				  "\treturn 0;\n"
				  "}\n";
	struct kf_task *t = task("vector_add");
	cJSON *rec = judge_record("ok", 0.1, 0.004, 0.005);
	struct kf_verify_opts o;
	kf_verify_opts_default(&o);
	struct kf_verify_result r;
	kf_err err;
	cr_assert_eq(kf_verify_candidate(t, src, sizeof src - 1, rec, &o, &r, &err), KF_OK, "%s", err.msg);
	EXPECT_VOTE(&r, KF_VER_DETERMINISM, KF_VOTE_FAIL);
	EXPECT_VOTE(&r, KF_VER_HIDDEN, KF_VOTE_PASS);
	kf_verify_result_free(&r);
	cJSON_Delete(rec);
	kf_task_free(t);
}

Test(verify, a_candidate_that_never_ran_gets_abstentions_not_failures)
{
	cJSON *rec = judge_record("compile_error", 0, -1, 0);
	struct kf_verify_result r;
	verify("vector_add", "examples/cpu/vector_add.c", rec, &r);
	static const enum kf_verifier abstain[] = { KF_VER_TESTS, KF_VER_RAGGED, KF_VER_HIDDEN, KF_VER_STRESS,
						    KF_VER_DETERMINISM, KF_VER_ERROR_MARGIN, KF_VER_TIMING };
	for (size_t i = 0; i < sizeof abstain / sizeof abstain[0]; i++)
		EXPECT_VOTE(&r, abstain[i], KF_VOTE_ABSTAIN);
	EXPECT_VOTE(&r, KF_VER_STATIC, KF_VOTE_PASS);
	cr_expect_eq(r.n_probes, 0);
	kf_verify_result_free(&r);
	cJSON_Delete(rec);
}

Test(verify, cuda_candidates_abstain_cleanly_on_a_machine_without_a_gpu)
{
	const struct kf_area_ops *ops;
	kf_err err;
	if (kf_area_ops_for(KF_BACKEND_CUDA, &ops, &err) == KF_OK)
		cr_skip_test("this machine can run CUDA kernels: the GPU suite covers them");
	struct kf_task *t = task("vector_add");
	size_t len;
	char *src = read_kernel("examples/cuda/vector_add.cu", &len);
	cJSON *rec = judge_record("ok", 0.01, 0.004, 0.005);
	struct kf_verify_opts o;
	kf_verify_opts_default(&o);
	o.backend = KF_BACKEND_CUDA;
	struct kf_verify_result r;
	cr_assert_eq(kf_verify_candidate(t, src, len, rec, &o, &r, &err), KF_OK, "%s", err.msg);
	cr_expect(r.partial, "votes that could not run here must not be kept");
	static const enum kf_verifier abstain[] = { KF_VER_RAGGED,	KF_VER_HIDDEN,	 KF_VER_STRESS,
						    KF_VER_DETERMINISM, KF_VER_MEMCHECK, KF_VER_RACECHECK };
	for (size_t i = 0; i < sizeof abstain / sizeof abstain[0]; i++)
		EXPECT_VOTE(&r, abstain[i], KF_VOTE_ABSTAIN);
	EXPECT_VOTE(&r, KF_VER_TESTS, KF_VOTE_PASS);
	EXPECT_VOTE(&r, KF_VER_STATIC, KF_VOTE_PASS);
	kf_verify_result_free(&r);
	cJSON_Delete(rec);
	free(src);
	kf_task_free(t);
}

/* ---- static checks ---- */

static struct kf_vote_rec static_check(const char *src)
{
	struct kf_vote_rec v = { 0 };
	kf_verify_static(src, strlen(src), &v);
	return v;
}

static bool has_finding(const struct kf_vote_rec *v, const char *kind, const char *severity)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(v->evidence, "findings"))
		if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind")), kind) &&
		    !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "severity")), severity))
			return true;
	return false;
}

Test(verify, static_checks_flag_threads_timers_streams_and_token_pasting)
{
	static const struct {
		const char *src, *kind;
	} cases[] = {
		{ "#include <pthread.h>\nint kf_launch(void) { pthread_t t; pthread_create(&t, 0, 0, 0); return 0; }",
		  "extra_thread" },
		{ "#include <time.h>\nint kf_launch(void) { struct timespec ts; clock_gettime(1, &ts); return 0; }", "timer" },
		{ "int kf_launch(void) { unsigned long t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return 0; }",
		  "asm_timer" },
		{ "int kf_launch(void) { cudaStream_t s; cudaStreamCreate(&s); return 0; }", "extra_stream" },
		{ "#define CALL(a, b) a##b\nint kf_launch(void) { CALL(cuda, StreamCreate)(0); return 0; }", "token_pasting" },
		{ "#include <stdlib.h>\nint kf_launch(void) { return getenv(\"HOME\") != 0; }", "system_access" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct kf_vote_rec v = static_check(cases[i].src);
		cr_expect_eq(v.vote, KF_VOTE_FAIL, "case %zu should fail", i);
		cr_expect(has_finding(&v, cases[i].kind, "fail"), "case %zu lacks a %s finding", i, cases[i].kind);
		cJSON_Delete(v.evidence);
	}
}

Test(verify, static_checks_pass_plain_openmp_code_and_ignore_comments_and_strings)
{
	struct kf_vote_rec v = static_check("/* pthread_create would be wrong here; so would clock_gettime() */\n"
					    "static const char *note = \"fork() and getenv() are not called\";\n"
					    "static int clamp(int a, int lo) { return a < lo ? lo : a; }\n"
					    "int kf_launch(const float *x, const float *y, float *out, int n)\n"
					    "{\n"
					    "#pragma omp parallel for\n"
					    "\tfor (int i = 0; i < clamp(n, 0); i++)\n"
					    "\t\tout[i] = x[i] + y[i]; // a clock_rate is not a clock()\n"
					    "\treturn note == 0;\n"
					    "}\n");
	cr_expect_eq(v.vote, KF_VOTE_PASS);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(v.evidence, "findings")), 0);
	cJSON_Delete(v.evidence);
}

Test(verify, static_checks_note_state_kept_across_calls_without_voting_against_it)
{
	struct kf_vote_rec v = static_check("struct cfg { int n; };\n"
					    "static float *workspace;\n"
					    "int kf_launch(const float *x, float *out, int n)\n"
					    "{\n"
					    "\tstatic int calls;\n"
					    "\tstatic const int table[2] = { 1, 2 };\n"
					    "\tcalls += table[0];\n"
					    "\tout[0] = x[0] + (workspace ? 0 : 0);\n"
					    "\treturn 0;\n"
					    "}\n");
	cr_expect_eq(v.vote, KF_VOTE_PASS);
	cr_expect(has_finding(&v, "global_state", "warn"));
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(v.evidence, "findings")), 2,
		     "the file-scope pointer and the local static counter; not the struct or the const table");
	cJSON_Delete(v.evidence);
}

/* ---- consensus ---- */

static struct kf_probe_out probe(const char *key, bool ran, double base, double step)
{
	struct kf_probe_out p = { .ran = ran, .n_outputs = 1, .count = { 4 }, .n = 4 };
	snprintf(p.key, sizeof p.key, "%s", key);
	snprintf(p.shape, sizeof p.shape, "n=4");
	p.values = malloc(sizeof(double) * KF_PROBE_FIELDS * 4);
	for (int i = 0; i < 4; i++) { /* one element per block, weight 1 */
		double v = base + step * i;
		p.values[KF_PROBE_FIELDS * i] = v;
		p.values[KF_PROBE_FIELDS * i + 1] = fabs(v);
		p.values[KF_PROBE_FIELDS * i + 2] = 1;
	}
	return p;
}

#define MAX_POOL 8

/* Consensus over the first n probes, one probe per candidate (ids 100, 101, ...). */
static void consensus_of(const struct kf_task *t, struct kf_probe_out *p, int n, struct kf_vote_rec *votes)
{
	struct kf_probe_set sets[MAX_POOL];
	int64_t ids[MAX_POOL];
	cr_assert_leq(n, MAX_POOL);
	for (int i = 0; i < n; i++) {
		sets[i] = (struct kf_probe_set){ &p[i], 1 };
		ids[i] = 100 + i;
	}
	kf_verify_consensus(t, sets, ids, n, votes);
}

Test(verify, consensus_fails_the_odd_one_out_and_abstains_without_a_quorum)
{
	struct kf_task *t = task("vector_add");
	struct kf_probe_out p[6] = {
		probe("k", true, 1.0, 0.5), probe("k", true, 1.0 + 1e-7, 0.5), probe("k", true, 1.0, 0.5),
		probe("k", true, 1.0, 0.5 + 1e-6), probe("k", true, 1.5, 0.5), probe("k", false, 0, 0),
	};
	struct kf_vote_rec votes[6] = { 0 };
	consensus_of(t, p, 6, votes);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(votes[i].vote, KF_VOTE_PASS, "candidate %d agrees with the cluster", i);
	cr_expect_eq(votes[4].vote, KF_VOTE_FAIL, "its output is off by 0.5");
	cr_expect_eq(votes[5].vote, KF_VOTE_FAIL, "it produced no output");
	struct kf_vote_rec pair[2] = { 0 };
	consensus_of(t, p, 2, pair);
	cr_expect_eq(pair[0].vote, KF_VOTE_ABSTAIN, "one other candidate is no cluster");
	for (int i = 0; i < 6; i++) {
		cJSON_Delete(votes[i].evidence);
		free(p[i].values);
	}
	cJSON_Delete(pair[0].evidence);
	cJSON_Delete(pair[1].evidence);
	kf_task_free(t);
}

/* vector_add with every `stride`-th element off by `factor` times the task's tolerance. */
static char *sparse_off_by_tolerance(int stride, double factor)
{
	static const char fmt[] =
		"#include <math.h>\n"
		"int kf_launch(const float *x, const float *y, float *out, int n) {\n"
		"  for (int i = 0; i < n; i++) {\n"
		"    out[i] = x[i] + y[i];\n"
		"    if (i %% %d == 0) out[i] += (float)(%g * (1e-6 + 1e-5 * fabs((double)out[i])));\n"
		"  }\n"
		"  return 0;\n}\n";
	char *src = malloc(sizeof fmt + 64);
	snprintf(src, sizeof fmt + 64, fmt, stride, factor);
	return src;
}

/* The probe of src at vector_add's larger hidden shape, sketched with `samples` single elements. */
static struct kf_probe_out probe_of_kernel(const struct kf_task *t, const char *src, int samples)
{
	struct kf_verify_opts o;
	kf_verify_opts_default(&o);
	o.probe_samples = samples;
	struct kf_trials *tr;
	kf_err err;
	cr_assert_eq(kf_trials_open(t, src, strlen(src), &o, &tr, &err), KF_OK, "%s", err.msg);
	const struct kf_shape *s = &t->shapes[KF_SET_HIDDEN][1];
	cr_assert_gt(kf_task_numel(t, t->n_inputs, s), 100 * o.probe_blocks, "the shape must make blocks of many elements");
	struct kf_probe_out p;
	cr_assert_eq(kf_trials_probe(tr, s, NULL, &p, &err), KF_OK, "%s", err.msg);
	cr_assert(p.ran);
	kf_trials_close(tr);
	return p;
}

/* One element in 50 off by five times the tolerance hides in a block of ~300 elements whose bound is the
 * sum of their tolerances; the sampled single elements see it. */
Test(verify, consensus_sees_a_small_error_on_a_few_elements_through_its_sampled_elements)
{
	struct kf_task *t = task("vector_add");
	size_t len;
	char *good = read_kernel("examples/cpu/vector_add.c", &len), *bad = sparse_off_by_tolerance(50, 5.0);
	struct kf_verify_opts defaults;
	kf_verify_opts_default(&defaults);
	const int with_samples[] = { 0, defaults.probe_samples };
	for (int w = 0; w < 2; w++) {
		struct kf_probe_out p[4] = { probe_of_kernel(t, good, with_samples[w]), probe_of_kernel(t, good, with_samples[w]),
					     probe_of_kernel(t, good, with_samples[w]), probe_of_kernel(t, bad, with_samples[w]) };
		cr_assert_str_eq(p[0].key, p[3].key, "every candidate gets the same probe");
		struct kf_vote_rec votes[4] = { 0 };
		consensus_of(t, p, 4, votes);
		for (int i = 0; i < 3; i++)
			cr_expect_eq(votes[i].vote, KF_VOTE_PASS, "samples %d: correct candidate %d", with_samples[w], i);
		cr_expect_eq(votes[3].vote, w ? KF_VOTE_FAIL : KF_VOTE_PASS,
			     "samples %d: the sparse error is %s", with_samples[w], w ? "seen" : "hidden by the blocks");
		for (int i = 0; i < 4; i++) {
			cJSON_Delete(votes[i].evidence);
			free(p[i].values);
		}
	}
	free(good);
	free(bad);
	kf_task_free(t);
}

/* ---- the trial harness ---- */

/* vector_add off by `factor` times the task's tolerance at element 0. */
static char *off_by_tolerance(double factor)
{
	static const char fmt[] =
		"#include <math.h>\n"
		"int kf_launch(const float *x, const float *y, float *out, int n) {\n"
		"  for (int i = 0; i < n; i++) out[i] = x[i] + y[i];\n"
		"  out[0] += (float)(%g * (1e-6 + 1e-5 * fabs((double)out[0])));\n"
		"  return 0;\n}\n";
	char *src = malloc(sizeof fmt + 32);
	snprintf(src, sizeof fmt + 32, fmt, factor);
	return src;
}

/* Where expected outputs come from the reference kernel (too large for the oracle), the trials
 * allow twice the tolerance, as the judge does: the reference is itself only within tolerance. */
Test(verify, trials_hold_reference_comparisons_to_twice_the_tolerance_as_the_judge_does)
{
	struct kf_task *t = task("vector_add");
	cr_assert_float_eq(t->tol[KF_DTYPE_F32].atol, 1e-6, 1e-12, "the kernels below assume vector_add's tolerance");
	cr_assert_float_eq(t->tol[KF_DTYPE_F32].rtol, 1e-5, 1e-12);
	const struct kf_shape *bench = &t->bench[KF_BACKEND_CPU];
	cr_assert_not(kf_judge_uses_oracle(t, bench), "vector_add's CPU bench shape is meant to use the reference");
	struct kf_verify_opts o;
	kf_verify_opts_default(&o);
	const double factors[] = { 1.5, 2.5 };
	for (int f = 0; f < 2; f++) {
		char *src = off_by_tolerance(factors[f]);
		struct kf_trials *tr;
		kf_err err;
		cr_assert_eq(kf_trials_open(t, src, strlen(src), &o, &tr, &err), KF_OK, "%s", err.msg);
		struct kf_trial trial = { bench, 11, NULL };
		struct kf_trial_result res;
		cr_assert_eq(kf_trials_check(tr, &trial, &res, &err), KF_OK, "%s", err.msg);
		cr_expect_eq(res.pass, f == 0, "off by %g x tol: %s", factors[f], res.reason);
		kf_trials_close(tr);
		free(src);
	}
	kf_task_free(t);
}

Test(verify, trials_pass_a_correct_kernel_and_name_the_failure_of_a_wrong_one)
{
	struct kf_task *t = task("vector_add");
	struct kf_verify_opts o;
	kf_verify_opts_default(&o);
	kf_err err;
	size_t len;
	char *good = read_kernel("examples/cpu/vector_add.c", &len);
	struct kf_trials *tr;
	cr_assert_eq(kf_trials_open(t, good, len, &o, &tr, &err), KF_OK, "%s", err.msg);
	cr_assert_null(kf_trials_unusable(tr));
	struct kf_trial trial = { &t->shapes[KF_SET_HIDDEN][1], 7, &t->stress[0] };
	struct kf_trial_result res;
	cr_assert_eq(kf_trials_check(tr, &trial, &res, &err), KF_OK, "%s", err.msg);
	cr_expect(res.pass, "%s", res.reason);
	cr_assert_eq(kf_trials_repeat(tr, &trial, 3, &res, &err), KF_OK, "%s", err.msg);
	cr_expect(res.pass && res.bitwise, "%s", res.reason);
	kf_trials_close(tr);
	free(good);
	static const char bad[] = "int kf_launch(const float *x, const float *y, float *out, int n)\n"
				  "{ for (int i = 0; i < n; i++) out[i] = x[i] - y[i]; return 0; }\n";
	cr_assert_eq(kf_trials_open(t, bad, sizeof bad - 1, &o, &tr, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_trials_check(tr, &trial, &res, &err), KF_OK, "%s", err.msg);
	cr_expect_not(res.pass);
	cr_expect(strstr(res.reason, "stress large_magnitude"), "%s", res.reason);
	kf_trials_close(tr);
	static const char broken[] = "int kf_launch(void) { return }";
	cr_assert_eq(kf_trials_open(t, broken, sizeof broken - 1, &o, &tr, &err), KF_OK, "%s", err.msg);
	cr_expect(kf_trials_unusable(tr) && strstr(kf_trials_unusable(tr), "does not build"));
	kf_trials_close(tr);
	kf_task_free(t);
}
