/* The HTTP layer (agent/http.c) against the loopback scripted server: every transient fault is
 * retried until a good reply arrives, Retry-After is honoured, 400/401 are never retried, retries
 * stop at the attempt limit, oversized bodies are refused, and many requests really are in flight
 * at once in one thread. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/http.h"
#include "agent/provider.h"
#include "common/clock.h"
#include "tests/support/llm_server.h"

#define TEST_TIMEOUT_S 120
#define STEP_MS 50
#define MAX_ATTEMPTS_SEEN 16
#define FAST_BACKOFF_S 0.05
#define STALL_S 15

struct outcome {
	int done;
	struct kf_http_response last;
	int n_attempts;
	struct kf_http_attempt attempts[MAX_ATTEMPTS_SEEN];
	int64_t attempt_end_ns[MAX_ATTEMPTS_SEEN];
	char errors[MAX_ATTEMPTS_SEEN][256];
};

static struct kf_llm_server *srv;
static struct kf_http *http;
static struct outcome results[64];

static void stop_all(void)
{
	kf_http_free(http);
	http = NULL;
	kf_llm_server_stop(srv);
	srv = NULL;
	for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
		free(results[i].last.body);
	memset(results, 0, sizeof results);
}

TestSuite(agent_http, .fini = stop_all, .timeout = TEST_TIMEOUT_S);

static void on_attempt(void *user, const struct kf_http_attempt *a)
{
	struct outcome *o = user;
	if (o->n_attempts >= MAX_ATTEMPTS_SEEN)
		return;
	o->attempts[o->n_attempts] = *a;
	o->attempt_end_ns[o->n_attempts] = kf_now_ns();
	snprintf(o->errors[o->n_attempts], sizeof o->errors[0], "%s", a->error ? a->error : "");
	o->n_attempts++;
}

static void on_done(void *user, struct kf_http_response *r)
{
	struct outcome *o = user;
	o->done++;
	o->last = *r;
}

static bool body_ok(void *user, const char *body, size_t len)
{
	(void)user;
	struct kf_llm_reply reply = { 0 };
	kf_err err;
	bool ok = kf_provider_get(KF_PROVIDER_OPENAI)->parse(body, len, &reply, &err) == KF_OK;
	kf_llm_reply_free(&reply);
	return ok;
}

static void start(const struct kf_llm_server_config *sc, struct kf_http_opts *o)
{
	kf_err err;
	cr_assert_eq(kf_llm_server_start(sc, &srv, &err), KF_OK, "%s", err.msg);
	const struct kf_http_callbacks cb = { on_attempt, on_done, body_ok };
	cr_assert_eq(kf_http_new(o, &cb, &http, &err), KF_OK, "%s", err.msg);
}

static void fast_opts(struct kf_http_opts *o)
{
	kf_http_opts_default(o);
	o->backoff_base_s = FAST_BACKOFF_S;
	o->backoff_cap_s = FAST_BACKOFF_S * 4;
	o->stall_timeout_s = 1;
	o->jitter_seed = 1;
}

static void submit(const char *url, int i)
{
	kf_err err;
	static const char body[] = "{\"model\":\"scripted\",\"messages\":[{\"role\":\"user\",\"content\":"
				   "\"Task: vector_add\\nint kf_launch(const float *x, float *out, int n);\"}]}";
	kf_buf full = KF_BUF_INIT;
	kf_provider_url(kf_provider_get(KF_PROVIDER_OPENAI), url, &full);
	static const char *const headers[] = { "Content-Type: application/json", NULL };
	struct kf_http_request req = { full.data, headers, body, strlen(body), &results[i], 0, NULL };
	cr_assert_eq(kf_http_submit(http, &req, &err), KF_OK, "%s", err.msg);
	kf_buf_free(&full);
}

static void drain(double limit_s)
{
	kf_err err;
	int64_t end = kf_now_ns() + (int64_t)(limit_s * 1e9);
	while (kf_http_pending(http) > 0) {
		cr_assert_lt(kf_now_ns(), end, "requests still pending after %.0f s", limit_s);
		cr_assert_eq(kf_http_step(http, STEP_MS, &err), KF_OK, "%s", err.msg);
	}
}

/* One request meets `fault` first, then gets a good reply. */
static void retried_then_ok(enum kf_llm_fault fault, long first_status)
{
	const enum kf_llm_fault faults[] = { fault };
	struct kf_llm_server_config sc = { .faults = faults, .n_faults = 1, .stall_s = STALL_S };
	struct kf_http_opts o;
	fast_opts(&o);
	start(&sc, &o);
	submit(kf_llm_server_url(srv), 0);
	drain(30);
	struct outcome *r = &results[0];
	cr_assert_eq(r->done, 1);
	cr_expect_eq(r->last.result, KF_HTTP_OK, "ended with %s: %s", kf_http_result_name(r->last.result), r->last.error);
	cr_expect_eq(r->last.attempts, 2);
	cr_assert_eq(r->n_attempts, 2);
	cr_expect_neq(r->errors[0][0], '\0', "the failed attempt is reported with its error");
	cr_expect_eq(r->attempts[0].status, first_status, "first attempt status %ld", r->attempts[0].status);
	cr_expect_geq(r->attempts[0].retry_in_s, 0, "the failed attempt is retried");
	cr_expect_eq(r->errors[1][0], '\0', "the second attempt succeeded: %s", r->errors[1]);
	cr_expect_eq(kf_llm_server_requests(srv), 2);
}

Test(agent_http, retries_a_500)
{
	retried_then_ok(KF_LLM_FAULT_500, 500);
}

Test(agent_http, retries_a_529_overloaded)
{
	retried_then_ok(KF_LLM_FAULT_529, 529);
}

Test(agent_http, retries_truncated_json_in_a_complete_body)
{
	retried_then_ok(KF_LLM_FAULT_TRUNCATED_JSON, 200);
}

Test(agent_http, retries_a_body_shorter_than_announced)
{
	retried_then_ok(KF_LLM_FAULT_SHORT_BODY, 200);
}

Test(agent_http, retries_a_reset_connection)
{
	retried_then_ok(KF_LLM_FAULT_RESET, 0);
}

Test(agent_http, abandons_a_stalled_request_after_the_stall_timeout_and_retries)
{
	int64_t t0 = kf_now_ns();
	retried_then_ok(KF_LLM_FAULT_STALL, 0);
	double s = (double)(kf_now_ns() - t0) / 1e9;
	/* libcurl averages the transfer speed over about 5 s, so the request bytes it just sent delay
	 * the start of the 1 s stall window by that much. */
	cr_expect_lt(s, STALL_S - 3, "the stall (%d s) was not cut by the 1 s stall timeout: took %.1f s", STALL_S, s);
	cr_expect(strstr(results[0].errors[0], "imeout") || strstr(results[0].errors[0], "slower"), "%s",
		  results[0].errors[0]);
}

Test(agent_http, honours_retry_after_on_a_429)
{
	const enum kf_llm_fault faults[] = { KF_LLM_FAULT_429 };
	struct kf_llm_server_config sc = { .faults = faults, .n_faults = 1, .retry_after_s = 1 };
	struct kf_http_opts o;
	fast_opts(&o);
	start(&sc, &o);
	submit(kf_llm_server_url(srv), 0);
	drain(30);
	struct outcome *r = &results[0];
	cr_assert_eq(r->last.result, KF_HTTP_OK, "%s", r->last.error);
	cr_assert_eq(r->n_attempts, 2);
	cr_expect_eq(r->attempts[0].status, 429);
	cr_expect_eq(r->attempts[0].retry_after_s, 1.0, "Retry-After read as %g", r->attempts[0].retry_after_s);
	cr_expect_geq(r->attempts[0].retry_in_s, 1.0, "a %.3f s backoff ignores Retry-After", r->attempts[0].retry_in_s);
	double gap = (double)(r->attempt_end_ns[1] - r->attempt_end_ns[0]) / 1e9;
	cr_expect_geq(gap, 1.0, "the retry came %.3f s after the 429", gap);
}

static void never_retried(enum kf_llm_fault fault, long status)
{
	const enum kf_llm_fault faults[] = { fault };
	struct kf_llm_server_config sc = { .faults = faults, .n_faults = 1 };
	struct kf_http_opts o;
	fast_opts(&o);
	start(&sc, &o);
	submit(kf_llm_server_url(srv), 0);
	drain(30);
	struct outcome *r = &results[0];
	cr_expect_eq(r->last.result, KF_HTTP_STATUS);
	cr_expect_eq(r->last.status, status);
	cr_expect_eq(r->last.attempts, 1);
	cr_expect_eq(r->n_attempts, 1);
	cr_expect_lt(r->attempts[0].retry_in_s, 0);
	cr_expect(strstr(r->last.error, "scripted"), "the error keeps the server's message: %s", r->last.error);
	cr_expect_eq(kf_llm_server_requests(srv), 1);
}

Test(agent_http, never_retries_a_400)
{
	never_retried(KF_LLM_FAULT_400, 400);
}

Test(agent_http, never_retries_a_401)
{
	never_retried(KF_LLM_FAULT_401, 401);
}

Test(agent_http, gives_up_after_the_attempt_limit)
{
	const enum kf_llm_fault faults[] = { KF_LLM_FAULT_500, KF_LLM_FAULT_500, KF_LLM_FAULT_500, KF_LLM_FAULT_500 };
	struct kf_llm_server_config sc = { .faults = faults, .n_faults = 4 };
	struct kf_http_opts o;
	fast_opts(&o);
	o.max_attempts = 3;
	start(&sc, &o);
	submit(kf_llm_server_url(srv), 0);
	drain(30);
	cr_expect_eq(results[0].last.result, KF_HTTP_STATUS);
	cr_expect_eq(results[0].last.status, 500);
	cr_expect_eq(results[0].last.attempts, 3);
	cr_expect_eq(kf_llm_server_requests(srv), 3);
}

Test(agent_http, refuses_a_body_over_the_size_limit_without_retrying)
{
	static const enum kf_scripted_reply script[] = { KF_LLM_HUGE };
	struct kf_llm_server_config sc = { .script = script, .script_len = 1, .huge_bytes = 1u << 20 };
	struct kf_http_opts o;
	fast_opts(&o);
	o.max_body_bytes = 64u << 10;
	start(&sc, &o);
	submit(kf_llm_server_url(srv), 0);
	drain(30);
	cr_expect_eq(results[0].last.result, KF_HTTP_TOO_LARGE, "%s", results[0].last.error);
	cr_expect_eq(results[0].last.attempts, 1);
	cr_expect_leq(results[0].last.body_len, 64u << 10);
}

Test(agent_http, reports_a_refused_connection_as_a_transport_error)
{
	struct kf_llm_server_config sc = { 0 };
	struct kf_http_opts o;
	fast_opts(&o);
	o.max_attempts = 2;
	start(&sc, &o);
	submit("http://127.0.0.1:1/v1", 0);
	drain(30);
	cr_expect_eq(results[0].last.result, KF_HTTP_TRANSPORT);
	cr_expect_eq(results[0].last.attempts, 2, "a refused connection is retried");
	cr_expect_eq(results[0].last.status, 0);
}

Test(agent_http, keeps_many_requests_in_flight_in_one_thread)
{
	enum { N = 32 };
	struct kf_llm_server_config sc = { .latency_s = 1.0 };
	struct kf_http_opts o;
	fast_opts(&o);
	start(&sc, &o);
	int64_t t0 = kf_now_ns();
	for (int i = 0; i < N; i++)
		submit(kf_llm_server_url(srv), i);
	cr_expect_eq(kf_http_pending(http), N);
	drain(30);
	double s = (double)(kf_now_ns() - t0) / 1e9;
	for (int i = 0; i < N; i++)
		cr_expect_eq(results[i].last.result, KF_HTTP_OK, "request %d: %s", i, results[i].last.error);
	cr_expect_lt(s, 5.0, "%d requests of 1 s each took %.1f s: not concurrent", N, s);
}

Test(agent_http, flush_sends_every_request_before_the_caller_blocks)
{
	struct kf_llm_server_config sc = { .latency_s = 0.2 };
	struct kf_http_opts o;
	fast_opts(&o);
	start(&sc, &o);
	kf_err err;
	for (int i = 0; i < 8; i++)
		submit(kf_llm_server_url(srv), i);
	cr_assert_eq(kf_http_flush(http, 2000, &err), KF_OK, "%s", err.msg);
	/* The server has every request before anything else drives the transfers. */
	int64_t end = kf_now_ns() + 2000000000LL;
	while (kf_llm_server_requests(srv) < 8 && kf_now_ns() < end)
		;
	cr_expect_eq(kf_llm_server_requests(srv), 8);
	drain(30);
}
