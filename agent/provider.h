/* LLM providers: the two wire formats kforge speaks, OpenAI-compatible chat completions (OpenAI,
 * vLLM, SGLang, llama.cpp server, Ollama, Together, DeepSeek...) and Anthropic messages, behind one
 * small table of functions: the URL, the headers (the API key is read from the environment here and
 * goes nowhere else), the request body, and the parse of a reply into text, finish reason and token
 * counts. Sends nothing itself (agent/http.c does). */
#ifndef KF_PROVIDER_H
#define KF_PROVIDER_H

#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "common/buf.h"
#include "common/err.h"

enum kf_provider_kind { KF_PROVIDER_OPENAI, KF_PROVIDER_ANTHROPIC, KF_PROVIDER_COUNT };

/* Sampling parameters; a field left at its "unset" value is not sent. */
struct kf_llm_params {
	const char *model;
	double temperature;           /* NAN: unset */
	int max_tokens;               /* > 0 */
	const char *reasoning_effort; /* OpenAI reasoning models: "low" | "medium" | "high"; NULL: unset */
	int thinking_budget;          /* Anthropic extended thinking, tokens; 0: off */
};

#define KF_FINISH_REASON_MAX 32

/* A parsed reply. Counts are -1 when the provider did not report them. */
struct kf_llm_reply {
	char *text;                    /* the assistant's text (thinking blocks left out); never NULL */
	char finish_reason[KF_FINISH_REASON_MAX];
	int64_t tokens_in, tokens_out, tokens_reasoning;
};

#define KF_HTTP_HEADERS_MAX 4

struct kf_provider {
	const char *name;             /* "openai" | "anthropic" */
	const char *default_base_url;
	const char *key_env;          /* environment variable holding the API key */
	const char *path;             /* appended to the base URL */
	/* headers[] gets "Name: value" strings (freed by kf_provider_headers_free), NULL-terminated. */
	void (*headers)(const char *api_key, char *headers[KF_HTTP_HEADERS_MAX + 1]);
	/* messages: [{"role": "system"|"user"|"assistant", "content": "..."}], in order. */
	cJSON *(*body)(const struct kf_llm_params *p, const cJSON *messages);
	/* KF_OK with *out filled; KF_EINPUT when the body is not a well-formed reply (say why). */
	int (*parse)(const char *body, size_t len, struct kf_llm_reply *out, kf_err *err);
};

const struct kf_provider *kf_provider_get(enum kf_provider_kind k);
/* 0 and *out on "openai" / "anthropic", -1 otherwise. */
int kf_provider_parse_name(const char *name, enum kf_provider_kind *out);

/* The API key from the provider's environment variable, or NULL when unset or empty. */
const char *kf_provider_api_key(const struct kf_provider *p);
/* base URL (no trailing slash needed) + the provider's path. */
void kf_provider_url(const struct kf_provider *p, const char *base_url, kf_buf *out);
void kf_provider_headers_free(char *headers[KF_HTTP_HEADERS_MAX + 1]);
/* The message of an error body ({"error": {"message": ...}} in both APIs), or NULL. */
const char *kf_provider_error_message(const cJSON *body);

void kf_llm_reply_free(struct kf_llm_reply *r);

#endif
