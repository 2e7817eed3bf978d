/* kf_http: many HTTP POSTs in flight on one libcurl multi handle, driven from the caller's loop
 * (no threads). Owns timeouts, the body-size cap and retries: transport errors and 408/429/5xx/529
 * are retried with capped exponential backoff, jitter and Retry-After; 400/401/403 and other client
 * errors never are. Knows nothing of LLM APIs: a caller-supplied check says whether a 2xx body is
 * usable (a truncated or malformed body is retried like a transport error). A request's secret (its
 * API key) is scrubbed from every body and error message before any callback sees them: a server
 * that echoes the key in an error must not get it printed or stored. */
#ifndef KF_HTTP_H
#define KF_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct kf_http_opts {
	double connect_timeout_s;  /* TCP + TLS connect */
	double stall_timeout_s;    /* abort when no byte arrives for this long (whole seconds, >= 1) */
	double request_timeout_s;  /* one attempt, end to end */
	int max_attempts;          /* first try included */
	double backoff_base_s;     /* delay before the 2nd attempt; doubles per attempt */
	double backoff_cap_s;      /* backoff never exceeds this (Retry-After may, up to retry_after_max_s) */
	double retry_after_max_s;  /* a longer Retry-After is clamped to this */
	size_t max_body_bytes;     /* a larger response is refused, not retried */
	uint64_t jitter_seed;
};

void kf_http_opts_default(struct kf_http_opts *o);

/* How a request ended. */
enum kf_http_result {
	KF_HTTP_OK,        /* 2xx and the body passed the check */
	KF_HTTP_STATUS,    /* a non-retryable status, or retries exhausted on a retryable one */
	KF_HTTP_TRANSPORT, /* connection, timeout or protocol failure after the last attempt */
	KF_HTTP_MALFORMED, /* 2xx whose body never passed the check */
	KF_HTTP_TOO_LARGE, /* the body exceeded max_body_bytes */
};
const char *kf_http_result_name(enum kf_http_result r);

/* One attempt, reported as it ends (for the record: faults are kept even when a retry succeeds). */
struct kf_http_attempt {
	int attempt;          /* 1-based */
	long status;          /* HTTP status, 0 when none was received */
	const char *error;    /* NULL on a usable response; else what went wrong */
	double latency_ms;
	double retry_after_s; /* the server's Retry-After, or -1 */
	double retry_in_s;    /* -1 when no retry follows */
};

/* The final outcome; body is the last response's body (owned by the callee of on_done). */
struct kf_http_response {
	enum kf_http_result result;
	long status;
	char *body;
	size_t body_len;
	int attempts;
	double latency_ms;    /* of the last attempt */
	int64_t announced_len; /* the last response's Content-Length, -1 when none was announced */
	char error[256];      /* empty on KF_HTTP_OK */
};

struct kf_http_callbacks {
	/* Called for each attempt that ends, before any retry is scheduled. */
	void (*on_attempt)(void *user, const struct kf_http_attempt *a);
	/* Called once per request; takes ownership of r->body (free it). */
	void (*on_done)(void *user, struct kf_http_response *r);
	/* Says whether a 2xx body is complete and usable; NULL accepts every body. */
	bool (*body_ok)(void *user, const char *body, size_t len);
};

struct kf_http_request {
	const char *url;
	const char *const *headers; /* "Name: value" lines, NULL-terminated; copied */
	const char *body;           /* copied */
	size_t body_len;
	void *user;                 /* handed back to every callback */
	int first_attempt;          /* attempts already made (a resumed request continues the count); usually 0 */
	const char *secret;         /* replaced by KF_HTTP_REDACTED in whatever comes back; NULL: none */
};

#define KF_HTTP_REDACTED "[redacted]"
/* A secret shorter than this is not scrubbed: replacing every "ab" of a reply would destroy it, and
 * such a string is no credential. */
#define KF_HTTP_SECRET_MIN 4

struct kf_http;

int kf_http_new(const struct kf_http_opts *o, const struct kf_http_callbacks *cb, struct kf_http **out,
		kf_err *err);
/* Cancels whatever is still in flight or waiting to retry, without callbacks. */
void kf_http_free(struct kf_http *h);

int kf_http_submit(struct kf_http *h, const struct kf_http_request *req, kf_err *err);
/* Requests submitted and not yet done (in flight or waiting to retry). */
int kf_http_pending(const struct kf_http *h);
/* Waits at most timeout_ms for network activity or a retry falling due, then moves every transfer
 * forward and delivers the callbacks of those that ended. timeout_ms 0 never blocks. A request that
 * ends during the call makes it return without waiting. */
int kf_http_step(struct kf_http *h, int timeout_ms, kf_err *err);
/* kf_http_step that also wakes when one of the caller's descriptors is readable (or closed):
 * fds[i].ready says which. It returns without waiting when a request ended during the call. */
struct kf_http_fd {
	int fd;
	bool ready;
};
int kf_http_step_fds(struct kf_http *h, struct kf_http_fd *fds, int n_fds, int timeout_ms, kf_err *err);
/* Drives transfers for at most max_ms, until every attempt in flight has sent its whole request:
 * called before the caller blocks on other work, so the requests travel while it is busy. */
int kf_http_flush(struct kf_http *h, int max_ms, kf_err *err);

#endif
