/* The LLM-judge verifier (agent/llm_judge.c): the VERDICT line of a reply becomes a vote, and every
 * candidate is asked at once against the loopback server, whose "example kernels" here are review
 * texts, one per task; faults are retried and a request that fails for good is an abstain. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "agent/llm_judge.h"
#include "common/fs.h"
#include "tests/support/llm_server.h"

#define TEST_TIMEOUT_S 120
#define MODEL "judge-model"
#define N_ITEMS 3

static char dir[PATH_MAX];
static struct kf_llm_server *srv;
static struct kf_task *tasks[N_ITEMS];
static const char *const task_names[N_ITEMS] = { "vector_add", "softmax_rows", "layernorm_bf16" };

static void write_review(const char *task, const char *text)
{
	char path[PATH_MAX + 64];
	kf_err err;
	snprintf(path, sizeof path, "%s/%s.c", dir, task);
	cr_assert_eq(kf_write_file(path, text, strlen(text), &err), KF_OK, "%s", err.msg);
}

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_mkdtemp("/tmp", "kforge-llm-judge-", dir, sizeof dir, &err), KF_OK, "%s", err.msg);
	for (int i = 0; i < N_ITEMS; i++)
		cr_assert_eq(kf_task_find(NULL, task_names[i], &tasks[i], &err), KF_OK, "%s", err.msg);
	/* The server serves <task>.c as the reply's code block; layernorm_bf16 has none, so its reply is
	 * a kernel without a verdict. */
	write_review("vector_add", "The last n % 8 elements are never added.\nVERDICT: incorrect\n");
	write_review("softmax_rows", "The max is taken over the whole row first.\n**Verdict:** Correct.\n");
}

static void teardown(void)
{
	kf_llm_server_stop(srv);
	srv = NULL;
	for (int i = 0; i < N_ITEMS; i++)
		kf_task_free(tasks[i]);
	if (dir[0])
		kf_rm_rf(dir);
}

TestSuite(agent_llm_judge, .init = setup, .fini = teardown, .timeout = TEST_TIMEOUT_S);

static enum kf_vote parse(const char *reply, const char *want_word)
{
	char word[16];
	enum kf_vote v = kf_llm_judge_parse(reply, word, sizeof word);
	cr_expect_str_eq(word, want_word, "reply: %s", reply);
	return v;
}

Test(agent_llm_judge, reads_the_last_verdict_line_of_a_reply)
{
	cr_expect_eq(parse("Looks fine.\nVERDICT: correct", "correct"), KF_VOTE_PASS);
	cr_expect_eq(parse("VERDICT: incorrect\n", "incorrect"), KF_VOTE_FAIL);
	cr_expect_eq(parse("**Verdict**: *Incorrect* - the tail is lost", "incorrect"), KF_VOTE_FAIL);
	cr_expect_eq(parse("  > verdict : correct.", "correct"), KF_VOTE_PASS);
	cr_expect_eq(parse("VERDICT: incorrect\nOn second thought the guard covers it.\nVERDICT: correct\n", "correct"),
		     KF_VOTE_PASS, "the last verdict counts");
	cr_expect_eq(parse("VERDICT: unsure", "unsure"), KF_VOTE_ABSTAIN);
	cr_expect_eq(parse("It is probably correct.", ""), KF_VOTE_ABSTAIN, "no VERDICT line");
	cr_expect_eq(parse("The verdict is correct.", ""), KF_VOTE_ABSTAIN, "a verdict inside a sentence does not count");
	cr_expect_eq(parse("VERDICT: correctish", ""), KF_VOTE_ABSTAIN);
	cr_expect_eq(parse("", ""), KF_VOTE_ABSTAIN);
}

static void items(struct kf_ranking_llm_item *it)
{
	for (int i = 0; i < N_ITEMS; i++)
		it[i] = (struct kf_ranking_llm_item){ tasks[i], KF_BACKEND_CPU, i + 1,
						      "int kf_launch(void) { return 0; }\n" };
}

static void ask(const struct kf_llm_server_config *sc, struct kf_vote_rec *votes)
{
	kf_err err;
	cr_assert_eq(kf_llm_server_start(sc, &srv, &err), KF_OK, "%s", err.msg);
	struct kf_llm_judge j;
	kf_llm_judge_init(&j, KF_PROVIDER_OPENAI, kf_llm_server_url(srv), MODEL, NULL);
	j.http.backoff_base_s = 0.01;
	struct kf_ranking_llm_item it[N_ITEMS];
	items(it);
	cr_assert_eq(kf_llm_judge_votes(&j, it, N_ITEMS, votes, &err), KF_OK, "%s", err.msg);
}

static const char *ev_str(const struct kf_vote_rec *v, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v->evidence, key));
}

static void free_votes(struct kf_vote_rec *votes)
{
	for (int i = 0; i < N_ITEMS; i++)
		cJSON_Delete(votes[i].evidence);
}

Test(agent_llm_judge, asks_every_candidate_and_keeps_the_reply_as_evidence)
{
	struct kf_llm_server_config sc = { .examples_dir = dir };
	struct kf_vote_rec votes[N_ITEMS];
	ask(&sc, votes);
	cr_expect_eq(kf_llm_server_requests(srv), N_ITEMS);
	cr_expect_eq(kf_llm_server_task_requests(srv, "vector_add"), 1, "the prompt names the task");
	cr_expect_eq(votes[0].vote, KF_VOTE_FAIL);
	cr_expect_eq(votes[1].vote, KF_VOTE_PASS);
	cr_expect_eq(votes[2].vote, KF_VOTE_ABSTAIN, "a reply without a verdict");
	for (int i = 0; i < N_ITEMS; i++) {
		cr_expect_str_eq(ev_str(&votes[i], "model"), MODEL);
		cr_expect_eq(strlen(ev_str(&votes[i], "prompt_sha256")), 64);
		cr_expect_not_null(ev_str(&votes[i], "why"));
		cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(votes[i].evidence, "tokens_in")), 1000);
	}
	cr_expect(strstr(ev_str(&votes[0], "reply"), "never added"), "%s", ev_str(&votes[0], "reply"));
	cr_expect_str_eq(ev_str(&votes[0], "verdict"), "incorrect");
	cr_expect(strstr(ev_str(&votes[2], "why"), "no VERDICT line"), "%s", ev_str(&votes[2], "why"));
	free_votes(votes);
}

Test(agent_llm_judge, retries_a_server_error_and_abstains_when_refused)
{
	static const enum kf_llm_fault faults[] = { KF_LLM_FAULT_500, KF_LLM_FAULT_401 };
	struct kf_llm_server_config sc = { .examples_dir = dir, .faults = faults, .n_faults = 2 };
	struct kf_vote_rec votes[N_ITEMS];
	ask(&sc, votes);
	cr_expect_eq(kf_llm_server_requests(srv), N_ITEMS + 1, "the 500 is retried once, the 401 never");
	int refused = 0, answered = 0;
	for (int i = 0; i < N_ITEMS; i++) {
		const char *why = ev_str(&votes[i], "why");
		if (strstr(why, "could not be asked")) {
			refused++;
			cr_expect_eq(votes[i].vote, KF_VOTE_ABSTAIN);
			cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(votes[i].evidence, "http_status")), 401);
		} else {
			answered++;
		}
	}
	cr_expect_eq(refused, 1);
	cr_expect_eq(answered, N_ITEMS - 1);
	free_votes(votes);
}

Test(agent_llm_judge, names_a_missing_prompt_template)
{
	char env[PATH_MAX + 32];
	snprintf(env, sizeof env, "%s/no-prompts", dir);
	setenv("KFORGE_PROMPTS", env, 1);
	struct kf_llm_judge j;
	kf_llm_judge_init(&j, KF_PROVIDER_OPENAI, "http://127.0.0.1:9/v1", MODEL, NULL);
	struct kf_ranking_llm_item it[N_ITEMS];
	struct kf_vote_rec votes[N_ITEMS];
	items(it);
	kf_err err;
	cr_expect_neq(kf_llm_judge_votes(&j, it, N_ITEMS, votes, &err), KF_OK);
	cr_expect(strstr(err.msg, "llm_judge.md"), "%s", err.msg);
	for (int i = 0; i < N_ITEMS; i++)
		cr_expect_eq(votes[i].vote, KF_VOTE_ABSTAIN);
	unsetenv("KFORGE_PROMPTS");
}
