/* The OpenAI-compatible and Anthropic wire formats (see provider.h). Everything that differs
 * between the two APIs is in this file's two provider entries. */
#include "agent/provider.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANTHROPIC_VERSION "2023-06-01"

static char *header_line(const char *name, const char *value)
{
	kf_buf b = KF_BUF_INIT;
	kf_buf_addf(&b, "%s: %s", name, value);
	return kf_buf_detach(&b);
}

static void add_number_if(cJSON *o, const char *name, bool cond, double v)
{
	if (cond)
		cJSON_AddNumberToObject(o, name, v);
}

/* A JSON integer count, or -1 when absent. */
static int64_t count_of(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (int64_t)v->valuedouble : -1;
}

static void set_finish(struct kf_llm_reply *out, const cJSON *v)
{
	snprintf(out->finish_reason, sizeof out->finish_reason, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* Text of a content value: a string, null, or an array of {"type": "text", "text": ...} parts. */
static int add_content(const cJSON *content, kf_buf *text, kf_err *err)
{
	if (cJSON_IsNull(content))
		return KF_OK;
	if (cJSON_IsString(content)) {
		kf_buf_adds(text, content->valuestring);
		return KF_OK;
	}
	if (!cJSON_IsArray(content))
		return kf_errf(err, KF_EINPUT, "the reply's content is neither text nor a list of parts");
	const cJSON *part;
	cJSON_ArrayForEach(part, content) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(part, "type"));
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "text");
		if (!type)
			return kf_errf(err, KF_EINPUT, "a content part has no type");
		if (!strcmp(type, "text")) {
			if (!cJSON_IsString(t))
				return kf_errf(err, KF_EINPUT, "a text part has no text");
			kf_buf_adds(text, t->valuestring);
		}
	}
	return KF_OK;
}

/* The top-level object, or an error naming why the body is not one (truncation shows up here). */
static int parse_object(const char *body, size_t len, cJSON **out, kf_err *err)
{
	const char *end = NULL;
	*out = cJSON_ParseWithLengthOpts(body, len, &end, 0);
	if (!*out)
		return kf_errf(err, KF_EINPUT, "the reply is not valid JSON (%zu bytes, broken near byte %td)", len,
			       end ? end - body : (ptrdiff_t)0);
	if (!cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		return kf_errf(err, KF_EINPUT, "the reply is not a JSON object");
	}
	const char *msg = kf_provider_error_message(*out);
	if (msg) {
		int rc = kf_errf(err, KF_EINPUT, "the reply is an error: %.300s", msg);
		cJSON_Delete(*out);
		*out = NULL;
		return rc;
	}
	return KF_OK;
}

/* ---- OpenAI chat completions ---- */

static void openai_headers(const char *key, char *h[KF_HTTP_HEADERS_MAX + 1])
{
	int n = 0;
	h[n++] = header_line("Content-Type", "application/json");
	if (key) {
		kf_buf b = KF_BUF_INIT;
		kf_buf_addf(&b, "Authorization: Bearer %s", key);
		h[n++] = kf_buf_detach(&b);
	}
	h[n] = NULL;
}

static cJSON *openai_body(const struct kf_llm_params *p, const cJSON *messages)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "model", p->model);
	cJSON_AddItemToObject(o, "messages", cJSON_Duplicate(messages, 1));
	/* Reasoning models take max_completion_tokens and refuse a temperature. */
	if (p->reasoning_effort) {
		cJSON_AddStringToObject(o, "reasoning_effort", p->reasoning_effort);
		cJSON_AddNumberToObject(o, "max_completion_tokens", p->max_tokens);
	} else {
		cJSON_AddNumberToObject(o, "max_tokens", p->max_tokens);
		add_number_if(o, "temperature", !isnan(p->temperature), p->temperature);
	}
	return o;
}

static int openai_parse(const char *body, size_t len, struct kf_llm_reply *out, kf_err *err)
{
	cJSON *o;
	int rc = parse_object(body, len, &o, err);
	if (rc != KF_OK)
		return rc;
	kf_buf text = KF_BUF_INIT;
	const cJSON *choices = cJSON_GetObjectItemCaseSensitive(o, "choices");
	const cJSON *choice = cJSON_GetArrayItem(choices, 0);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(choice, "message");
	if (!cJSON_IsArray(choices) || !cJSON_IsObject(choice) || !cJSON_IsObject(msg)) {
		rc = kf_errf(err, KF_EINPUT, "the reply has no choices[0].message");
		goto out;
	}
	if ((rc = add_content(cJSON_GetObjectItemCaseSensitive(msg, "content"), &text, err)) != KF_OK)
		goto out;
	set_finish(out, cJSON_GetObjectItemCaseSensitive(choice, "finish_reason"));
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(o, "usage");
	out->tokens_in = count_of(usage, "prompt_tokens");
	out->tokens_out = count_of(usage, "completion_tokens");
	out->tokens_reasoning =
		count_of(cJSON_GetObjectItemCaseSensitive(usage, "completion_tokens_details"), "reasoning_tokens");
	out->text = kf_buf_detach(&text);
out:
	kf_buf_free(&text);
	cJSON_Delete(o);
	return rc;
}

/* ---- Anthropic messages ---- */

static void anthropic_headers(const char *key, char *h[KF_HTTP_HEADERS_MAX + 1])
{
	int n = 0;
	h[n++] = header_line("Content-Type", "application/json");
	h[n++] = header_line("anthropic-version", ANTHROPIC_VERSION);
	if (key)
		h[n++] = header_line("x-api-key", key);
	h[n] = NULL;
}

static cJSON *anthropic_body(const struct kf_llm_params *p, const cJSON *messages)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "model", p->model);
	/* The thinking budget counts against max_tokens: the answer keeps its own allowance. */
	cJSON_AddNumberToObject(o, "max_tokens", p->max_tokens + (p->thinking_budget > 0 ? p->thinking_budget : 0));
	kf_buf system = KF_BUF_INIT;
	cJSON *msgs = cJSON_CreateArray();
	const cJSON *m;
	cJSON_ArrayForEach(m, messages) {
		const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));
		const char *content = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "content"));
		if (!role || !content)
			continue;
		if (!strcmp(role, "system")) {
			kf_buf_addf(&system, "%s%s", system.len ? "\n\n" : "", content);
			continue;
		}
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "role", role);
		cJSON_AddStringToObject(x, "content", content);
		cJSON_AddItemToArray(msgs, x);
	}
	if (system.len)
		cJSON_AddStringToObject(o, "system", system.data);
	kf_buf_free(&system);
	cJSON_AddItemToObject(o, "messages", msgs);
	if (p->thinking_budget > 0) {
		/* Extended thinking requires the default temperature. */
		cJSON *t = cJSON_AddObjectToObject(o, "thinking");
		cJSON_AddStringToObject(t, "type", "enabled");
		cJSON_AddNumberToObject(t, "budget_tokens", p->thinking_budget);
	} else {
		add_number_if(o, "temperature", !isnan(p->temperature), p->temperature);
	}
	return o;
}

static int anthropic_parse(const char *body, size_t len, struct kf_llm_reply *out, kf_err *err)
{
	cJSON *o;
	int rc = parse_object(body, len, &o, err);
	if (rc != KF_OK)
		return rc;
	kf_buf text = KF_BUF_INIT;
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(o, "content");
	if (!cJSON_IsArray(content)) {
		rc = kf_errf(err, KF_EINPUT, "the reply has no content list");
		goto out;
	}
	if ((rc = add_content(content, &text, err)) != KF_OK)
		goto out;
	set_finish(out, cJSON_GetObjectItemCaseSensitive(o, "stop_reason"));
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(o, "usage");
	out->tokens_in = count_of(usage, "input_tokens");
	out->tokens_out = count_of(usage, "output_tokens");
	out->tokens_reasoning = -1; /* Anthropic counts thinking inside output_tokens */
	out->text = kf_buf_detach(&text);
out:
	kf_buf_free(&text);
	cJSON_Delete(o);
	return rc;
}

static const struct kf_provider providers[KF_PROVIDER_COUNT] = {
	[KF_PROVIDER_OPENAI] = {
		.name = "openai",
		.default_base_url = "https://api.openai.com/v1",
		.key_env = "OPENAI_API_KEY",
		.path = "/chat/completions",
		.headers = openai_headers,
		.body = openai_body,
		.parse = openai_parse,
	},
	[KF_PROVIDER_ANTHROPIC] = {
		.name = "anthropic",
		.default_base_url = "https://api.anthropic.com/v1",
		.key_env = "ANTHROPIC_API_KEY",
		.path = "/messages",
		.headers = anthropic_headers,
		.body = anthropic_body,
		.parse = anthropic_parse,
	},
};

const struct kf_provider *kf_provider_get(enum kf_provider_kind k)
{
	return &providers[k];
}

int kf_provider_parse_name(const char *name, enum kf_provider_kind *out)
{
	for (int k = 0; k < KF_PROVIDER_COUNT; k++)
		if (!strcmp(name, providers[k].name)) {
			*out = (enum kf_provider_kind)k;
			return 0;
		}
	return -1;
}

const char *kf_provider_api_key(const struct kf_provider *p)
{
	const char *key = getenv(p->key_env);
	return key && *key ? key : NULL;
}

void kf_provider_url(const struct kf_provider *p, const char *base_url, kf_buf *out)
{
	size_t n = strlen(base_url);
	while (n && base_url[n - 1] == '/')
		n--;
	kf_buf_add(out, base_url, n);
	kf_buf_adds(out, p->path);
}

void kf_provider_headers_free(char *headers[KF_HTTP_HEADERS_MAX + 1])
{
	for (int i = 0; i < KF_HTTP_HEADERS_MAX && headers[i]; i++) {
		/* The key must not linger in freed memory that a core dump could show. */
		explicit_bzero(headers[i], strlen(headers[i]));
		free(headers[i]);
		headers[i] = NULL;
	}
}

const char *kf_provider_error_message(const cJSON *body)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(body, "error");
	if (cJSON_IsString(e))
		return e->valuestring;
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
}

void kf_llm_reply_free(struct kf_llm_reply *r)
{
	free(r->text);
	r->text = NULL;
}
