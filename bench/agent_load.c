/* Agent load benchmark: drives N concurrent chat-completion requests through kforge's HTTP layer
 * (agent/http.c, one curl multi loop, no threads) against the loopback scripted server with a fixed
 * reply latency, parses and extracts every reply as `kforge run` does, and reports wall time,
 * requests per second and kforge's own CPU time per request (the server runs in another thread and
 * is not counted). Exit 1 when the requests do not all succeed or overrun the wall-time limit.
 * Usage: build/bench/agent_load [REQUESTS [LATENCY_S [LIMIT_S]]]   (defaults 64, 2, 3) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "agent/extract.h"
#include "agent/http.h"
#include "agent/provider.h"
#include "common/clock.h"

/* The Makefile builds each benchmark from one file, so the test server comes in as source. */
#include "tests/support/llm_server.c"

#define DEFAULT_REQUESTS 64
#define DEFAULT_LATENCY_S 2.0
#define DEFAULT_LIMIT_S 3.0
#define STEP_MS 100
#define PROMPT_BYTES 8000 /* about the size of a real task prompt */

struct load {
	const struct kf_provider *prov;
	int done, ok, code;
};

static void on_done(void *user, struct kf_http_response *r)
{
	struct load *l = user;
	struct kf_llm_reply reply = { 0 };
	kf_err err;
	l->done++;
	if (r->result == KF_HTTP_OK && l->prov->parse(r->body, r->body_len, &reply, &err) == KF_OK) {
		struct kf_extract x;
		kf_extract_code(reply.text, KF_BACKEND_CPU, &x);
		l->ok++;
		l->code += x.outcome == KF_EXTRACT_CODE;
		kf_extract_free(&x);
		kf_llm_reply_free(&reply);
	}
	free(r->body);
}

static double thread_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

static char *request_body(const struct kf_provider *prov, int i)
{
	kf_buf prompt = KF_BUF_INIT;
	kf_buf_addf(&prompt, "Task: bench_%d (cpu backend, level 1)\n", i);
	while (prompt.len < PROMPT_BYTES)
		kf_buf_adds(&prompt, "int kf_launch(const float *x, float *out, int n);\n");
	cJSON *messages = cJSON_CreateArray();
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "user");
	cJSON_AddStringToObject(m, "content", prompt.data);
	cJSON_AddItemToArray(messages, m);
	struct kf_llm_params p = { .model = "scripted", .temperature = 0.7, .max_tokens = 4096 };
	cJSON *body = prov->body(&p, messages);
	char *text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	cJSON_Delete(messages);
	kf_buf_free(&prompt);
	return text;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : DEFAULT_REQUESTS;
	double latency = argc > 2 ? atof(argv[2]) : DEFAULT_LATENCY_S, limit = argc > 3 ? atof(argv[3]) : DEFAULT_LIMIT_S;
	static const enum kf_scripted_reply script[] = { KF_LLM_LAZY };
	struct kf_llm_server_config sc = { .script = script, .script_len = 1, .latency_s = latency };
	struct kf_llm_server *srv = NULL;
	struct kf_http *h = NULL;
	kf_err err;
	if (n <= 0 || kf_llm_server_start(&sc, &srv, &err) != KF_OK) {
		fprintf(stderr, "agent_load: %s\n", n <= 0 ? "REQUESTS must be positive" : err.msg);
		return 2;
	}
	struct load l = { .prov = kf_provider_get(KF_PROVIDER_OPENAI) };
	struct kf_http_opts o;
	kf_http_opts_default(&o);
	const struct kf_http_callbacks cb = { NULL, on_done, NULL };
	kf_buf url = KF_BUF_INIT;
	kf_provider_url(l.prov, kf_llm_server_url(srv), &url);
	char *headers[KF_HTTP_HEADERS_MAX + 1];
	l.prov->headers(NULL, headers);
	int rc = kf_http_new(&o, &cb, &h, &err);
	double cpu0 = thread_cpu_s();
	int64_t t0 = kf_now_ns();
	for (int i = 0; i < n && rc == KF_OK; i++) {
		char *body = request_body(l.prov, i);
		struct kf_http_request req = { url.data, (const char *const *)headers, body, strlen(body), &l, 0, NULL };
		rc = kf_http_submit(h, &req, &err);
		free(body);
	}
	while (rc == KF_OK && kf_http_pending(h) > 0)
		rc = kf_http_step(h, STEP_MS, &err);
	double wall = (double)(kf_now_ns() - t0) / 1e9, cpu = thread_cpu_s() - cpu0;
	if (rc != KF_OK)
		fprintf(stderr, "agent_load: %s\n", err.msg);
	printf("agent_load: %d requests, %.1f s scripted latency, concurrency %d\n", n, latency, n);
	printf("  ok replies           %d of %d (code extracted from %d)\n", l.ok, n, l.code);
	printf("  server saw           %d requests\n", kf_llm_server_requests(srv));
	printf("  wall time            %.3f s (limit %.1f s)\n", wall, limit);
	printf("  throughput           %.1f requests/s\n", (double)l.done / wall);
	printf("  kforge CPU time      %.3f ms per request (%.1f ms in all)\n", cpu * 1e3 / n, cpu * 1e3);
	bool pass = rc == KF_OK && l.ok == n && wall < limit;
	printf("  %s\n", pass ? "PASS" : "FAIL");
	kf_http_free(h);
	kf_provider_headers_free(headers);
	kf_buf_free(&url);
	kf_llm_server_stop(srv);
	return pass ? 0 : 1;
}
