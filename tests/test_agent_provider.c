/* The two wire formats (agent/provider.c): request bodies with the sampling and reasoning
 * options each API expects, credentials only in headers, and replies parsed into text, finish
 * reason and token counts, with truncated, malformed and error bodies refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/provider.h"

static cJSON *messages(void)
{
	return cJSON_Parse("[{\"role\":\"system\",\"content\":\"be fast\"},{\"role\":\"user\",\"content\":\"Task: x\"},"
			   "{\"role\":\"assistant\",\"content\":\"```c\\n```\"},{\"role\":\"user\",\"content\":\"again\"}]");
}

static const cJSON *field(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

TestSuite(agent_provider);

Test(agent_provider, openai_body_carries_model_messages_temperature_and_max_tokens)
{
	struct kf_llm_params p = { .model = "gpt-4.1", .temperature = 0.5, .max_tokens = 1000 };
	cJSON *m = messages();
	cJSON *b = kf_provider_get(KF_PROVIDER_OPENAI)->body(&p, m);
	cr_expect_str_eq(cJSON_GetStringValue(field(b, "model")), "gpt-4.1");
	cr_expect_eq(cJSON_GetArraySize(field(b, "messages")), 4, "system stays a message");
	cr_expect_eq(cJSON_GetNumberValue(field(b, "temperature")), 0.5);
	cr_expect_eq(cJSON_GetNumberValue(field(b, "max_tokens")), 1000);
	cr_expect_null(field(b, "reasoning_effort"));
	cJSON_Delete(b);
	cJSON_Delete(m);
}

Test(agent_provider, openai_reasoning_effort_uses_max_completion_tokens_and_no_temperature)
{
	struct kf_llm_params p = { .model = "o3", .temperature = 0.5, .max_tokens = 1000, .reasoning_effort = "high" };
	cJSON *m = messages();
	cJSON *b = kf_provider_get(KF_PROVIDER_OPENAI)->body(&p, m);
	cr_expect_str_eq(cJSON_GetStringValue(field(b, "reasoning_effort")), "high");
	cr_expect_eq(cJSON_GetNumberValue(field(b, "max_completion_tokens")), 1000);
	cr_expect_null(field(b, "max_tokens"));
	cr_expect_null(field(b, "temperature"));
	cJSON_Delete(b);
	cJSON_Delete(m);
}

Test(agent_provider, unset_temperature_is_not_sent)
{
	struct kf_llm_params p = { .model = "m", .temperature = NAN, .max_tokens = 10 };
	cJSON *m = messages();
	cJSON *b = kf_provider_get(KF_PROVIDER_OPENAI)->body(&p, m);
	cr_expect_null(field(b, "temperature"));
	cJSON_Delete(b);
	cJSON_Delete(m);
}

Test(agent_provider, anthropic_body_lifts_the_system_prompt_and_budgets_thinking)
{
	struct kf_llm_params p = { .model = "claude-sonnet-4", .temperature = 0.5, .max_tokens = 1000 };
	cJSON *m = messages();
	const struct kf_provider *a = kf_provider_get(KF_PROVIDER_ANTHROPIC);
	cJSON *b = a->body(&p, m);
	cr_expect_str_eq(cJSON_GetStringValue(field(b, "system")), "be fast");
	cr_expect_eq(cJSON_GetArraySize(field(b, "messages")), 3, "system is not a message in this API");
	cr_expect_str_eq(cJSON_GetStringValue(field(cJSON_GetArrayItem(field(b, "messages"), 1), "role")), "assistant");
	cr_expect_eq(cJSON_GetNumberValue(field(b, "temperature")), 0.5);
	cr_expect_eq(cJSON_GetNumberValue(field(b, "max_tokens")), 1000);
	cJSON_Delete(b);
	p.thinking_budget = 2048;
	b = a->body(&p, m);
	cr_expect_eq(cJSON_GetNumberValue(field(field(b, "thinking"), "budget_tokens")), 2048);
	cr_expect_eq(cJSON_GetNumberValue(field(b, "max_tokens")), 3048, "the answer keeps its own allowance");
	cr_expect_null(field(b, "temperature"), "extended thinking requires the default temperature");
	cJSON_Delete(b);
	cJSON_Delete(m);
}

Test(agent_provider, keys_go_only_into_the_headers_each_api_expects)
{
	char *h[KF_HTTP_HEADERS_MAX + 1];
	kf_provider_get(KF_PROVIDER_OPENAI)->headers("sk-test", h);
	bool bearer = false;
	for (int i = 0; h[i]; i++)
		bearer = bearer || !strcmp(h[i], "Authorization: Bearer sk-test");
	cr_expect(bearer);
	kf_provider_headers_free(h);
	kf_provider_get(KF_PROVIDER_OPENAI)->headers(NULL, h);
	for (int i = 0; h[i]; i++)
		cr_expect_null(strstr(h[i], "Authorization"), "no key, no Authorization header");
	kf_provider_headers_free(h);
	kf_provider_get(KF_PROVIDER_ANTHROPIC)->headers("ak-test", h);
	bool key = false, version = false;
	for (int i = 0; h[i]; i++) {
		key = key || !strcmp(h[i], "x-api-key: ak-test");
		version = version || !strncmp(h[i], "anthropic-version: ", strlen("anthropic-version: "));
	}
	cr_expect(key && version);
	kf_provider_headers_free(h);
}

Test(agent_provider, keys_come_from_the_environment_and_empty_means_unset)
{
	setenv("OPENAI_API_KEY", "sk-env", 1);
	cr_expect_str_eq(kf_provider_api_key(kf_provider_get(KF_PROVIDER_OPENAI)), "sk-env");
	setenv("OPENAI_API_KEY", "", 1);
	cr_expect_null(kf_provider_api_key(kf_provider_get(KF_PROVIDER_OPENAI)));
	unsetenv("ANTHROPIC_API_KEY");
	cr_expect_null(kf_provider_api_key(kf_provider_get(KF_PROVIDER_ANTHROPIC)));
}

Test(agent_provider, url_joins_the_base_and_the_api_path)
{
	kf_buf u = KF_BUF_INIT;
	kf_provider_url(kf_provider_get(KF_PROVIDER_OPENAI), "http://localhost:8000/v1/", &u);
	cr_expect_str_eq(u.data, "http://localhost:8000/v1/chat/completions");
	kf_buf_reset(&u);
	kf_provider_url(kf_provider_get(KF_PROVIDER_ANTHROPIC), "https://api.anthropic.com/v1", &u);
	cr_expect_str_eq(u.data, "https://api.anthropic.com/v1/messages");
	kf_buf_free(&u);
}

static int parse(enum kf_provider_kind k, const char *body, struct kf_llm_reply *r, kf_err *err)
{
	memset(r, 0, sizeof *r);
	return kf_provider_get(k)->parse(body, strlen(body), r, err);
}

Test(agent_provider, parses_an_openai_reply_with_usage_and_reasoning_tokens)
{
	struct kf_llm_reply r;
	kf_err err;
	cr_assert_eq(parse(KF_PROVIDER_OPENAI,
			   "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"length\"}],"
			   "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":34,"
			   "\"completion_tokens_details\":{\"reasoning_tokens\":20}}}",
			   &r, &err),
		     KF_OK, "%s", err.msg);
	cr_expect_str_eq(r.text, "hi");
	cr_expect_str_eq(r.finish_reason, "length");
	cr_expect_eq(r.tokens_in, 12);
	cr_expect_eq(r.tokens_out, 34);
	cr_expect_eq(r.tokens_reasoning, 20);
	kf_llm_reply_free(&r);
}

Test(agent_provider, an_openai_reply_without_usage_has_unknown_counts)
{
	struct kf_llm_reply r;
	kf_err err;
	cr_assert_eq(parse(KF_PROVIDER_OPENAI, "{\"choices\":[{\"message\":{\"content\":null},\"finish_reason\":null}]}", &r, &err),
		     KF_OK, "%s", err.msg);
	cr_expect_str_eq(r.text, "");
	cr_expect_eq(r.tokens_in, -1);
	cr_expect_eq(r.tokens_out, -1);
	kf_llm_reply_free(&r);
}

Test(agent_provider, parses_an_anthropic_reply_and_skips_thinking_blocks)
{
	struct kf_llm_reply r;
	kf_err err;
	cr_assert_eq(parse(KF_PROVIDER_ANTHROPIC,
			   "{\"type\":\"message\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\"},"
			   "{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}],"
			   "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":5,\"output_tokens\":7}}",
			   &r, &err),
		     KF_OK, "%s", err.msg);
	cr_expect_str_eq(r.text, "ab");
	cr_expect_str_eq(r.finish_reason, "end_turn");
	cr_expect_eq(r.tokens_in, 5);
	cr_expect_eq(r.tokens_out, 7);
	kf_llm_reply_free(&r);
}

Test(agent_provider, refuses_truncated_malformed_and_error_bodies)
{
	static const char *const bad[] = {
		"{\"choices\":[{\"message\":{\"content\":\"hel",
		"",
		"[1, 2]",
		"{\"choices\":[]}",
		"{\"error\":{\"message\":\"quota exceeded\"}}",
		"{\"choices\":[{\"message\":{\"content\":42}}]}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct kf_llm_reply r;
		kf_err err;
		cr_expect_eq(parse(KF_PROVIDER_OPENAI, bad[i], &r, &err), KF_EINPUT, "accepted: %s", bad[i]);
		cr_expect_null(r.text);
	}
	struct kf_llm_reply r;
	kf_err err;
	cr_expect_eq(parse(KF_PROVIDER_ANTHROPIC, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
			   &r, &err),
		     KF_EINPUT);
	cr_expect(strstr(err.msg, "Overloaded"), "%s", err.msg);
}
