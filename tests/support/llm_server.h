/* Test support: a scripted LLM server on 127.0.0.1 (an ephemeral port), run in a thread of the
 * test. It speaks OpenAI chat completions (POST .../chat/completions) and Anthropic messages
 * (POST .../messages) and answers with scripted replies chosen per task (the task name comes from
 * the prompt's "Task: NAME" line): good kernels (examples/<backend>/<task>.c|.cu), broken and lazy
 * ones built from the prompt's kf_launch prototype, no code, empty blocks, conflicting files, huge
 * replies, cut-off replies. Or it serves faults: 429 with Retry-After, 500, 529, 400, 401, stalls,
 * truncated JSON, bodies shorter than announced, reset connections. It counts every request. It is
 * bounded in requests and in time, and never reads or writes outside its sockets and examples/. */
#ifndef KF_TEST_LLM_SERVER_H
#define KF_TEST_LLM_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

enum kf_scripted_reply {
	KF_LLM_GOOD,         /* the task's example kernel; a lazy one when the task has none */
	KF_LLM_BROKEN,       /* does not compile */
	KF_LLM_LAZY,         /* compiles, returns 0, writes nothing */
	KF_LLM_NO_CODE,      /* prose only */
	KF_LLM_EMPTY_BLOCK,
	KF_LLM_CONFLICTING,  /* the kernel split over two named files */
	KF_LLM_HUGE,         /* huge_bytes of prose, then the good kernel */
	KF_LLM_UNTERMINATED, /* the kernel cut off before its closing fence (finish reason "length") */
	KF_LLM_INVALID_UTF8, /* the good kernel with bytes that are not UTF-8 in a comment */
	KF_LLM_SLOW,         /* the feedback-driven mode's slow_source */
	KF_LLM_FAST,         /* the feedback-driven mode's fast_source */
	KF_LLM_REPLY_COUNT
};

enum kf_llm_fault {
	KF_LLM_FAULT_NONE,
	KF_LLM_FAULT_429,            /* with Retry-After: retry_after_s */
	KF_LLM_FAULT_500,
	KF_LLM_FAULT_529,            /* Anthropic's "overloaded" */
	KF_LLM_FAULT_400,
	KF_LLM_FAULT_401,
	KF_LLM_FAULT_STALL,          /* accepts the request, then sends nothing for stall_s */
	KF_LLM_FAULT_TRUNCATED_JSON, /* 200 with a complete HTTP body holding half a JSON document */
	KF_LLM_FAULT_SHORT_BODY,     /* 200 announcing more bytes than it sends, then closes */
	KF_LLM_FAULT_RESET,          /* resets the connection after reading the request */
	KF_LLM_FAULT_COUNT
};

struct kf_llm_server_config {
	const enum kf_scripted_reply *script; /* first-round requests of a task: the k-th gets script[k % len];
					    NULL: always KF_LLM_GOOD */
	int script_len;
	const enum kf_scripted_reply *refine_script; /* requests with an assistant turn (refinements); NULL: GOOD */
	int refine_script_len;
	const enum kf_llm_fault *faults; /* the k-th request received (k < n_faults) gets faults[k] */
	int n_faults;
	double latency_s;     /* before every reply or fault (not stalls or resets) */
	double stall_s;       /* 0: 30 */
	int retry_after_s;    /* 0: 1 */
	const char *backend;  /* NULL: "cpu" */
	const char *examples_dir; /* NULL: <kf_home()>/examples/<backend> */
	int max_requests;     /* 0: 10000; later connections are closed unanswered */
	double max_seconds;   /* 0: 600; the server stops by itself after this */
	size_t huge_bytes;    /* 0: 2 MiB */
	int tokens_in, tokens_out; /* usage reported per reply; 0: 1000 and 500 */
	bool echo_auth;       /* fault bodies quote the credential header received, as careless servers do */
	bool strict_utf8;     /* a request body that is not valid UTF-8 gets 400, as strict servers answer */
	const char *salt;     /* NULL: none; else every code block starts with a comment holding it and a
				 count, so each reply is a source no earlier reply or run had (as a model's are) */
	/* Feedback-driven replies (a model that reads the feedback), replacing the scripts when
	 * slow_source is set: a first-round request gets slow_source; a refinement gets fast_source only
	 * when its last user turn (the judge's feedback) contains bound_marker (the feedback names the
	 * right bound), slow_source again otherwise. */
	const char *slow_source, *fast_source, *bound_marker;
};

/* A slow_source for vector_add on the CPU backend that is nowhere near a peak: one thread, and each
 * element waits for the one before it (a carried division the compiler may not drop: 0 * inf is not
 * 0), so the loop is neither parallel nor vectorised. Latency-bound: about a tenth of the bandwidth
 * it could use. */
extern const char kf_llm_slow_vector_add_cpu[];

struct kf_llm_server;

int kf_llm_server_start(const struct kf_llm_server_config *cfg, struct kf_llm_server **out, kf_err *err);
/* Stops the thread, closes every connection, frees everything. NULL is fine. */
void kf_llm_server_stop(struct kf_llm_server *s);

/* "http://127.0.0.1:PORT/v1": the base URL for --base-url. */
const char *kf_llm_server_url(const struct kf_llm_server *s);

/* Counters (read while the server runs). */
int kf_llm_server_requests(struct kf_llm_server *s);                  /* complete requests received */
int kf_llm_server_replies(struct kf_llm_server *s, enum kf_scripted_reply r); /* scripted replies served */
int kf_llm_server_faults(struct kf_llm_server *s, enum kf_llm_fault f);
int kf_llm_server_task_requests(struct kf_llm_server *s, const char *task);
int kf_llm_server_refinements(struct kf_llm_server *s);               /* requests with an assistant turn */
int kf_llm_server_api_requests(struct kf_llm_server *s, const char *api); /* "openai" | "anthropic" */
int kf_llm_server_invalid_utf8(struct kf_llm_server *s);              /* request bodies that were not UTF-8 */
/* The last user turn of the last refinement received, copied (free it); NULL before any. */
char *kf_llm_server_last_feedback(struct kf_llm_server *s);
/* The last credential header received ("Authorization: ..." or "x-api-key: ..."), "" if none. */
void kf_llm_server_last_auth(struct kf_llm_server *s, char *out, size_t len);

#endif
