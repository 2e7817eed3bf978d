/* The optional LLM-judge verifier (DESIGN.md §9): a model is shown a task (the generated header with
 * its description, shapes shown to authors, tolerance and rules) and one candidate's source through
 * prompts/llm_judge.md, and the last "VERDICT: correct|incorrect|unsure" line of its reply becomes a
 * pass, fail or abstain vote; the reply, tokens and latency are kept as evidence. Every candidate of
 * a ranking is asked at once over one kf_http handle (agent/http.h, with its retries). Plugs into
 * eval/rank/rank.h as its kf_ranking_llm_judge_fn; a request that fails for good is an abstain. */
#ifndef KF_LLM_JUDGE_H
#define KF_LLM_JUDGE_H

#include <stddef.h>

#include "agent/http.h"
#include "agent/provider.h"
#include "eval/rank/rank.h"

struct kf_llm_judge {
	enum kf_provider_kind provider;
	const char *base_url;    /* NULL: the provider's public API */
	const char *api_key;     /* from the environment; never stored */
	struct kf_llm_params params;
	struct kf_http_opts http;
	int concurrency;         /* requests in flight */
};

/* Defaults: temperature 0, a reply budget for a short review, the HTTP defaults. */
void kf_llm_judge_init(struct kf_llm_judge *j, enum kf_provider_kind provider, const char *base_url,
		       const char *model, const char *api_key);

/* The kf_ranking_llm_judge_fn (ctx is the struct kf_llm_judge). */
int kf_llm_judge_votes(void *ctx, const struct kf_ranking_llm_item *items, int n, struct kf_vote_rec *votes,
		       kf_err *err);

/* The vote of a reply: its last VERDICT line (case, markdown emphasis and surrounding spaces
 * ignored); abstain when there is none or it says unsure. word gets "correct", "incorrect",
 * "unsure" or "" (none found). */
enum kf_vote kf_llm_judge_parse(const char *reply, char *word, size_t len);

#endif
