/* The weak-verifier ensemble measured against truth on the labelled corpus (tests/corpus/).
 *
 *   build/bench/verifiers --label [--seeds N]   labels the corpus kernels of one backend with an
 *                                               exhaustive battery kforge never uses when ranking, and
 *                                               merges them into labels.json
 *   build/bench/verifiers [--k K] [--draws R]   judges every kernel, ranks them all with `kforge rank`'s
 *                                               code (verifiers, label model, order), and prints:
 *     - each verifier's TPR/FPR, true (from the labels) and as the label model estimated them;
 *     - selection accuracy of the ensemble vs "passed the default tests" vs majority vote vs the best
 *       single verifier, over random k-candidate subsets of each task, over every draw and over the
 *       draws that hold a correct kernel, why the ensemble lost the draws it lost, and the
 *       generation-verification gap pass@k - selection accuracy.
 * --backend cuda does the same for the .cu kernels (on a GPU machine; --compile-only works anywhere
 * nvcc does). Run from the repository root after `make bench`; a few minutes per pass on two cores. */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/rng.h"
#include "common/sha256.h"
#include "common/version.h"
#include "db/store.h"
#include "eval/tasks/abi.h"
#include "eval/judge/area.h"
#include "eval/judge/judge.h"
#include "eval/report/leaderboard.h"
#include "eval/rank/rank.h"
#include "eval/rank/verify.h"
#include "sandbox/sandbox.h"

#define CORPUS_DIR "tests/corpus"
#define LABELS_FILE "tests/corpus/labels.json"
#define HEADER_PREFIX "/* kforge-corpus: "
#define MAX_SOURCE (256u << 10)
#define MAX_LABELS (4u << 20)
#define DEFAULT_LABEL_SEEDS 8      /* per (shape, distribution) in the battery */
#define DEFAULT_LABEL_BENCH_SEEDS 2 /* per distribution at the benchmark shape */
#define LABEL_DETERMINISM_RUNS 3
#define LABEL_SEED_SALT 0x6c6162656c73ULL
#define DEFAULT_BENCH_SEED 20250101
#define DEFAULT_TIMING_BUDGET_S 1.0
#define DEFAULT_DRAWS 2000
#define TARGET_SELECTION_ACCURACY 0.95
#define TARGET_RATE_ERROR 0.1
static const int default_ks[] = { 4, 8 };
#define N_DEFAULT_KS ((int)(sizeof default_ks / sizeof default_ks[0]))
#define MAX_KS 8

static void die(const char *what, const kf_err *e)
{
	fprintf(stderr, "verifiers: %s: %s\n", what, e ? e->msg : "");
	exit(3);
}

/* ---- the corpus ---- */

struct kernel {
	char file[PATH_MAX];  /* relative to the corpus directory: task/name.c */
	char task[KF_NAME_MAX];
	char intended[16];    /* "correct" or "bug" */
	char *source;
	size_t len;
	int label;            /* 1 correct, 0 incorrect, -1 unknown */
};

static int cmp_kernel(const void *a, const void *b)
{
	return strcmp(((const struct kernel *)a)->file, ((const struct kernel *)b)->file);
}

static void parse_header(struct kernel *k)
{
	const char *h = strstr(k->source, HEADER_PREFIX);
	if (h != k->source || sscanf(h + strlen(HEADER_PREFIX), "task=%63s intended=%15s", k->task, k->intended) != 2) {
		fprintf(stderr, "verifiers: %s: the first line must read '%stask=T intended=correct|bug */'\n", k->file,
			HEADER_PREFIX);
		exit(2);
	}
}

/* The corpus kernels of one backend (.c for cpu, .cu for cuda), of one task when task is set. */
static struct kernel *load_corpus(const char *dir, enum kf_backend b, const char *task, int *n)
{
	const char *ext = b == KF_BACKEND_CUDA ? ".cu" : ".c";
	size_t ext_len = strlen(ext);
	struct kernel *ks = NULL;
	int cap = 0;
	*n = 0;
	DIR *top = opendir(dir);
	if (!top) {
		fprintf(stderr, "verifiers: cannot open %s (run from the repository root)\n", dir);
		exit(2);
	}
	for (struct dirent *t; (t = readdir(top));) {
		if (t->d_name[0] == '.' || (task && strcmp(t->d_name, task)))
			continue;
		char sub[PATH_MAX];
		snprintf(sub, sizeof sub, "%s/%s", dir, t->d_name);
		DIR *d = opendir(sub);
		if (!d)
			continue;
		for (struct dirent *f; (f = readdir(d));) {
			size_t l = strlen(f->d_name);
			if (l <= ext_len || strcmp(f->d_name + l - ext_len, ext))
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 128;
				ks = realloc(ks, sizeof *ks * (size_t)cap);
			}
			struct kernel *k = &ks[(*n)++];
			memset(k, 0, sizeof *k);
			k->label = -1;
			snprintf(k->file, sizeof k->file, "%s/%s", t->d_name, f->d_name);
			char path[2 * PATH_MAX];
			snprintf(path, sizeof path, "%s/%s", dir, k->file);
			kf_err err;
			if (kf_read_file(path, MAX_SOURCE, &k->source, &k->len, &err) != KF_OK)
				die(path, &err);
			parse_header(k);
		}
		closedir(d);
	}
	closedir(top);
	if (!*n) {
		fprintf(stderr, "verifiers: no %s kernel in %s%s%s\n", ext, dir, task ? " for task " : "", task ? task : "");
		exit(2);
	}
	qsort(ks, (size_t)*n, sizeof *ks, cmp_kernel);
	return ks;
}

/* ---- labelling: the exhaustive battery ---- */

struct battery {
	enum kf_backend b;
	int seeds, bench_seeds;
	int trials;
	char failure[640];
	uint64_t base;
};

static uint64_t battery_seed(struct battery *b)
{
	uint64_t x = b->base + (uint64_t)b->trials * 0x9e3779b97f4a7c15ULL;
	return kf_splitmix64(&x);
}

/* One trial (or repeat); false when it failed (b->failure says how). */
static bool battery_trial(struct kf_trials *tr, struct battery *b, const struct kf_shape *s, const struct kf_stress *st,
			  bool repeat)
{
	struct kf_trial trial = { s, battery_seed(b), st };
	struct kf_trial_result res;
	kf_err err;
	b->trials++;
	int rc = repeat ? kf_trials_repeat(tr, &trial, LABEL_DETERMINISM_RUNS, &res, &err)
			: kf_trials_check(tr, &trial, &res, &err);
	if (rc != KF_OK)
		die("labelling", &err);
	if (!res.pass)
		snprintf(b->failure, sizeof b->failure, "%s", res.reason);
	return res.pass;
}

/* Every shape set x every distribution (the task's and each stress variant) x seeds, the benchmark
 * shape with the task's distribution, and repeated runs at every shape; stops at the first failure.
 * Stress variants stay on the small shapes they are written for: at a bench shape they can be
 * ill-conditioned (matmul's std-10 operands at K = 4096 put near-zero outputs out of reach of a
 * plain fp32 running sum, which the task's own tests accept). */
static bool run_battery(const struct kf_task *t, struct kf_trials *tr, struct battery *b)
{
	static const enum kf_shape_set sets[] = { KF_SET_TEST, KF_SET_RAGGED, KF_SET_HIDDEN };
	for (int st = -1; st < t->n_stress; st++)
		for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++)
			for (int k = 0; k < t->n_shapes[sets[si]]; k++)
				for (int sd = 0; sd < b->seeds; sd++)
					if (!battery_trial(tr, b, &t->shapes[sets[si]][k], st < 0 ? NULL : &t->stress[st], false))
						return false;
	for (int sd = 0; sd < b->bench_seeds; sd++)
		if (!battery_trial(tr, b, &t->bench[b->b], NULL, false))
			return false;
	for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++)
		for (int k = 0; k < t->n_shapes[sets[si]]; k++)
			if (!battery_trial(tr, b, &t->shapes[sets[si]][k], NULL, true))
				return false;
	return true;
}

/* Labels of the kernels not labelled now (other backends, other tasks), kept when merging. */
static cJSON *kept_labels(const char *path, const struct kernel *ks, int n)
{
	cJSON *kept = cJSON_CreateArray(), *it;
	char *text = NULL;
	if (access(path, F_OK) != 0 || kf_read_file(path, MAX_LABELS, &text, NULL, NULL) != KF_OK)
		return kept;
	cJSON *root = cJSON_Parse(text);
	free(text);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "kernels")) {
		const char *file = cJSON_GetStringValue(cJSON_GetObjectItem(it, "file"));
		bool relabelled = false;
		for (int i = 0; file && i < n && !relabelled; i++)
			relabelled = !strcmp(ks[i].file, file);
		if (file && !relabelled)
			cJSON_AddItemToArray(kept, cJSON_Duplicate(it, true));
	}
	cJSON_Delete(root);
	return kept;
}

static int cmp_label_file(const void *a, const void *b)
{
	const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(*(cJSON *const *)a, "file"));
	const char *y = cJSON_GetStringValue(cJSON_GetObjectItem(*(cJSON *const *)b, "file"));
	return strcmp(x ? x : "", y ? y : "");
}

/* The merged list, by file name, and the summary per backend. */
static void finish_labels(cJSON *root, cJSON *kernels)
{
	int n = cJSON_GetArraySize(kernels), correct[KF_BACKEND_COUNT] = { 0 }, total[KF_BACKEND_COUNT] = { 0 };
	cJSON **items = calloc((size_t)n + 1, sizeof *items);
	for (int i = 0; i < n; i++)
		items[i] = cJSON_GetArrayItem(kernels, i);
	qsort(items, (size_t)n, sizeof *items, cmp_label_file);
	cJSON *sorted = cJSON_AddArrayToObject(root, "kernels");
	for (int i = 0; i < n; i++) {
		cJSON *it = cJSON_Duplicate(items[i], true);
		enum kf_backend b = KF_BACKEND_CPU; /* entries from before backends were recorded are CPU ones */
		const char *backend = cJSON_GetStringValue(cJSON_GetObjectItem(it, "backend"));
		if (backend)
			kf_backend_parse(backend, &b);
		const char *label = cJSON_GetStringValue(cJSON_GetObjectItem(it, "label"));
		total[b]++;
		correct[b] += label && !strcmp(label, "correct");
		cJSON_AddItemToArray(sorted, it);
	}
	free(items);
	cJSON *sum = cJSON_AddObjectToObject(root, "summary");
	for (int b = 0; b < KF_BACKEND_COUNT; b++) {
		cJSON *o = cJSON_AddObjectToObject(sum, kf_backend_name((enum kf_backend)b));
		cJSON_AddNumberToObject(o, "kernels", total[b]);
		cJSON_AddNumberToObject(o, "correct", correct[b]);
		cJSON_AddNumberToObject(o, "incorrect", total[b] - correct[b]);
	}
}

static cJSON *battery_json(int seeds, int bench_seeds)
{
	cJSON *bat = cJSON_CreateObject();
	cJSON_AddStringToObject(bat, "what",
				"every test, ragged and hidden shape x (the task's distribution and every stress variant) x "
				"seeds; the benchmark shape (of the kernel's backend) with the task's distribution x bench_seeds; "
				"then repeated runs on the same inputs at every test, ragged and hidden shape (bitwise or "
				"within tolerance as the task says). Each trial poisons the outputs, checks the inputs are "
				"untouched and every output written, and compares with the fp64 oracle (the reference "
				"kernel on shapes too large for it) within the task's tolerance. A kernel is correct when "
				"every trial passes; the battery stops at the first failure. seeds and bench_seeds are "
				"those of the last labelling; each kernel records its own.");
	cJSON_AddNumberToObject(bat, "seeds", seeds);
	cJSON_AddNumberToObject(bat, "bench_seeds", bench_seeds);
	cJSON_AddNumberToObject(bat, "determinism_runs", LABEL_DETERMINISM_RUNS);
	return bat;
}

/* One kernel through the battery: its label entry. */
static cJSON *label_kernel(struct kernel *k, enum kf_backend backend, int seeds, int bench_seeds,
			   const struct kf_verify_opts *vo)
{
	struct kf_task *t;
	kf_err err;
	if (kf_task_find(NULL, k->task, &t, &err) != KF_OK)
		die(k->file, &err);
	int64_t t0 = kf_now_ns();
	struct battery b = { backend, seeds, bench_seeds, 0, "", 0 };
	char hash[KF_SHA256_HEX_LEN];
	kf_sha256_hex(k->file, strlen(k->file), hash);
	hash[16] = '\0'; /* 64 bits of it seed the kernel's battery */
	b.base = strtoull(hash, NULL, 16) ^ LABEL_SEED_SALT;
	struct kf_trials *tr;
	if (kf_trials_open(t, k->source, k->len, vo, &tr, &err) != KF_OK)
		die(k->file, &err);
	bool ok;
	if (kf_trials_unusable(tr)) {
		snprintf(b.failure, sizeof b.failure, "%s", kf_trials_unusable(tr));
		ok = false;
	} else {
		ok = run_battery(t, tr, &b);
	}
	kf_trials_close(tr);
	kf_task_free(t);
	k->label = ok;
	double secs = (double)(kf_now_ns() - t0) / 1e9;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", k->file);
	cJSON_AddStringToObject(o, "task", k->task);
	cJSON_AddStringToObject(o, "backend", kf_backend_name(backend));
	cJSON_AddStringToObject(o, "intended", k->intended);
	cJSON_AddStringToObject(o, "label", ok ? "correct" : "incorrect");
	cJSON_AddNumberToObject(o, "trials", b.trials);
	cJSON_AddNumberToObject(o, "seeds", seeds);
	cJSON_AddNumberToObject(o, "bench_seeds", bench_seeds);
	if (!ok)
		cJSON_AddStringToObject(o, "first_failure", b.failure);
	cJSON_AddNumberToObject(o, "seconds", round(secs * 10) / 10);
	fprintf(stderr, "%-48s %-9s %5d trials %6.1f s %s%.120s\n", k->file, ok ? "correct" : "incorrect", b.trials, secs,
		ok ? "" : "- ", ok ? "" : b.failure);
	return o;
}

/* Labels the given kernels and merges them into the labels file: entries of other kernels (another
 * backend, another task) are kept as they were. A kernel that cannot run here (no GPU for a .cu
 * file) stops the labelling: it would be labelled incorrect for the machine's fault. */
static int label_corpus(struct kernel *ks, int n, enum kf_backend backend, int seeds, int bench_seeds,
			const char *path)
{
	struct kf_verify_opts vo;
	kf_verify_opts_default(&vo);
	vo.backend = backend;
	const struct kf_area_ops *ops;
	kf_err why;
	if (kf_area_ops_for(backend, &ops, &why) != KF_OK) {
		fprintf(stderr, "verifiers: this machine cannot run %s kernels, so it cannot label them: %s\n",
			kf_backend_name(backend), why.msg);
		return 2;
	}
	cJSON *kernels = kept_labels(path, ks, n);
	int correct = 0;
	for (int i = 0; i < n; i++) {
		fprintf(stderr, "%3d/%d ", i + 1, n);
		cJSON_AddItemToArray(kernels, label_kernel(&ks[i], backend, seeds, bench_seeds, &vo));
		correct += ks[i].label;
	}
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "produced_by", "build/bench/verifiers --label [--backend B] (bench/verifiers.c)");
	cJSON_AddStringToObject(root, "kforge_version", KF_VERSION_STRING);
	char now[KF_STORE_TIMESTAMP_LEN];
	kf_store_utc_now(now);
	cJSON_AddStringToObject(root, "created_at", now);
	cJSON_AddItemToObject(root, "battery", battery_json(seeds, bench_seeds));
	finish_labels(root, kernels);
	cJSON_Delete(kernels);
	char *text = cJSON_Print(root);
	kf_err err;
	kf_buf b = KF_BUF_INIT;
	kf_buf_adds(&b, text);
	kf_buf_adds(&b, "\n");
	if (kf_write_file(path, b.data, b.len, &err) != KF_OK)
		die(path, &err);
	printf("labelled %d %s kernels: %d correct, %d incorrect -> %s\n", n, kf_backend_name(backend), correct,
	       n - correct, path);
	kf_buf_free(&b);
	free(text);
	cJSON_Delete(root);
	return 0;
}

static void read_labels(const char *path, struct kernel *ks, int n, enum kf_backend backend)
{
	char *text;
	kf_err err;
	if (kf_read_file(path, MAX_LABELS, &text, NULL, &err) != KF_OK)
		die("reading the labels (run with --label first)", &err);
	cJSON *root = cJSON_Parse(text), *it;
	free(text);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "kernels")) {
		const char *file = cJSON_GetStringValue(cJSON_GetObjectItem(it, "file"));
		const char *label = cJSON_GetStringValue(cJSON_GetObjectItem(it, "label"));
		for (int i = 0; file && label && i < n; i++)
			if (!strcmp(ks[i].file, file))
				ks[i].label = !strcmp(label, "correct");
	}
	cJSON_Delete(root);
	for (int i = 0; i < n; i++)
		if (ks[i].label < 0) {
			fprintf(stderr, "verifiers: %s has no label in %s (run --label%s first%s)\n", ks[i].file, path,
				backend == KF_BACKEND_CUDA ? " --backend cuda" : "",
				backend == KF_BACKEND_CUDA ? ", on a GPU machine" : "");
			exit(2);
		}
}

/* ---- judging and ranking the corpus ---- */

struct opts {
	enum kf_backend backend;
	uint64_t seed;
	double timing_budget_s;
	int ks[MAX_KS], n_ks;
	int draws;
	const char *db;
	const char *task; /* only this task's kernels */
	bool per_kernel;
	bool reuse;    /* rank the kernels already judged in --db (their stored votes too) */
	bool reverify; /* with reuse: run the verifiers again */
	double theta;  /* trust threshold of the ranking */
};

static struct kf_ranking *judge_and_rank(struct kernel *ks, int n, const struct opts *o)
{
	kf_err err;
	char dir[PATH_MAX], db[PATH_MAX + 16];
	if (!o->db) {
		if (kf_mkdtemp("/tmp", "kforge-verifiers-", dir, sizeof dir, &err) != KF_OK)
			die("temp dir", &err);
		snprintf(db, sizeof db, "%s/kforge.db", dir);
	} else {
		snprintf(db, sizeof db, "%s", o->db);
	}
	struct kf_store *s;
	struct kf_peaks peaks = { 0 };
	/* Ranking again from stored votes runs nothing: it needs no device (a GPU pass can be re-ranked here). */
	if (kf_store_open(db, &s, &err) != KF_OK || (!o->reuse && kf_sol_peaks(s, o->backend, 0, &peaks, &err) != KF_OK))
		die(db, &err);
	int64_t t0 = kf_now_ns();
	for (int i = 0; i < n && !o->reuse; i++) {
		struct kernel *k = &ks[i];
		struct kf_task *t;
		if (kf_task_find(NULL, k->task, &t, &err) != KF_OK ||
		    kf_store_put_task(s, t->name, t->spec_hash, t->spec_text, &err) != KF_OK)
			die(k->file, &err);
		char hash[KF_SHA256_HEX_LEN];
		kf_sha256_hex(k->source, k->len, hash);
		struct kf_candidate_rec rec = { t->name,  t->spec_hash, kf_backend_name(o->backend), "submit", k->file,
						k->file, k->source, hash,			  0 };
		int64_t id, eval_id;
		struct kf_judge_opts jo;
		kf_judge_opts_default(&jo);
		jo.backend = o->backend;
		uint64_t x = o->seed + (uint64_t)i;
		jo.seed = kf_splitmix64(&x);
		jo.timing_budget_s = o->timing_budget_s;
		jo.store = s;
		cJSON *res;
		if (kf_store_add_candidate(s, &rec, &id, &err) != KF_OK ||
		    kf_judge_evaluate(t, &peaks, k->source, k->len, &jo, &res, &err) != KF_OK ||
		    kf_store_add_evaluation(s, id, res, &eval_id, &err) != KF_OK)
			die(k->file, &err);
		fprintf(stderr, "judged %3d/%d %-48s %s\n", i + 1, n, k->file,
			cJSON_GetStringValue(cJSON_GetObjectItem(res, "verdict")));
		cJSON_Delete(res);
		kf_task_free(t);
	}
	double judge_s = (double)(kf_now_ns() - t0) / 1e9;
	struct kf_ranking_opts ro;
	kf_ranking_opts_default(&ro);
	ro.reverify = o->reverify;
	ro.task = o->task;
	ro.theta = o->theta;
	struct kf_ranking *r;
	t0 = kf_now_ns();
	if (kf_ranking_build(s, &ro, &r, &err) != KF_OK)
		die("ranking", &err);
	if (o->reuse)
		printf("%s and ranked the %d kernels of %s again in %.0f s", o->reverify ? "verified" : "read the votes of",
		       n, db, (double)(kf_now_ns() - t0) / 1e9);
	else
		printf("judged %d kernels in %.0f s; verified and ranked them in %.0f s (database %s)", n, judge_s,
		       (double)(kf_now_ns() - t0) / 1e9, db);
	/* Races between a candidate's own threads show only when its threads really run at once: a
	 * loaded machine hides them from the verifiers (and the labels), so say how loaded it was. */
	double load[1];
	if (getloadavg(load, 1) == 1)
		printf("; load average %.2f on %ld cores", load[0], sysconf(_SC_NPROCESSORS_ONLN));
	printf("\n\n");
	kf_sol_peaks_free(&peaks);
	kf_store_close(s);
	if (!o->db)
		kf_rm_rf(dir);
	return r;
}

/* ---- the numbers ---- */

struct cand {
	const struct kf_ranked *r;
	int label;
};

static int label_of(const struct kernel *ks, int n, const char *file)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(ks[i].file, file))
			return ks[i].label;
	return -1;
}

static void verifier_table(const struct kf_ranking *r, const struct cand *cs, int n, cJSON *out)
{
	printf("Verifier rates over the %d kernels in the label model (TPR = P(pass | correct), FPR = P(pass | incorrect),\n"
	       "abstains left out; 'est' = the label model's estimate, fitted without labels):\n\n", r->n_fitted);
	printf("  %-13s %-14s %5s %7s %7s %7s %7s %7s %7s  %s\n", "verifier", "status", "votes", "TPR", "est", "FPR", "est",
	       "|dTPR|", "|dFPR|", "within 0.1");
	cJSON *arr = cJSON_AddArrayToObject(out, "verifiers");
	bool all_within = true;
	for (int v = 0; v < KF_VER_COUNT; v++) {
		int tp = 0, pos = 0, fp = 0, neg = 0;
		for (int i = 0; i < n; i++) {
			enum kf_vote vote = cs[i].r->votes[v].vote;
			if (!isfinite(cs[i].r->p_correct) || vote == KF_VOTE_ABSTAIN)
				continue;
			if (cs[i].label) {
				pos++;
				tp += vote == KF_VOTE_PASS;
			} else {
				neg++;
				fp += vote == KF_VOTE_PASS;
			}
		}
		const struct kf_lm_verifier *e = v < r->fit.n_verifiers ? &r->fit.verifiers[v] : NULL;
		double tpr = pos ? (double)tp / pos : NAN, fpr = neg ? (double)fp / neg : NAN;
		double etpr = e ? e->tpr : NAN, efpr = e ? e->fpr : NAN;
		bool kept = e && e->status == KF_LM_KEPT;
		double dt = fabs(tpr - etpr), df = fabs(fpr - efpr);
		bool within = kept && dt <= TARGET_RATE_ERROR && df <= TARGET_RATE_ERROR;
		if (kept && !within)
			all_within = false;
		printf("  %-13s %-14s %5d %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f  %s\n", kf_verifier_name((enum kf_verifier)v),
		       e ? kf_lm_status_name(e->status) : "-", pos + neg, tpr, etpr, fpr, efpr, dt, df,
		       kept ? (within ? "yes" : "NO") : "(not kept)");
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", kf_verifier_name((enum kf_verifier)v));
		cJSON_AddStringToObject(o, "status", e ? kf_lm_status_name(e->status) : "none");
		cJSON_AddNumberToObject(o, "votes", pos + neg);
		cJSON_AddNumberToObject(o, "true_tpr", isfinite(tpr) ? tpr : -1);
		cJSON_AddNumberToObject(o, "true_fpr", isfinite(fpr) ? fpr : -1);
		cJSON_AddNumberToObject(o, "est_tpr", isfinite(etpr) ? etpr : -1);
		cJSON_AddNumberToObject(o, "est_fpr", isfinite(efpr) ? efpr : -1);
		cJSON_AddItemToArray(arr, o);
	}
	int truly = 0;
	for (int i = 0; i < n; i++)
		truly += isfinite(cs[i].r->p_correct) && cs[i].label;
	printf("\n  prior P(correct): estimated %.3f (triplet %.3f), true %.3f\n", r->fit.prior, r->fit.triplet_prior,
	       r->n_fitted ? (double)truly / r->n_fitted : NAN);
	printf("  every kept verifier within %.1f of its true rates: %s\n\n", TARGET_RATE_ERROR, all_within ? "yes" : "NO");
	cJSON_AddBoolToObject(out, "rates_within_target", all_within);
}

/* Selection rules: which gate-passing candidates a rule accepts; the fastest accepted one is chosen
 * (the fastest gate-passing one when it accepts none). */
enum rule { RULE_ENSEMBLE, RULE_TESTS, RULE_MAJORITY, RULE_SINGLE, N_BASE_RULES = RULE_SINGLE };
static const char *const rule_names[] = { "ensemble (label model)", "passed the default tests", "majority vote" };

static bool accepts(enum rule rule, int verifier, const struct kf_ranked *r)
{
	switch (rule) {
	case RULE_ENSEMBLE:
		return r->trusted;
	case RULE_TESTS:
		return true;
	case RULE_MAJORITY: {
		int pass = 0, fail = 0;
		for (int v = 0; v < KF_VER_COUNT; v++) {
			pass += r->votes[v].vote == KF_VOTE_PASS;
			fail += r->votes[v].vote == KF_VOTE_FAIL;
		}
		return pass > fail;
	}
	default:
		return r->votes[verifier].vote != KF_VOTE_FAIL;
	}
}

/* Speed order of kforge's ranking among equally accepted candidates. */
static bool faster(const struct kf_ranked *a, const struct kf_ranked *b)
{
	struct kf_ranked x = *a, y = *b;
	x.trusted = y.trusted = true;
	return kf_ranking_compare(&x, &y) < 0;
}

/* The chosen candidate of subset idx (NULL when no candidate passed the gates). */
static const struct cand *choose(const struct cand *cs, const int *idx, int k, enum rule rule, int verifier)
{
	const struct cand *best = NULL;
	bool best_acc = false;
	for (int i = 0; i < k; i++) {
		const struct cand *c = &cs[idx[i]];
		if (!c->r->gates_passed)
			continue;
		bool acc = accepts(rule, verifier, c->r);
		if (!best || (acc && !best_acc) || (acc == best_acc && faster(c->r, best->r))) {
			best = c;
			best_acc = acc;
		}
	}
	return best;
}

/* How a rule did over the draws of one k. */
struct score {
	double accuracy;  /* mean over tasks of the share of draws whose chosen kernel is correct */
	double solvable;  /* the same over the draws that hold at least one correct kernel (NAN: none do) */
	double speed;     /* SOL fraction of a correct choice / the best correct one's in its draw */
	int draws;        /* over every task */
	int no_correct;   /* draws without a correct kernel: no rule can win them */
	int passed_over;  /* draws with a correct kernel where the rule chose an incorrect one */
};

static bool has_correct(const struct cand *cs, const int *idx, int k)
{
	for (int i = 0; i < k; i++)
		if (cs[idx[i]].label)
			return true;
	return false;
}

/* Random k-subsets of each task's candidates (every candidate once when k >= n): how often the rule
 * chose a truly correct kernel, over all draws and over those holding one, and its SOL fraction
 * relative to the best correct one in the draw. wrong_by (NULL or one slot per candidate) counts
 * the draws where each incorrect candidate was chosen over a correct one. Every rule sees the same
 * draws for the same seed. */
static struct score score_rule(const struct cand *cs, const int *starts, int n_tasks, int k, int draws,
			       enum rule rule, int verifier, uint64_t seed, int *wrong_by)
{
	struct score sc = { 0 };
	double acc_sum = 0, solv_sum = 0, speed_sum = 0;
	int speed_n = 0, solv_tasks = 0;
	kf_rng rng;
	kf_rng_seed(&rng, seed);
	for (int t = 0; t < n_tasks; t++) {
		int n = starts[t + 1] - starts[t], kk = k < n ? k : n, d = k < n ? draws : 1, hits = 0, solvable = 0;
		int *idx = malloc(sizeof *idx * (size_t)n);
		for (int r = 0; r < d; r++) {
			for (int i = 0; i < n; i++)
				idx[i] = starts[t] + i;
			for (int i = 0; i < kk; i++) { /* partial Fisher-Yates */
				int j = i + (int)kf_rng_below(&rng, (uint64_t)(n - i)), x = idx[i];
				idx[i] = idx[j];
				idx[j] = x;
			}
			const struct cand *c = choose(cs, idx, kk, rule, verifier);
			bool any = has_correct(cs, idx, kk);
			solvable += any;
			if (!any)
				sc.no_correct++;
			if (!c || !c->label) {
				if (any)
					sc.passed_over++;
				if (any && c && wrong_by)
					wrong_by[c - cs]++;
				continue;
			}
			hits++;
			double best = 0;
			for (int i = 0; i < kk; i++)
				if (cs[idx[i]].label && cs[idx[i]].r->sol_fraction > best)
					best = cs[idx[i]].r->sol_fraction;
			if (best > 0 && isfinite(c->r->sol_fraction)) {
				speed_sum += c->r->sol_fraction / best;
				speed_n++;
			}
		}
		sc.draws += d;
		acc_sum += (double)hits / d;
		if (solvable) {
			solv_sum += (double)hits / solvable;
			solv_tasks++;
		}
		free(idx);
	}
	sc.accuracy = acc_sum / n_tasks;
	sc.solvable = solv_tasks ? solv_sum / solv_tasks : NAN;
	sc.speed = speed_n ? speed_sum / speed_n : NAN;
	return sc;
}

static double pass_at_k(const struct cand *cs, const int *starts, int n_tasks, int k)
{
	double sum = 0;
	for (int t = 0; t < n_tasks; t++) {
		int n = starts[t + 1] - starts[t], c = 0;
		for (int i = starts[t]; i < starts[t + 1]; i++)
			c += cs[i].label;
		sum += kf_lb_pass_at_k(n, c, k < n ? k : n);
	}
	return sum / n_tasks;
}

static void score_row(const char *name, const struct score *sc, double pk)
{
	printf("  %-34s %9.3f %9.3f %14.3f %9.3f %8d %8d\n", name, sc->accuracy, sc->solvable, pk - sc->accuracy,
	       sc->speed, sc->no_correct, sc->passed_over);
}

static cJSON *score_json(const struct score *sc)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "accuracy", sc->accuracy);
	cJSON_AddNumberToObject(o, "accuracy_solvable", isfinite(sc->solvable) ? sc->solvable : -1);
	cJSON_AddNumberToObject(o, "sol_vs_best_correct", isfinite(sc->speed) ? sc->speed : -1);
	cJSON_AddNumberToObject(o, "draws", sc->draws);
	cJSON_AddNumberToObject(o, "no_correct_in_draw", sc->no_correct);
	cJSON_AddNumberToObject(o, "correct_passed_over", sc->passed_over);
	return o;
}

/* Why the ensemble lost the draws it lost: no correct kernel in the draw, or the incorrect kernels
 * it chose over a correct one (most often first). */
static void explain_losses(const struct cand *cs, int n, const struct score *sc, const int *wrong_by, cJSON *row)
{
	printf("  the ensemble lost %d of %d draws: %d held no correct kernel (pass@k caps every rule there)",
	       sc->no_correct + sc->passed_over, sc->draws, sc->no_correct);
	cJSON *arr = cJSON_AddArrayToObject(row, "ensemble_chose_incorrect");
	if (!sc->passed_over) {
		printf(", none chose an incorrect kernel over a correct one\n");
		return;
	}
	printf("; in %d it chose an incorrect kernel over a correct one:\n", sc->passed_over);
	int *order = calloc((size_t)n + 1, sizeof *order), m = 0;
	for (int i = 0; i < n; i++)
		if (wrong_by[i])
			order[m++] = i;
	for (int a = 1; a < m; a++) /* insertion sort, most draws first */
		for (int b = a; b > 0 && wrong_by[order[b]] > wrong_by[order[b - 1]]; b--) {
			int x = order[b];
			order[b] = order[b - 1];
			order[b - 1] = x;
		}
	for (int i = 0; i < m; i++) {
		const struct kf_ranked *r = cs[order[i]].r;
		printf("    %-48s %6d draws (P(correct) %.3f, SOL %.3g)\n", r->submitter, wrong_by[order[i]], r->p_correct,
		       r->sol_fraction);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kernel", r->submitter);
		cJSON_AddNumberToObject(o, "draws", wrong_by[order[i]]);
		cJSON_AddItemToArray(arr, o);
	}
	free(order);
}

static void selection_table(const struct cand *cs, int n, const int *starts, int n_tasks, const struct opts *o,
			    cJSON *out)
{
	cJSON *arr = cJSON_AddArrayToObject(out, "selection");
	bool met = true;
	int *wrong_by = calloc((size_t)n + 1, sizeof *wrong_by);
	for (int ki = 0; ki < o->n_ks; ki++) {
		int k = o->ks[ki];
		double pk = pass_at_k(cs, starts, n_tasks, k > 0 ? k : INT_MAX);
		if (k > 0)
			printf("Selection among k = %d candidates of a task (%d random subsets per task; mean over the %d tasks):\n\n",
			       k, o->draws, n_tasks);
		else
			printf("Selection among all the candidates of each task (mean over the %d tasks):\n\n", n_tasks);
		printf("  %-34s %9s %9s %14s %9s %8s %8s\n", "rule", "accuracy", "solvable", "gap (pass@k -)", "SOL/best",
		       "no corr.", "wrong");
		struct score sc[N_BASE_RULES], single = { .accuracy = -1 };
		int best_v = -1, kk = k > 0 ? k : 1 << 30;
		uint64_t seed = o->seed + (uint64_t)k;
		memset(wrong_by, 0, sizeof *wrong_by * (size_t)n);
		for (int rule = 0; rule < N_BASE_RULES; rule++)
			sc[rule] = score_rule(cs, starts, n_tasks, kk, o->draws, (enum rule)rule, 0, seed,
					      rule == RULE_ENSEMBLE ? wrong_by : NULL);
		for (int v = 0; v < KF_VER_COUNT; v++) {
			if (v == KF_VER_TESTS)
				continue;
			struct score x = score_rule(cs, starts, n_tasks, kk, o->draws, RULE_SINGLE, v, seed, NULL);
			if (x.accuracy > single.accuracy) {
				single = x;
				best_v = v;
			}
		}
		cJSON *row = cJSON_CreateObject();
		cJSON_AddNumberToObject(row, "k", k);
		cJSON_AddNumberToObject(row, "pass_at_k", pk);
		static const char *const keys[] = { "ensemble", "tests", "majority" };
		for (int rule = 0; rule < N_BASE_RULES; rule++) {
			score_row(rule_names[rule], &sc[rule], pk);
			cJSON_AddItemToObject(row, keys[rule], score_json(&sc[rule]));
		}
		char name[64];
		snprintf(name, sizeof name, "best single verifier (%s)", kf_verifier_name((enum kf_verifier)best_v));
		score_row(name, &single, pk);
		cJSON *sj = score_json(&single);
		cJSON_AddStringToObject(sj, "verifier", kf_verifier_name((enum kf_verifier)best_v));
		cJSON_AddItemToObject(row, "best_single", sj);
		printf("  %-34s %9.3f\n\n", "pass@k (unbiased estimator)", pk);
		explain_losses(cs, n, &sc[RULE_ENSEMBLE], wrong_by, row);
		/* Every rule loses the draws without a correct kernel, so the comparison between rules is the
		 * same over all draws and over solvable ones; the 0.95 target is read over solvable draws,
		 * where pass@k is below it, and over all draws otherwise. */
		double e = sc[RULE_ENSEMBLE].accuracy;
		bool capped = pk < TARGET_SELECTION_ACCURACY;
		bool beats = e >= sc[RULE_TESTS].accuracy && e >= sc[RULE_MAJORITY].accuracy && e >= single.accuracy;
		bool high = (capped ? sc[RULE_ENSEMBLE].solvable : e) >= TARGET_SELECTION_ACCURACY;
		met = met && beats && high;
		printf("  ensemble >= %.2f %s: %s; >= every baseline: %s\n\n", TARGET_SELECTION_ACCURACY,
		       capped ? "over the draws holding a correct kernel (pass@k is below the target)" : "over every draw",
		       high ? "yes" : "NO", beats ? "yes" : "NO");
		cJSON_AddBoolToObject(row, "target_over_solvable_draws", capped);
		cJSON_AddBoolToObject(row, "target_met", high && beats);
		cJSON_AddItemToArray(arr, row);
	}
	free(wrong_by);
	cJSON_AddBoolToObject(out, "selection_target_met", met);
}

static void kernel_table(const struct cand *cs, int n)
{
	printf("Per kernel (votes: + pass, x fail, . abstain; columns in the order of kforge rank --help):\n\n");
	for (int i = 0; i < n; i++) {
		const struct kf_ranked *r = cs[i].r;
		char votes[KF_VER_COUNT + 1];
		for (int v = 0; v < KF_VER_COUNT; v++)
			votes[v] = r->votes[v].vote == KF_VOTE_PASS ? '+' : r->votes[v].vote == KF_VOTE_FAIL ? 'x' : '.';
		votes[KF_VER_COUNT] = '\0';
		printf("  %-48s %-9s %-17s P=%-6.3f %s\n", r->submitter, cs[i].label ? "correct" : "incorrect", r->verdict,
		       r->p_correct, votes);
	}
	printf("\n");
}

static int evaluate(struct kernel *ks, int n, const struct opts *o)
{
	struct kf_ranking *r = judge_and_rank(ks, n, o);
	struct cand *cs = calloc((size_t)r->n + 1, sizeof *cs);
	int *starts = calloc((size_t)r->n + 2, sizeof *starts), n_tasks = 0, m = 0;
	for (int i = 0; i < r->n; i++) {
		int label = label_of(ks, n, r->c[i].submitter);
		if (label < 0)
			continue; /* a candidate of the database that is not a corpus kernel of this pass */
		if (!m || strcmp(r->c[i].task, cs[m - 1].r->task))
			starts[n_tasks++] = m;
		cs[m++] = (struct cand){ &r->c[i], label };
	}
	starts[n_tasks] = m;
	cJSON *out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "backend", kf_backend_name(o->backend));
	int correct = 0, passed = 0, passed_wrong = 0;
	for (int i = 0; i < m; i++) {
		correct += cs[i].label;
		passed += cs[i].r->gates_passed;
		passed_wrong += cs[i].r->gates_passed && !cs[i].label;
	}
	printf("Corpus (%s): %d kernels over %d tasks; %d correct by the labelling battery; %d passed the judge's\n"
	       "default tests, %d of those incorrect.\n\n", kf_backend_name(o->backend), m, n_tasks, correct, passed,
	       passed_wrong);
	if (o->per_kernel)
		kernel_table(cs, m);
	verifier_table(r, cs, m, out);
	selection_table(cs, m, starts, n_tasks, o, out);
	char *text = cJSON_PrintUnformatted(out);
	printf("JSON: %s\n", text);
	free(text);
	cJSON_Delete(out);
	free(cs);
	free(starts);
	kf_ranking_free(r);
	return 0;
}

/* Compiles every kernel against its task's generated header, as the judge would (no run): for the
 * CUDA corpus on a machine with nvcc and no GPU. Exit 1 when one does not build. */
static int compile_corpus(const struct kernel *ks, int n, enum kf_backend b)
{
	int failed = 0;
	for (int i = 0; i < n; i++) {
		struct kf_task *t;
		kf_err err;
		if (kf_task_find(NULL, ks[i].task, &t, &err) != KF_OK)
			die(ks[i].file, &err);
		kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
		kf_abi_header(t, b, &hdr);
		kf_abi_shim(t, b, &shim);
		struct kf_compile_req req = { .backend = b, .source = ks[i].source, .source_len = ks[i].len,
					      .header = hdr.data, .shim = shim.data };
		struct kf_compile_res res;
		if (kf_compile(&req, &res, &err) != KF_OK)
			die(ks[i].file, &err);
		bool ok = res.verdict == KF_V_OK;
		failed += !ok;
		printf("%-48s %-14s %8.0f ms%s %s\n", ks[i].file, ok ? "builds" : kf_verdict_name(res.verdict), res.ms,
		       res.cached ? " (cached)" : "", ok ? "" : res.reason);
		if (!ok && res.log)
			printf("%.2000s\n", res.log);
		kf_compile_res_free(&res);
		kf_buf_free(&hdr);
		kf_buf_free(&shim);
		kf_task_free(t);
	}
	printf("%d of %d %s kernels build\n", n - failed, n, kf_backend_name(b));
	return failed ? 1 : 0;
}

static const char *const usage =
	"usage: build/bench/verifiers [--backend cpu|cuda] [--task NAME] [--corpus DIR] [--labels FILE]\n"
	"         --label [--seeds N] [--bench-seeds N]       label the corpus kernels of the backend (merged\n"
	"                                                     into FILE; other kernels' labels are kept)\n"
	"         --compile-only                              build every kernel of the backend, run nothing\n"
	"         [--k K]... [--draws R] [--seed N] [--timing-budget S] [--theta X] [--per-kernel]\n"
	"         [--db PATH [--reuse [--reverify]]]          judge, verify, rank and measure (the default)\n"
	"  --reuse     rank the kernels an earlier pass judged into --db, from their stored votes\n"
	"  --reverify  with --reuse: run the verifiers again\n"
	"  --task      only this task's kernels (labelling one task at a time fits short GPU sessions)\n";

int main(int argc, char **argv)
{
	struct kf_ranking_opts defaults;
	kf_ranking_opts_default(&defaults);
	struct opts o = { .seed = DEFAULT_BENCH_SEED, .timing_budget_s = DEFAULT_TIMING_BUDGET_S, .draws = DEFAULT_DRAWS,
			  .theta = defaults.theta };
	bool label = false, compile_only = false;
	int seeds = DEFAULT_LABEL_SEEDS, bench_seeds = DEFAULT_LABEL_BENCH_SEEDS;
	const char *corpus = CORPUS_DIR, *labels = LABELS_FILE, *backend = "cpu";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--label"))
			label = true;
		else if (!strcmp(a, "--compile-only"))
			compile_only = true;
		else if (!strcmp(a, "--per-kernel"))
			o.per_kernel = true;
		else if (!strcmp(a, "--reuse"))
			o.reuse = true;
		else if (!strcmp(a, "--reverify"))
			o.reverify = true;
		else if (v && !strcmp(a, "--seeds") && ++i)
			seeds = atoi(v);
		else if (v && !strcmp(a, "--bench-seeds") && ++i)
			bench_seeds = atoi(v);
		else if (v && !strcmp(a, "--k") && ++i && o.n_ks < MAX_KS)
			o.ks[o.n_ks++] = atoi(v);
		else if (v && !strcmp(a, "--draws") && ++i)
			o.draws = atoi(v);
		else if (v && !strcmp(a, "--seed") && ++i)
			o.seed = strtoull(v, NULL, 0);
		else if (v && !strcmp(a, "--timing-budget") && ++i)
			o.timing_budget_s = atof(v);
		else if (v && !strcmp(a, "--theta") && ++i)
			o.theta = atof(v);
		else if (v && !strcmp(a, "--db") && ++i)
			o.db = v;
		else if (v && !strcmp(a, "--corpus") && ++i)
			corpus = v;
		else if (v && !strcmp(a, "--labels") && ++i)
			labels = v;
		else if (v && !strcmp(a, "--backend") && ++i)
			backend = v;
		else if (v && !strcmp(a, "--task") && ++i)
			o.task = v;
		else {
			fputs(usage, a && !strcmp(a, "--help") ? stdout : stderr);
			return a && !strcmp(a, "--help") ? 0 : 2;
		}
	}
	if (!o.n_ks) {
		for (int i = 0; i < N_DEFAULT_KS; i++)
			o.ks[o.n_ks++] = default_ks[i];
		o.ks[o.n_ks++] = 0; /* the whole corpus */
	}
	if (seeds < 1 || bench_seeds < 0 || o.draws < 1 || !(o.timing_budget_s > 0) || !(o.theta >= 0 && o.theta <= 1) ||
	    (o.reuse && !o.db) ||
	    (o.reverify && !o.reuse) || kf_backend_parse(backend, &o.backend) != 0 || (label && compile_only)) {
		fputs(usage, stderr);
		return 2;
	}
	int n;
	struct kernel *ks = load_corpus(corpus, o.backend, o.task, &n);
	int rc = 0;
	if (compile_only) {
		rc = compile_corpus(ks, n, o.backend);
	} else if (label) {
		rc = label_corpus(ks, n, o.backend, seeds, bench_seeds, labels);
	} else {
		read_labels(labels, ks, n, o.backend);
		rc = evaluate(ks, n, &o);
	}
	for (int i = 0; i < n; i++)
		free(ks[i].source);
	free(ks);
	return rc;
}
