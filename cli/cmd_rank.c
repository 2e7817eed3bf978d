/* `kforge rank RUN|all`: verifies the candidates of a run (or of the whole database) with the weak
 * verifiers (and, when asked, the LLM judge of agent/llm_judge.h), fits the label model over them,
 * and prints each task's candidates in ranking order with every verifier's vote and the posterior
 * P(correct). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/llm_judge.h"
#include "cli/cli.h"
#include "eval/rank/rank.h"
#include "eval/tasks/task.h"

#define KF_RANK_MAX_RUNS KF_CLI_MAX_POSITIONAL
#define KF_RANK_SUBMITTER_WIDTH 24

static const char *const help_head =
	"usage: kforge rank RUN|all [RUN...] [--task NAME] [--theta X] [--reverify] [--json] [--evidence] [--db PATH]\n"
	"                   [--llm-judge MODEL [--llm-base-url URL] [--llm-provider openai|anthropic]]\n"
	"\n"
	"Ranks the candidates of agent run RUN (or of every candidate in the database with 'all'), each at\n"
	"its latest evaluation. Every candidate is checked by weak verifiers (their votes are stored and\n"
	"reused); a label model (Dawid-Skene EM, no labels needed, sign anchored on the hidden shapes) is\n"
	"fitted over the candidates of every task in scope that passed the judge's hard gates, and gives\n"
	"each of them P(correct). Per task, the order is: passed the hard gates (verdict ok), then\n"
	"P(correct) >= theta, then SOL fraction (higher first); ties by lower timing IQR, then shorter source.\n"
	"When the model keeps no verifier (a handful of candidates), the survivors that no verifier re-running\n"
	"them failed are trusted. kforge run ranks its candidates the same way before each refinement round.\n"
	"\n"
	"  --task NAME   show only this task (the label model still pools the whole scope)\n"
	"  --theta X     trust threshold for P(correct), in [0, 1] (default 0.5)\n"
	"  --reverify    run the verifiers again even where votes are stored\n"
	"  --json        print one JSON object (scope, theta, fit_id, label_model, tasks[].candidates[])\n"
	"  --evidence    with --json: each vote's evidence too\n"
	"  --db PATH     database (default: $KFORGE_DB, else ./kforge.db)\n"
	KF_SUITE_OPT_HELP
	"  --llm-judge MODEL  also ask MODEL whether each candidate that passed the gates is correct (the\n"
	"                llm_judge verifier; prompt in prompts/llm_judge.md; asked again only for candidates it\n"
	"                has not judged). Endpoint: --llm-base-url (an OpenAI-compatible server) or the public\n"
	"                API of --llm-provider (default openai; the key from OPENAI_API_KEY or ANTHROPIC_API_KEY)\n"
	"\n"
	"Verifiers (pass +, fail x, abstain .):\n";

static const char *const help_tail =
	"\n"
	"Exit codes: 0 ranked, 2 usage or input error (unknown run, nothing to rank), 3 internal error.\n"
	"Examples:\n"
	"  kforge rank 3\n"
	"  kforge rank all --task softmax_rows --json --evidence\n"
	"  kforge rank 3 --llm-judge Qwen/Qwen2.5-Coder-32B-Instruct --llm-base-url http://localhost:8000/v1\n";

static void print_help(void)
{
	fputs(help_head, stdout);
	for (int v = 0; v < KF_VER_COUNT; v++)
		printf("  %-13s %s\n", kf_verifier_name((enum kf_verifier)v), kf_verifier_summary((enum kf_verifier)v));
	fputs(help_tail, stdout);
}

static char vote_char(enum kf_vote v)
{
	return v == KF_VOTE_PASS ? '+' : v == KF_VOTE_FAIL ? 'x' : '.';
}

static void print_model(const struct kf_ranking *r)
{
	const struct kf_lm_fit *f = &r->fit;
	printf("kforge rank: %s, theta %.3g; %d candidate%s passed the hard gates and are in the label model (%d verified now)\n", r->scope, r->theta,
	       r->n_fitted, r->n_fitted == 1 ? "" : "s", r->n_verified);
	if (!f->n_kept) {
		printf("label model: no verifier kept (too few or too uniform votes); trusted: the survivors that no\n"
		       "verifier re-running them (ragged, hidden, stress, determinism, consensus, sanitizers) failed\n\n");
		return;
	}
	printf("label model: prior P(correct) %.3f, %d EM iterations%s, sign %s", f->prior, f->iterations,
	       f->converged ? "" : " (not converged)", f->anchored ? "anchored on " KF_RANKING_ANCHOR_NAME : "from the kept verifiers");
	if (isfinite(f->triplet_prior))
		printf("; triplet prior %.3f", f->triplet_prior);
	printf("\n  %-13s %-13s %6s %6s %6s  %s\n", "verifier", "status", "votes", "TPR", "FPR", "triplet TPR/FPR");
	for (int i = 0; i < f->n_verifiers; i++) {
		const struct kf_lm_verifier *v = &f->verifiers[i];
		printf("  %-13s %-13s %6d", kf_verifier_name((enum kf_verifier)i), kf_lm_status_name(v->status), v->n_votes);
		if (isfinite(v->tpr))
			printf(" %6.3f %6.3f", v->tpr, v->fpr);
		else
			printf(" %6s %6s", "-", "-");
		if (isfinite(v->triplet_tpr))
			printf("  %.3f/%.3f", v->triplet_tpr, v->triplet_fpr);
		printf("\n");
	}
	printf("\n");
}

static void print_human(const struct kf_ranking *r)
{
	print_model(r);
	for (int i = 0; i < r->n; i++) {
		const struct kf_ranked *c = &r->c[i];
		if (c->position == 1)
			printf("%s%s (%s)\n  %4s %6s %-*s %-17s %7s %9s %10s  votes\n", i ? "\n" : "", c->task, c->backend,
			       "rank", "id", KF_RANK_SUBMITTER_WIDTH, "submitter", "verdict", "P(ok)", "SOL", "time ms");
		char votes[KF_VER_COUNT + 1];
		for (int v = 0; v < KF_VER_COUNT; v++)
			votes[v] = vote_char(c->votes[v].vote);
		votes[KF_VER_COUNT] = '\0';
		char p[16] = "-", sol[16] = "-", t[16] = "-";
		if (isfinite(c->p_correct))
			snprintf(p, sizeof p, "%.3f%s", c->p_correct, c->trusted ? "*" : "");
		if (isfinite(c->sol_fraction))
			snprintf(sol, sizeof sol, "%.3g", c->sol_fraction);
		if (isfinite(c->time_ms))
			snprintf(t, sizeof t, "%.4g", c->time_ms);
		printf("  %4d %6lld %-*.*s %-17s %7s %9s %10s  %s\n", c->position, (long long)c->submission_id,
		       KF_RANK_SUBMITTER_WIDTH, KF_RANK_SUBMITTER_WIDTH, c->submitter ? c->submitter : "", c->verdict, p, sol, t,
		       votes);
	}
	printf("\n* trusted: P(correct) >= theta%s. Votes: + pass, x fail, . abstain; one column per verifier:",
	       r->unanimity ? " (here: no re-running verifier failed it, the model kept none)" : "");
	for (int v = 0; v < KF_VER_COUNT; v++)
		printf(" %s", kf_verifier_name((enum kf_verifier)v));
	printf("\n");
}

static int parse_theta(const char *s, double *out, kf_err *err)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !*s || !(v >= 0 && v <= 1))
		return kf_errf(err, KF_EINPUT, "--theta must be a number in [0, 1], not '%s'", s);
	*out = v;
	return KF_OK;
}

static int parse_runs(const char *const *pos, int n, int64_t *ids, int *n_ids, kf_err *err)
{
	*n_ids = 0;
	if (n == 0)
		return kf_errf(err, KF_EINPUT, "rank needs a RUN id or 'all' (see kforge rank --help)");
	if (n == 1 && !strcmp(pos[0], "all"))
		return KF_OK;
	for (int i = 0; i < n; i++) {
		char *end;
		errno = 0;
		long long v = strtoll(pos[i], &end, 10);
		if (errno || *end || !*pos[i] || v <= 0)
			return kf_errf(err, KF_EINPUT, "'%s' is not a run id (a positive integer) or 'all'", pos[i]);
		ids[(*n_ids)++] = v;
	}
	return KF_OK;
}

/* --llm-judge: the endpoint and its key, as `kforge run` finds them. */
static int setup_llm_judge(const char *model, const char *base_url, const char *provider, struct kf_llm_judge *j,
			   struct kf_ranking_opts *ro, kf_err *err)
{
	enum kf_provider_kind k = KF_PROVIDER_OPENAI;
	if (provider && kf_provider_parse_name(provider, &k) != 0)
		return kf_errf(err, KF_EINPUT, "--llm-provider must be openai or anthropic, not '%s'", provider);
	const char *key = kf_provider_api_key(kf_provider_get(k));
	if (!base_url && !key)
		return kf_errf(err, KF_EINPUT, "--llm-judge needs an endpoint: --llm-base-url URL, or %s set",
			       kf_provider_get(k)->key_env);
	kf_llm_judge_init(j, k, base_url, model, key);
	ro->llm_judge = kf_llm_judge_votes;
	ro->llm_judge_ctx = j;
	ro->llm_judge_model = model;
	return KF_OK;
}

int kf_cmd_rank(int argc, char **argv)
{
	const char *db = NULL, *task = NULL, *theta = NULL, *llm = NULL, *llm_url = NULL, *llm_provider = NULL;
	bool json = false, evidence = false, reverify = false, help = false;
	const struct kf_opt opts[] = {
		{ "db", true, &db, NULL },		{ "task", true, &task, NULL },
		{ "theta", true, &theta, NULL },	{ "json", false, NULL, &json },
		{ "evidence", false, NULL, &evidence }, { "reverify", false, NULL, &reverify },
		{ "llm-judge", true, &llm, NULL },	{ "llm-base-url", true, &llm_url, NULL },
		{ "llm-provider", true, &llm_provider, NULL }, KF_SUITE_OPT, { NULL, false, NULL, NULL },
	};
	const char *pos[KF_CLI_MAX_POSITIONAL];
	int n_pos = 0;
	kf_err err = { 0 };
	if (kf_cli_parse(argc, argv, opts, pos, KF_CLI_MAX_POSITIONAL, &n_pos, &help, &err) != KF_OK)
		return kf_cli_fail(&err);
	if (help) {
		print_help();
		return KF_EXIT_OK;
	}
	struct kf_ranking_opts ro;
	kf_ranking_opts_default(&ro);
	int64_t runs[KF_RANK_MAX_RUNS];
	if (parse_runs(pos, n_pos, runs, &ro.n_run_ids, &err) != KF_OK ||
	    (theta && parse_theta(theta, &ro.theta, &err) != KF_OK))
		return kf_cli_fail(&err);
	if (evidence && !json) {
		kf_errf(&err, KF_EINPUT, "--evidence goes with --json");
		return kf_cli_fail(&err);
	}
	if (!llm && (llm_url || llm_provider)) {
		kf_errf(&err, KF_EINPUT, "--llm-base-url and --llm-provider go with --llm-judge MODEL");
		return kf_cli_fail(&err);
	}
	struct kf_llm_judge judge;
	if (llm && setup_llm_judge(llm, llm_url, llm_provider, &judge, &ro, &err) != KF_OK)
		return kf_cli_fail(&err);
	ro.run_ids = runs;
	ro.task = task;
	ro.reverify = reverify;
	struct kf_store *store = NULL;
	struct kf_ranking *r = NULL;
	int rc = kf_store_open(kf_cli_db_path(db), &store, &err);
	if (rc == KF_OK)
		rc = kf_ranking_build(store, &ro, &r, &err);
	if (rc == KF_OK && task && r->n == 0)
		rc = kf_errf(&err, KF_EINPUT, "no candidate of task '%s' in %s", task, r->scope);
	if (rc != KF_OK) {
		rc = kf_cli_fail(&err);
		goto out;
	}
	if (json) {
		cJSON *j = kf_ranking_json(r, evidence);
		kf_cli_print_json(j);
		cJSON_Delete(j);
	} else {
		print_human(r);
	}
	rc = KF_EXIT_OK;
out:
	kf_ranking_free(r);
	kf_store_close(store);
	return rc;
}
