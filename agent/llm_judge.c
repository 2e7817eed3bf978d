/* The LLM-judge verifier (see llm_judge.h): prompts from prompts/llm_judge.md, every candidate asked
 * at once on one kf_http handle, replies turned into votes. */
#include "agent/llm_judge.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent/extract.h"
#include "agent/prompt.h"
#include "common/buf.h"
#include "common/sha256.h"
#include "eval/tasks/abi.h"

#define JUDGE_FILE "llm_judge.md"
#define JUDGE_TEMPERATURE 0.0
#define JUDGE_MAX_TOKENS 4096   /* a short review and the verdict line */
#define JUDGE_CONCURRENCY 8
#define JUDGE_STEP_MS 1000
#define REPLY_EVIDENCE_MAX 4000 /* characters of the reply kept with the vote */
#define VERDICT_WORD "verdict"
#define WORD_MAX 16

void kf_llm_judge_init(struct kf_llm_judge *j, enum kf_provider_kind provider, const char *base_url,
		       const char *model, const char *api_key)
{
	memset(j, 0, sizeof *j);
	j->provider = provider;
	j->base_url = base_url;
	j->api_key = api_key;
	j->params.model = model;
	j->params.temperature = JUDGE_TEMPERATURE;
	j->params.max_tokens = JUDGE_MAX_TOKENS;
	kf_http_opts_default(&j->http);
	j->concurrency = JUDGE_CONCURRENCY;
}

/* ---- parsing ---- */

static bool decoration(char c)
{
	return c == ' ' || c == '\t' || c == '*' || c == '_' || c == '`' || c == '#' || c == '>' || c == '-';
}

/* The verdict word of one line, or "" when the line is not a VERDICT line. */
static void line_verdict(const char *p, const char *end, char word[WORD_MAX])
{
	word[0] = '\0';
	while (p < end && decoration(*p))
		p++;
	size_t key = strlen(VERDICT_WORD);
	if ((size_t)(end - p) < key || strncasecmp(p, VERDICT_WORD, key) != 0)
		return;
	p += key;
	while (p < end && decoration(*p))
		p++;
	if (p >= end || *p != ':')
		return;
	p++;
	while (p < end && decoration(*p))
		p++;
	size_t n = 0;
	while (p < end && isalpha((unsigned char)*p) && n + 1 < WORD_MAX)
		word[n++] = (char)tolower((unsigned char)*p++);
	word[n] = '\0';
}

enum kf_vote kf_llm_judge_parse(const char *reply, char *word, size_t len)
{
	enum kf_vote v = KF_VOTE_ABSTAIN;
	char last[WORD_MAX] = "";
	for (const char *p = reply; p && *p;) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		char w[WORD_MAX];
		line_verdict(p, end, w);
		if (!strcmp(w, "correct") || !strcmp(w, "incorrect") || !strcmp(w, "unsure"))
			snprintf(last, sizeof last, "%s", w);
		p = eol ? eol + 1 : end;
	}
	if (!strcmp(last, "correct"))
		v = KF_VOTE_PASS;
	else if (!strcmp(last, "incorrect"))
		v = KF_VOTE_FAIL;
	snprintf(word, len, "%s", last);
	return v;
}

/* ---- asking ---- */

struct ask {
	const struct kf_llm_judge *j;
	const struct kf_provider *prov;
	const struct kf_ranking_llm_item *item;
	struct kf_vote_rec *vote;
	char *body;
	char prompt_hash[KF_SHA256_HEX_LEN];
};

static void set_vote(struct kf_vote_rec *v, enum kf_vote vote, cJSON *evidence, const char *why)
{
	cJSON_AddStringToObject(evidence, "why", why);
	v->vote = vote;
	v->evidence = evidence;
}

static cJSON *evidence_base(const struct ask *a)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "model", a->j->params.model);
	cJSON_AddStringToObject(e, "prompt_sha256", a->prompt_hash);
	return e;
}

static void on_done(void *user, struct kf_http_response *resp)
{
	struct ask *a = user;
	cJSON *e = evidence_base(a);
	cJSON_AddNumberToObject(e, "attempts", resp->attempts);
	cJSON_AddNumberToObject(e, "latency_ms", resp->latency_ms);
	struct kf_llm_reply reply = { 0 };
	kf_err perr;
	char why[KF_ERR_MSG_MAX];
	if (resp->result != KF_HTTP_OK) {
		cJSON_AddStringToObject(e, "outcome", kf_http_result_name(resp->result));
		if (resp->status)
			cJSON_AddNumberToObject(e, "http_status", (double)resp->status);
		snprintf(why, sizeof why, "the LLM judge could not be asked: %s", resp->error);
		set_vote(a->vote, KF_VOTE_ABSTAIN, e, why);
	} else if (a->prov->parse(resp->body, resp->body_len, &reply, &perr) != KF_OK) {
		snprintf(why, sizeof why, "the LLM judge's reply is not well formed: %s", perr.msg);
		set_vote(a->vote, KF_VOTE_ABSTAIN, e, why);
	} else {
		char word[WORD_MAX];
		enum kf_vote v = kf_llm_judge_parse(reply.text, word, sizeof word);
		cJSON_AddStringToObject(e, "verdict", word);
		cJSON_AddStringToObject(e, "finish_reason", reply.finish_reason);
		if (reply.tokens_in >= 0)
			cJSON_AddNumberToObject(e, "tokens_in", (double)reply.tokens_in);
		if (reply.tokens_out >= 0)
			cJSON_AddNumberToObject(e, "tokens_out", (double)reply.tokens_out);
		char excerpt[REPLY_EVIDENCE_MAX + 1];
		snprintf(excerpt, sizeof excerpt, "%s", reply.text);
		cJSON_AddStringToObject(e, "reply", excerpt);
		if (!word[0])
			snprintf(why, sizeof why, "%s gave no VERDICT line", a->j->params.model);
		else
			snprintf(why, sizeof why, "%s says %s", a->j->params.model, word);
		set_vote(a->vote, v, e, why);
	}
	kf_llm_reply_free(&reply);
	free(resp->body);
}

static bool body_ok(void *user, const char *body, size_t len)
{
	struct ask *a = user;
	struct kf_llm_reply reply = { 0 };
	kf_err err;
	bool ok = a->prov->parse(body, len, &reply, &err) == KF_OK;
	kf_llm_reply_free(&reply);
	return ok;
}

static int render(const struct kf_ranking_llm_item *it, const char *section, kf_buf *out, kf_err *err)
{
	kf_buf header = KF_BUF_INIT;
	kf_abi_header(it->t, it->backend, &header);
	const struct kf_prompt_var vars[] = {
		{ "task", it->t->name },
		{ "backend", kf_backend_name(it->backend) },
		{ "language", kf_extract_language(it->backend) },
		{ "description", it->t->description ? it->t->description : "" },
		{ "header", header.data },
		{ "source", it->source },
	};
	int rc = kf_prompt_render(JUDGE_FILE, section, vars, (int)(sizeof vars / sizeof vars[0]), out, err);
	kf_buf_free(&header);
	return rc;
}

/* The request body for one item, and the hash of its conversation. */
static int prepare(struct ask *a, kf_err *err)
{
	kf_buf sys = KF_BUF_INIT, user = KF_BUF_INIT;
	int rc = render(a->item, "system", &sys, err);
	if (rc == KF_OK)
		rc = render(a->item, "user", &user, err);
	if (rc == KF_OK) {
		cJSON *messages = cJSON_CreateArray(), *m;
		const char *roles[] = { "system", "user" };
		const char *texts[] = { sys.data, user.data };
		for (int i = 0; i < 2; i++) {
			m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "role", roles[i]);
			cJSON_AddStringToObject(m, "content", texts[i]);
			cJSON_AddItemToArray(messages, m);
		}
		char *text = cJSON_PrintUnformatted(messages);
		kf_sha256_hex(text, strlen(text), a->prompt_hash);
		cJSON_free(text);
		cJSON *body = a->prov->body(&a->j->params, messages);
		a->body = cJSON_PrintUnformatted(body);
		cJSON_Delete(body);
		cJSON_Delete(messages);
	}
	kf_buf_free(&sys);
	kf_buf_free(&user);
	return rc;
}

int kf_llm_judge_votes(void *ctx, const struct kf_ranking_llm_item *items, int n, struct kf_vote_rec *votes,
		       kf_err *err)
{
	const struct kf_llm_judge *j = ctx;
	const struct kf_provider *prov = kf_provider_get(j->provider);
	struct ask *asks = kf_xcalloc((size_t)n + 1, sizeof *asks);
	char *headers[KF_HTTP_HEADERS_MAX + 1] = { 0 };
	kf_buf url = KF_BUF_INIT;
	struct kf_http *h = NULL;
	int rc = KF_OK, sent = 0;
	for (int i = 0; i < n; i++)
		votes[i] = (struct kf_vote_rec){ KF_VOTE_ABSTAIN, NULL };
	for (int i = 0; i < n && rc == KF_OK; i++) {
		asks[i] = (struct ask){ .j = j, .prov = prov, .item = &items[i], .vote = &votes[i] };
		rc = prepare(&asks[i], err);
	}
	const struct kf_http_callbacks cb = { NULL, on_done, body_ok };
	if (rc != KF_OK || (rc = kf_http_new(&j->http, &cb, &h, err)) != KF_OK)
		goto out;
	kf_provider_url(prov, j->base_url ? j->base_url : prov->default_base_url, &url);
	prov->headers(j->api_key, headers);
	while (rc == KF_OK && (sent < n || kf_http_pending(h) > 0)) {
		while (sent < n && kf_http_pending(h) < j->concurrency && rc == KF_OK) {
			struct kf_http_request req = { .url = url.data, .headers = (const char *const *)headers,
						       .body = asks[sent].body, .body_len = strlen(asks[sent].body),
						       .user = &asks[sent], .secret = j->api_key };
			rc = kf_http_submit(h, &req, err);
			sent++;
		}
		if (rc == KF_OK)
			rc = kf_http_step(h, JUDGE_STEP_MS, err);
	}
out:
	kf_http_free(h);
	kf_provider_headers_free(headers);
	kf_buf_free(&url);
	for (int i = 0; i < n; i++) {
		free(asks[i].body);
		if (rc != KF_OK) {
			cJSON_Delete(votes[i].evidence);
			votes[i] = (struct kf_vote_rec){ KF_VOTE_ABSTAIN, NULL };
		}
	}
	free(asks);
	return rc;
}
