/* The scripted loopback LLM server (see llm_server.h): one thread, one poll loop over the
 * listening socket and every connection, so dozens of slow replies cost no threads. Each
 * connection carries one request and is closed after its reply (Connection: close). */
#include "tests/support/llm_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cJSON.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"

#define DEFAULT_STALL_S 30.0
#define DEFAULT_RETRY_AFTER_S 1
#define DEFAULT_MAX_REQUESTS 10000
#define DEFAULT_MAX_SECONDS 600.0
#define DEFAULT_HUGE_BYTES (2u << 20)
#define DEFAULT_TOKENS_IN 1000
#define DEFAULT_TOKENS_OUT 500
#define MAX_CONNS 1024
#define MAX_TASKS 256
#define MAX_REQUEST_BYTES (64u << 20)
#define EXAMPLE_MAX_BYTES (1u << 20)
#define POLL_MAX_MS 50 /* also how soon the thread notices kf_llm_server_stop */
#define READ_CHUNK 65536
#define LISTEN_BACKLOG 256
#define NAME_MAX_LEN 64
#define AUTH_MAX 256
#define NS_PER_S 1000000000LL
#define NS_PER_MS 1000000LL
/* Latin-1 "é", a lone 0xff and a sequence cut short: three ways a reply is not UTF-8. */
#define NOT_UTF8_COMMENT "/* r\xe9sum\xe9 \xff caf\xe2\x82 */\n"
#define PROSE_LINE "This paragraph is filler that a verbose model might write before it gets to the point.\n"

const char kf_llm_slow_vector_add_cpu[] =
	"int kf_launch(const float *x, const float *y, float *out, int n)\n"
	"{\n"
	"\tfloat carry = 0.0f;\n"
	"\tfor (int i = 0; i < n; i++) {\n"
	"\t\tcarry = (x[i] + y[i]) + (carry / 3.0f) * 0.0f;\n"
	"\t\tout[i] = carry;\n"
	"\t}\n"
	"\treturn 0;\n"
	"}\n";

enum api { API_OPENAI, API_ANTHROPIC, API_COUNT };
static const char *const api_names[API_COUNT] = { "openai", "anthropic" };

enum conn_state { C_READ, C_WAIT, C_SEND, C_STALL };

struct conn {
	int fd;
	enum conn_state state;
	kf_buf in, out;
	size_t sent, limit; /* limit: close after this many bytes (short bodies); 0 = all */
	int64_t due_ns;
	bool reset;
};

struct task_count {
	char name[NAME_MAX_LEN];
	int requests, first, refine;
};

struct kf_llm_server {
	struct kf_llm_server_config cfg;
	const char *backend;
	char examples[PATH_MAX];
	int listen_fd;
	char url[64];
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	/* under mu */
	bool stopping;
	int requests, replies[KF_LLM_REPLY_COUNT], faults[KF_LLM_FAULT_COUNT], refinements, api[API_COUNT];
	int invalid_utf8;
	struct task_count tasks[MAX_TASKS];
	int n_tasks;
	char last_auth[AUTH_MAX];
	char *last_feedback;
	/* server thread only */
	struct conn conns[MAX_CONNS];
	int n_conns;
	int64_t deadline_ns;
	unsigned long serial;
	unsigned long salted; /* code blocks salted so far */
};

/* ---- the request ---- */

struct request {
	enum api api;
	char model[NAME_MAX_LEN * 2];
	char task[NAME_MAX_LEN];
	bool refine;
	kf_buf prototype; /* "int kf_launch(...)" without the semicolon, or empty */
	kf_buf last_user; /* the last user turn's text */
};

static const char *find_header_end(const kf_buf *in)
{
	return in->len ? memmem(in->data, in->len, "\r\n\r\n", 4) : NULL;
}

/* The value of header `name` in the header block, or false. */
static bool header_value(const char *hdr, size_t n, const char *name, char *out, size_t len)
{
	size_t k = strlen(name);
	for (const char *p = hdr; p < hdr + n;) {
		const char *eol = memmem(p, (size_t)(hdr + n - p), "\r\n", 2);
		size_t line = eol ? (size_t)(eol - p) : (size_t)(hdr + n - p);
		if (line > k && !strncasecmp(p, name, k) && p[k] == ':') {
			const char *v = p + k + 1;
			while (*v == ' ')
				v++;
			snprintf(out, len, "%.*s", (int)(line - (size_t)(v - p)), v);
			return true;
		}
		p = eol ? eol + 2 : hdr + n;
	}
	return false;
}

/* Complete when the headers and Content-Length bytes of body are in. */
static bool request_complete(const kf_buf *in, size_t *hdr_len, size_t *body_len)
{
	const char *end = find_header_end(in);
	if (!end)
		return false;
	*hdr_len = (size_t)(end - in->data) + 4;
	char v[32] = "0";
	header_value(in->data, *hdr_len, "Content-Length", v, sizeof v);
	*body_len = strtoul(v, NULL, 10);
	return in->len >= *hdr_len + *body_len;
}

static void find_task(const char *text, struct request *rq)
{
	const char *p = strstr(text, "Task: ");
	if (!p || rq->task[0])
		return;
	p += strlen("Task: ");
	size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
	snprintf(rq->task, sizeof rq->task, "%.*s", (int)(n < NAME_MAX_LEN ? n : NAME_MAX_LEN - 1), p);
}

/* The first line that declares kf_launch (the generated header's prototype). */
static void find_prototype(const char *text, struct request *rq)
{
	if (rq->prototype.len)
		return;
	for (const char *p = text; (p = strstr(p, "kf_launch(")); p++) {
		const char *start = p, *eol = strchr(p, '\n');
		while (start > text && start[-1] != '\n')
			start--;
		const char *end = eol ? eol : p + strlen(p);
		if (end - start > 2 && end[-1] == ';' && end[-2] == ')' && !memchr(start, '`', (size_t)(end - start))) {
			kf_buf_add(&rq->prototype, start, (size_t)(end - start - 1));
			return;
		}
	}
}

static void scan_message(const cJSON *m, struct request *rq)
{
	const char *role = cJSON_GetStringValue(cJSON_GetObjectItem(m, "role"));
	const char *content = cJSON_GetStringValue(cJSON_GetObjectItem(m, "content"));
	if (role && !strcmp(role, "assistant"))
		rq->refine = true;
	if (role && !strcmp(role, "user") && content) {
		kf_buf_reset(&rq->last_user);
		kf_buf_adds(&rq->last_user, content);
	}
	if (content) {
		find_task(content, rq);
		find_prototype(content, rq);
	}
}

static void parse_body(const char *body, size_t len, struct request *rq)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	const char *model = cJSON_GetStringValue(cJSON_GetObjectItem(j, "model"));
	snprintf(rq->model, sizeof rq->model, "%s", model ? model : "scripted");
	const char *system = cJSON_GetStringValue(cJSON_GetObjectItem(j, "system"));
	if (system)
		find_task(system, rq);
	const cJSON *m;
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(j, "messages"))
		scan_message(m, rq);
	cJSON_Delete(j);
}

/* ---- replies ---- */

static void code_block(struct kf_llm_server *s, const char *code, bool close, kf_buf *out)
{
	kf_buf_addf(out, "```%s\n", strcmp(s->backend, "cuda") ? "c" : "cuda");
	if (s->cfg.salt)
		kf_buf_addf(out, "/* %s %lu */\n", s->cfg.salt, ++s->salted);
	kf_buf_adds(out, code);
	if (code[0] && code[strlen(code) - 1] != '\n')
		kf_buf_adds(out, "\n");
	if (close)
		kf_buf_adds(out, "```\n");
}

static void lazy_source(const struct request *rq, kf_buf *out)
{
	kf_buf_addf(out, "%s\n{\n\treturn 0;\n}\n", rq->prototype.len ? rq->prototype.data : "int kf_launch(void)");
}

/* The task's example kernel, or NULL. */
static char *example_source(const struct kf_llm_server *s, const char *task)
{
	char path[PATH_MAX], *text = NULL;
	if (!task[0])
		return NULL;
	snprintf(path, sizeof path, "%s/%s.%s", s->examples, task, strcmp(s->backend, "cuda") ? "c" : "cu");
	if (access(path, R_OK) != 0 || kf_read_file(path, EXAMPLE_MAX_BYTES, &text, NULL, NULL) != KF_OK)
		return NULL;
	return text;
}

/* The assistant's text for a scripted reply; *kind may turn GOOD into LAZY (no example). */
static void reply_text(struct kf_llm_server *s, const struct request *rq, enum kf_scripted_reply *kind,
		       const char **finish, kf_buf *out)
{
	char *good = NULL;
	kf_buf src = KF_BUF_INIT;
	*finish = "stop";
	if (*kind == KF_LLM_GOOD || *kind == KF_LLM_HUGE || *kind == KF_LLM_CONFLICTING || *kind == KF_LLM_UNTERMINATED ||
	    *kind == KF_LLM_INVALID_UTF8)
		good = example_source(s, rq->task);
	if (*kind == KF_LLM_GOOD && !good)
		*kind = KF_LLM_LAZY;
	if (good)
		kf_buf_adds(&src, good);
	else
		lazy_source(rq, &src);
	switch (*kind) {
	case KF_LLM_GOOD:
		kf_buf_adds(out, "Here is a kernel that follows the rules.\n\n");
		code_block(s, src.data, true, out);
		break;
	case KF_LLM_BROKEN:
		kf_buf_addf(out, "This should work:\n\n");
		kf_buf_reset(&src);
		kf_buf_addf(&src, "%s\n{\n\treturn 0 /* the semicolon is missing */\n}\n",
			    rq->prototype.len ? rq->prototype.data : "int kf_launch(void)");
		code_block(s, src.data, true, out);
		break;
	case KF_LLM_LAZY:
		kf_buf_adds(out, "A minimal version:\n\n");
		kf_buf_reset(&src);
		lazy_source(rq, &src);
		code_block(s, src.data, true, out);
		break;
	case KF_LLM_NO_CODE:
		kf_buf_adds(out, "I would use a blocked loop with vector loads, but I will not write it out here.\n");
		break;
	case KF_LLM_EMPTY_BLOCK:
		kf_buf_adds(out, "Here it is:\n\n");
		code_block(s, "", true, out);
		break;
	case KF_LLM_CONFLICTING:
		kf_buf_adds(out, "I split the kernel into two files.\n\n```c kernel.c\n");
		kf_buf_adds(out, src.data);
		kf_buf_adds(out, "```\n\n```c helpers.h\nstatic inline int kf_helper(int x) { return x; }\n```\n");
		break;
	case KF_LLM_HUGE:
		while (out->len < s->cfg.huge_bytes)
			kf_buf_adds(out, PROSE_LINE);
		kf_buf_adds(out, "\nFinally, the kernel:\n\n");
		code_block(s, src.data, true, out);
		break;
	case KF_LLM_UNTERMINATED:
		kf_buf_adds(out, "Here is the kernel:\n\n");
		src.data[src.len / 2] = '\0';
		code_block(s, src.data, false, out);
		*finish = "length";
		break;
	case KF_LLM_INVALID_UTF8:
		kf_buf_adds(out, "Here is a kernel (r\xe9sum\xe9 below).\n\n");
		kf_buf_adds(&src, NOT_UTF8_COMMENT);
		code_block(s, src.data, true, out);
		break;
	case KF_LLM_SLOW:
	case KF_LLM_FAST:
		kf_buf_adds(out, *kind == KF_LLM_FAST ? "This version addresses the bound the profile names.\n\n"
						   : "Here is the kernel.\n\n");
		code_block(s, *kind == KF_LLM_FAST ? s->cfg.fast_source : s->cfg.slow_source, true, out);
		break;
	case KF_LLM_REPLY_COUNT:
		break;
	}
	free(good);
	kf_buf_free(&src);
}

static char *reply_json(const struct kf_llm_server *s, const struct request *rq, const char *text, const char *finish,
			unsigned long serial)
{
	cJSON *o = cJSON_CreateObject();
	char id[64];
	snprintf(id, sizeof id, "%s-%lu", rq->api == API_OPENAI ? "chatcmpl" : "msg", serial);
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "model", rq->model);
	if (rq->api == API_OPENAI) {
		cJSON_AddStringToObject(o, "object", "chat.completion");
		cJSON *choice = cJSON_CreateObject();
		cJSON_AddNumberToObject(choice, "index", 0);
		cJSON *msg = cJSON_AddObjectToObject(choice, "message");
		cJSON_AddStringToObject(msg, "role", "assistant");
		cJSON_AddStringToObject(msg, "content", text);
		cJSON_AddStringToObject(choice, "finish_reason", finish);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "choices"), choice);
		cJSON *u = cJSON_AddObjectToObject(o, "usage");
		cJSON_AddNumberToObject(u, "prompt_tokens", s->cfg.tokens_in);
		cJSON_AddNumberToObject(u, "completion_tokens", s->cfg.tokens_out);
		cJSON_AddNumberToObject(u, "total_tokens", s->cfg.tokens_in + s->cfg.tokens_out);
	} else {
		cJSON_AddStringToObject(o, "type", "message");
		cJSON_AddStringToObject(o, "role", "assistant");
		cJSON *part = cJSON_CreateObject();
		cJSON_AddStringToObject(part, "type", "text");
		cJSON_AddStringToObject(part, "text", text);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "content"), part);
		cJSON_AddStringToObject(o, "stop_reason", strcmp(finish, "length") ? "end_turn" : "max_tokens");
		cJSON *u = cJSON_AddObjectToObject(o, "usage");
		cJSON_AddNumberToObject(u, "input_tokens", s->cfg.tokens_in);
		cJSON_AddNumberToObject(u, "output_tokens", s->cfg.tokens_out);
	}
	char *out = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return out;
}

static void http_response(kf_buf *out, int status, const char *reason, const char *extra, const char *body,
			  size_t body_len, size_t announced)
{
	kf_buf_addf(out, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n%s"
			 "Connection: close\r\n\r\n",
		    status, reason, announced, extra ? extra : "");
	kf_buf_add(out, body, body_len);
}

static const struct {
	int status;
	const char *reason, *body;
} fault_replies[KF_LLM_FAULT_COUNT] = {
	[KF_LLM_FAULT_429] = { 429, "Too Many Requests", "{\"error\":{\"message\":\"rate limited (scripted)\",\"type\":\"rate_limit_error\"}}" },
	[KF_LLM_FAULT_500] = { 500, "Internal Server Error", "{\"error\":{\"message\":\"internal error (scripted)\"}}" },
	[KF_LLM_FAULT_529] = { 529, "Overloaded", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded (scripted)\"}}" },
	[KF_LLM_FAULT_400] = { 400, "Bad Request", "{\"error\":{\"message\":\"bad request (scripted)\"}}" },
	[KF_LLM_FAULT_401] = { 401, "Unauthorized", "{\"error\":{\"message\":\"invalid API key (scripted)\"}}" },
};

static struct task_count *task_counter(struct kf_llm_server *s, const char *name)
{
	for (int i = 0; i < s->n_tasks; i++)
		if (!strcmp(s->tasks[i].name, name))
			return &s->tasks[i];
	if (s->n_tasks == MAX_TASKS)
		return &s->tasks[MAX_TASKS - 1];
	struct task_count *t = &s->tasks[s->n_tasks++];
	snprintf(t->name, sizeof t->name, "%s", name);
	return t;
}

/* Counts the request and decides, under the lock, what it gets. */
static enum kf_llm_fault classify(struct kf_llm_server *s, const struct request *rq, const char *auth,
				  enum kf_scripted_reply *kind)
{
	pthread_mutex_lock(&s->mu);
	int k = s->requests++;
	s->api[rq->api]++;
	s->refinements += rq->refine;
	if (auth[0])
		snprintf(s->last_auth, sizeof s->last_auth, "%s", auth);
	struct task_count *t = task_counter(s, rq->task);
	t->requests++;
	enum kf_llm_fault f = k < s->cfg.n_faults ? s->cfg.faults[k] : KF_LLM_FAULT_NONE;
	if (f == KF_LLM_FAULT_NONE) {
		const enum kf_scripted_reply *script = rq->refine ? s->cfg.refine_script : s->cfg.script;
		int len = rq->refine ? s->cfg.refine_script_len : s->cfg.script_len;
		int idx = rq->refine ? t->refine++ : t->first++;
		*kind = script && len > 0 ? script[idx % len] : KF_LLM_GOOD;
		if (s->cfg.slow_source)
			*kind = rq->refine && rq->last_user.data && s->cfg.bound_marker &&
						strstr(rq->last_user.data, s->cfg.bound_marker)
					? KF_LLM_FAST
					: KF_LLM_SLOW;
		if (rq->refine) {
			free(s->last_feedback);
			s->last_feedback = kf_xstrdup(rq->last_user.data ? rq->last_user.data : "");
		}
	} else {
		s->faults[f]++;
	}
	pthread_mutex_unlock(&s->mu);
	return f;
}

static void count_reply(struct kf_llm_server *s, enum kf_scripted_reply kind)
{
	pthread_mutex_lock(&s->mu);
	s->replies[kind]++;
	pthread_mutex_unlock(&s->mu);
}

/* A fault body whose message quotes the credential header, as some servers do. */
static char *echo_body(const char *body, const char *auth)
{
	cJSON *j = cJSON_Parse(body);
	cJSON *e = cJSON_GetObjectItem(j, "error");
	kf_buf msg = KF_BUF_INIT;
	kf_buf_addf(&msg, "%s (request had %s)", cJSON_GetStringValue(cJSON_GetObjectItem(e, "message")), auth);
	cJSON_DeleteItemFromObject(e, "message");
	cJSON_AddStringToObject(e, "message", msg.data);
	char *out = cJSON_PrintUnformatted(j);
	kf_buf_free(&msg);
	cJSON_Delete(j);
	return out;
}

static void serve_fault(struct kf_llm_server *s, struct conn *c, const struct request *rq, enum kf_llm_fault f,
			const char *auth, int64_t now)
{
	char extra[64] = "";
	c->due_ns = now + (int64_t)(s->cfg.latency_s * NS_PER_S);
	c->state = C_WAIT;
	switch (f) {
	case KF_LLM_FAULT_STALL:
		c->state = C_STALL;
		c->due_ns = now + (int64_t)(s->cfg.stall_s * NS_PER_S);
		return;
	case KF_LLM_FAULT_RESET:
		c->reset = true;
		c->due_ns = now;
		return;
	case KF_LLM_FAULT_TRUNCATED_JSON:
	case KF_LLM_FAULT_SHORT_BODY: {
		kf_buf text = KF_BUF_INIT;
		enum kf_scripted_reply kind = KF_LLM_GOOD;
		const char *finish;
		reply_text(s, rq, &kind, &finish, &text);
		char *body = reply_json(s, rq, text.data, finish, ++s->serial);
		size_t n = strlen(body);
		if (f == KF_LLM_FAULT_TRUNCATED_JSON) {
			http_response(&c->out, 200, "OK", NULL, body, n / 2, n / 2);
		} else {
			http_response(&c->out, 200, "OK", NULL, body, n, n);
			c->limit = c->out.len - n / 2;
		}
		free(body);
		kf_buf_free(&text);
		return;
	}
	default: {
		if (f == KF_LLM_FAULT_429)
			snprintf(extra, sizeof extra, "Retry-After: %d\r\n", s->cfg.retry_after_s);
		char *body = s->cfg.echo_auth ? echo_body(fault_replies[f].body, auth) : kf_xstrdup(fault_replies[f].body);
		http_response(&c->out, fault_replies[f].status, fault_replies[f].reason, extra, body, strlen(body),
			      strlen(body));
		free(body);
	}
	}
}

/* Well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF), as a strict
 * JSON parser demands. */
static bool valid_utf8(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char b = p[i];
		size_t k = b < 0x80 ? 0 : (b & 0xe0) == 0xc0 ? 1 : (b & 0xf0) == 0xe0 ? 2 : (b & 0xf8) == 0xf0 ? 3 : 4;
		if (k == 4 || i + k >= n + (k ? 0 : 1))
			return false;
		uint32_t cp = k == 0 ? b : b & (0x3f >> k);
		for (size_t j = 1; j <= k; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + j] & 0x3f);
		}
		static const uint32_t min_cp[] = { 0, 0x80, 0x800, 0x10000 };
		if (cp < min_cp[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

static void handle_request(struct kf_llm_server *s, struct conn *c, size_t hdr_len, size_t body_len)
{
	struct request rq = { .prototype = KF_BUF_INIT, .last_user = KF_BUF_INIT };
	char auth[AUTH_MAX] = "", value[AUTH_MAX];
	int64_t now = kf_now_ns();
	const char *line_end = memchr(c->in.data, '\r', hdr_len);
	size_t line_len = line_end ? (size_t)(line_end - c->in.data) : 0;
	bool openai = line_len > 0 && memmem(c->in.data, line_len, "/chat/completions ", strlen("/chat/completions "));
	bool anthropic = line_len > 0 && memmem(c->in.data, line_len, "/messages ", strlen("/messages "));
	if (!openai && !anthropic) {
		static const char body[] = "{\"error\":{\"message\":\"no such endpoint\"}}";
		http_response(&c->out, 404, "Not Found", NULL, body, strlen(body), strlen(body));
		c->state = C_SEND;
		return;
	}
	if (header_value(c->in.data, hdr_len, "Authorization", value, sizeof value))
		snprintf(auth, sizeof auth, "Authorization: %s", value);
	else if (header_value(c->in.data, hdr_len, "x-api-key", value, sizeof value))
		snprintf(auth, sizeof auth, "x-api-key: %s", value);
	if (s->cfg.strict_utf8 && !valid_utf8((const unsigned char *)c->in.data + hdr_len, body_len)) {
		static const char body[] = "{\"error\":{\"message\":\"the request body is not valid UTF-8\"}}";
		pthread_mutex_lock(&s->mu);
		s->requests++;
		s->invalid_utf8++;
		pthread_mutex_unlock(&s->mu);
		http_response(&c->out, 400, "Bad Request", NULL, body, strlen(body), strlen(body));
		c->state = C_SEND;
		return;
	}
	rq.api = openai ? API_OPENAI : API_ANTHROPIC;
	parse_body(c->in.data + hdr_len, body_len, &rq);
	enum kf_scripted_reply kind = KF_LLM_GOOD;
	enum kf_llm_fault f = classify(s, &rq, auth, &kind);
	if (f != KF_LLM_FAULT_NONE) {
		serve_fault(s, c, &rq, f, auth, now);
	} else {
		kf_buf text = KF_BUF_INIT;
		const char *finish;
		reply_text(s, &rq, &kind, &finish, &text);
		count_reply(s, kind);
		char *body = reply_json(s, &rq, text.data, finish, ++s->serial);
		http_response(&c->out, 200, "OK", NULL, body, strlen(body), strlen(body));
		free(body);
		kf_buf_free(&text);
		c->state = C_WAIT;
		c->due_ns = now + (int64_t)(s->cfg.latency_s * NS_PER_S);
	}
	kf_buf_free(&rq.prototype);
	kf_buf_free(&rq.last_user);
}

/* ---- the loop ---- */

static void close_conn(struct kf_llm_server *s, int i)
{
	struct conn *c = &s->conns[i];
	if (c->reset) {
		struct linger lg = { 1, 0 };
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
	}
	close(c->fd);
	kf_buf_free(&c->in);
	kf_buf_free(&c->out);
	s->conns[i] = s->conns[--s->n_conns];
}

/* Returns false when the connection is finished (closed by the caller). */
static bool on_readable(struct kf_llm_server *s, struct conn *c)
{
	char chunk[READ_CHUNK];
	ssize_t n = read(c->fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0 || c->in.len + (size_t)n > MAX_REQUEST_BYTES)
		return false;
	kf_buf_add(&c->in, chunk, (size_t)n);
	size_t hdr_len, body_len;
	if (request_complete(&c->in, &hdr_len, &body_len))
		handle_request(s, c, hdr_len, body_len);
	return true;
}

static bool on_writable(struct conn *c)
{
	size_t end = c->limit ? c->limit : c->out.len;
	while (c->sent < end) {
		ssize_t n = write(c->fd, c->out.data + c->sent, end - c->sent);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		if (n <= 0)
			return false;
		c->sent += (size_t)n;
	}
	return false;
}

static void accept_all(struct kf_llm_server *s)
{
	for (;;) {
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		pthread_mutex_lock(&s->mu);
		bool full = s->requests >= s->cfg.max_requests;
		pthread_mutex_unlock(&s->mu);
		if (full || s->n_conns == MAX_CONNS) {
			close(fd);
			continue;
		}
		struct conn *c = &s->conns[s->n_conns++];
		memset(c, 0, sizeof *c);
		c->fd = fd;
		c->state = C_READ;
	}
}

/* Moves timed connections along; returns ms until the next timer (capped). */
static int run_timers(struct kf_llm_server *s, int64_t now)
{
	int64_t next = POLL_MAX_MS;
	for (int i = 0; i < s->n_conns;) {
		struct conn *c = &s->conns[i];
		if ((c->state == C_WAIT || c->state == C_STALL) && c->due_ns <= now) {
			if (c->state == C_STALL || c->reset) {
				close_conn(s, i);
				continue;
			}
			c->state = C_SEND;
		}
		if ((c->state == C_WAIT || c->state == C_STALL) && (c->due_ns - now) / NS_PER_MS < next)
			next = (c->due_ns - now) / NS_PER_MS;
		i++;
	}
	return next < 0 ? 0 : (int)next;
}

static bool stopping(struct kf_llm_server *s)
{
	pthread_mutex_lock(&s->mu);
	bool stop = s->stopping;
	pthread_mutex_unlock(&s->mu);
	return stop || kf_now_ns() >= s->deadline_ns;
}

static void *serve(void *arg)
{
	struct kf_llm_server *s = arg;
	struct pollfd p[MAX_CONNS + 1];
	while (!stopping(s)) {
		int timeout = run_timers(s, kf_now_ns());
		p[0] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
		for (int i = 0; i < s->n_conns; i++) {
			const struct conn *c = &s->conns[i];
			short ev = c->state == C_READ ? POLLIN : c->state == C_SEND ? POLLOUT : 0;
			p[i + 1] = (struct pollfd){ .fd = c->fd, .events = ev };
		}
		int n = s->n_conns;
		if (poll(p, (nfds_t)n + 1, timeout) < 0 && errno != EINTR)
			break;
		/* Walk backwards: close_conn moves the last connection into the closed one's place. */
		for (int i = n - 1; i >= 0; i--) {
			struct conn *c = &s->conns[i];
			short re = p[i + 1].revents;
			bool keep = true;
			if (c->state == C_READ && (re & (POLLIN | POLLHUP | POLLERR)))
				keep = on_readable(s, c);
			else if (c->state == C_SEND && (re & (POLLOUT | POLLHUP | POLLERR)))
				keep = on_writable(c);
			if (!keep)
				close_conn(s, i);
		}
		if (p[0].revents & POLLIN)
			accept_all(s);
	}
	while (s->n_conns)
		close_conn(s, s->n_conns - 1);
	/* Past its time limit the server refuses connections instead of leaving them unanswered. */
	close(s->listen_fd);
	s->listen_fd = -1;
	return NULL;
}

static void apply_defaults(struct kf_llm_server *s)
{
	struct kf_llm_server_config *c = &s->cfg;
	if (c->stall_s <= 0)
		c->stall_s = DEFAULT_STALL_S;
	if (c->retry_after_s <= 0)
		c->retry_after_s = DEFAULT_RETRY_AFTER_S;
	if (c->max_requests <= 0)
		c->max_requests = DEFAULT_MAX_REQUESTS;
	if (c->max_seconds <= 0)
		c->max_seconds = DEFAULT_MAX_SECONDS;
	if (c->huge_bytes == 0)
		c->huge_bytes = DEFAULT_HUGE_BYTES;
	if (c->tokens_in <= 0)
		c->tokens_in = DEFAULT_TOKENS_IN;
	if (c->tokens_out <= 0)
		c->tokens_out = DEFAULT_TOKENS_OUT;
	s->backend = c->backend ? c->backend : "cpu";
	if (c->examples_dir)
		snprintf(s->examples, sizeof s->examples, "%s", c->examples_dir);
	else
		snprintf(s->examples, sizeof s->examples, "%s/examples/%s", kf_home(), s->backend);
}

static int listen_loopback(struct kf_llm_server *s, kf_err *err)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof addr;
	s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0)
		return kf_errno(err, KF_EINTERNAL, "llm server: socket");
	if (bind(s->listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s->listen_fd, LISTEN_BACKLOG) != 0 ||
	    getsockname(s->listen_fd, (struct sockaddr *)&addr, &len) != 0)
		return kf_errno(err, KF_EINTERNAL, "llm server: binding 127.0.0.1");
	snprintf(s->url, sizeof s->url, "http://127.0.0.1:%u/v1", ntohs(addr.sin_port));
	return KF_OK;
}

int kf_llm_server_start(const struct kf_llm_server_config *cfg, struct kf_llm_server **out, kf_err *err)
{
	struct kf_llm_server *s = kf_xcalloc(1, sizeof *s);
	*out = NULL;
	s->cfg = *cfg;
	s->listen_fd = -1;
	apply_defaults(s);
	pthread_mutex_init(&s->mu, NULL);
	s->deadline_ns = kf_now_ns() + (int64_t)(s->cfg.max_seconds * NS_PER_S);
	int rc = listen_loopback(s, err);
	if (rc == KF_OK && pthread_create(&s->thread, NULL, serve, s) != 0)
		rc = kf_errf(err, KF_EINTERNAL, "llm server: cannot start its thread");
	if (rc != KF_OK) {
		kf_llm_server_stop(s);
		return rc;
	}
	s->started = true;
	*out = s;
	return KF_OK;
}

void kf_llm_server_stop(struct kf_llm_server *s)
{
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->mu);
		s->stopping = true;
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
	}
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	pthread_mutex_destroy(&s->mu);
	free(s->last_feedback);
	free(s);
}

const char *kf_llm_server_url(const struct kf_llm_server *s)
{
	return s->url;
}

static int locked(struct kf_llm_server *s, const int *counter)
{
	pthread_mutex_lock(&s->mu);
	int v = *counter;
	pthread_mutex_unlock(&s->mu);
	return v;
}

int kf_llm_server_requests(struct kf_llm_server *s) { return locked(s, &s->requests); }
int kf_llm_server_replies(struct kf_llm_server *s, enum kf_scripted_reply r) { return locked(s, &s->replies[r]); }
int kf_llm_server_faults(struct kf_llm_server *s, enum kf_llm_fault f) { return locked(s, &s->faults[f]); }
int kf_llm_server_refinements(struct kf_llm_server *s) { return locked(s, &s->refinements); }
int kf_llm_server_invalid_utf8(struct kf_llm_server *s) { return locked(s, &s->invalid_utf8); }

int kf_llm_server_api_requests(struct kf_llm_server *s, const char *api)
{
	for (int i = 0; i < API_COUNT; i++)
		if (!strcmp(api, api_names[i]))
			return locked(s, &s->api[i]);
	return 0;
}

int kf_llm_server_task_requests(struct kf_llm_server *s, const char *task)
{
	pthread_mutex_lock(&s->mu);
	int n = 0;
	for (int i = 0; i < s->n_tasks; i++)
		if (!strcmp(s->tasks[i].name, task))
			n = s->tasks[i].requests;
	pthread_mutex_unlock(&s->mu);
	return n;
}

char *kf_llm_server_last_feedback(struct kf_llm_server *s)
{
	pthread_mutex_lock(&s->mu);
	char *copy = s->last_feedback ? kf_xstrdup(s->last_feedback) : NULL;
	pthread_mutex_unlock(&s->mu);
	return copy;
}

void kf_llm_server_last_auth(struct kf_llm_server *s, char *out, size_t len)
{
	pthread_mutex_lock(&s->mu);
	snprintf(out, len, "%s", s->last_auth);
	pthread_mutex_unlock(&s->mu);
}
