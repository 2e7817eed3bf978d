/* kf_http implementation (see http.h). Each request owns one curl easy handle, reused for its
 * retries; a request is either in the multi handle (an attempt in flight), waiting for its retry
 * time, or done. The caller's loop calls kf_http_step (or kf_http_step_fds, which also watches the
 * caller's own descriptors), which polls curl's sockets with a timeout no later than the next retry,
 * so nothing ever busy-waits, and returns at once when a request has ended so its slot is reused. */
#include "agent/http.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/version.h"

#define DEFAULT_CONNECT_TIMEOUT_S 10.0
/* Without streaming, a model writes its whole answer before the first byte arrives: the stall
 * limit has to cover a long generation. */
#define DEFAULT_STALL_TIMEOUT_S 300.0
#define DEFAULT_REQUEST_TIMEOUT_S 900.0
#define DEFAULT_MAX_ATTEMPTS 6
#define DEFAULT_BACKOFF_BASE_S 1.0
#define DEFAULT_BACKOFF_CAP_S 60.0
#define DEFAULT_RETRY_AFTER_MAX_S 300.0
#define DEFAULT_MAX_BODY_BYTES (32u << 20)
#define LOW_SPEED_BYTES_PER_S 1L
#define JITTER_MIN 0.5           /* a backoff delay is drawn from [JITTER_MIN, 1] x the capped delay */
#define ERROR_EXCERPT_BYTES 200  /* of a failed response's body, kept in the error message */
#define FLUSH_SLICE_MS 10
#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL
#define US_PER_MS 1000.0
#define MAX_EXTRA_FDS 1024

enum transfer_state { T_ACTIVE, T_WAITING };

struct transfer {
	struct kf_http *h;
	CURL *easy;
	struct curl_slist *headers;
	char *url, *body;
	size_t body_len;
	kf_buf resp;
	void *user;
	enum transfer_state state;
	int attempt;          /* attempts started */
	int64_t started_ns;   /* of the attempt in flight */
	int64_t due_ns;       /* T_WAITING: when the next attempt starts */
	bool uploaded;        /* the attempt in flight has sent its whole request */
	bool too_large;
	bool stalled;         /* aborted by kforge: no byte moved for stall_timeout_s */
	curl_off_t moved;     /* bytes sent + received by the attempt so far */
	int64_t moved_ns;     /* when they last grew */
	char *secret;         /* NULL: nothing to scrub */
	char errbuf[CURL_ERROR_SIZE];
	struct transfer *next;
};

struct kf_http {
	struct kf_http_opts o;
	struct kf_http_callbacks cb;
	CURLM *multi;
	struct transfer *list;
	int n;
	int64_t finished;     /* requests delivered to on_done so far */
	kf_rng rng;
};

static const char *const result_names[] = {
	[KF_HTTP_OK] = "ok",
	[KF_HTTP_STATUS] = "http_error",
	[KF_HTTP_TRANSPORT] = "transport_error",
	[KF_HTTP_MALFORMED] = "malformed_response",
	[KF_HTTP_TOO_LARGE] = "oversized_response",
};

const char *kf_http_result_name(enum kf_http_result r)
{
	return result_names[r];
}

void kf_http_opts_default(struct kf_http_opts *o)
{
	o->connect_timeout_s = DEFAULT_CONNECT_TIMEOUT_S;
	o->stall_timeout_s = DEFAULT_STALL_TIMEOUT_S;
	o->request_timeout_s = DEFAULT_REQUEST_TIMEOUT_S;
	o->max_attempts = DEFAULT_MAX_ATTEMPTS;
	o->backoff_base_s = DEFAULT_BACKOFF_BASE_S;
	o->backoff_cap_s = DEFAULT_BACKOFF_CAP_S;
	o->retry_after_max_s = DEFAULT_RETRY_AFTER_MAX_S;
	o->max_body_bytes = DEFAULT_MAX_BODY_BYTES;
	o->jitter_seed = (uint64_t)kf_now_ns();
}

/* The statuses the issue and DESIGN.md name as transient; every other status is final. */
static bool status_retryable(long status)
{
	switch (status) {
	case 408: case 429: case 500: case 502: case 503: case 504: case 529:
		return true;
	default:
		return false;
	}
}

/* Transport failures that another attempt cannot fix: configuration and certificate problems. */
static bool transport_retryable(CURLcode c)
{
	switch (c) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_NOT_BUILT_IN:
	case CURLE_FUNCTION_NOT_FOUND:
	case CURLE_BAD_FUNCTION_ARGUMENT:
	case CURLE_OUT_OF_MEMORY:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CIPHER:
	case CURLE_LOGIN_DENIED:
	case CURLE_TOO_MANY_REDIRECTS:
	case CURLE_ABORTED_BY_CALLBACK:
		return false;
	default:
		return true;
	}
}

static size_t on_write(char *data, size_t size, size_t n, void *p)
{
	struct transfer *t = p;
	size_t bytes = size * n;
	if (t->resp.len + bytes > t->h->o.max_body_bytes) {
		t->too_large = true;
		return 0; /* curl aborts the transfer with CURLE_WRITE_ERROR */
	}
	kf_buf_add(&t->resp, data, bytes);
	return bytes;
}

static int on_progress(void *p, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct transfer *t = p;
	(void)dltotal;
	if (ultotal > 0 && ulnow >= ultotal)
		t->uploaded = true;
	/* The stall clock is kforge's own: curl's low-speed check averages over several seconds and
	 * gave up on a silent server only stall_timeout + 7 s later. */
	int64_t now = kf_now_ns();
	if (dlnow + ulnow != t->moved) {
		t->moved = dlnow + ulnow;
		t->moved_ns = now;
	} else if ((double)(now - t->moved_ns) >= t->h->o.stall_timeout_s * (double)NS_PER_S) {
		t->stalled = true;
		return 1; /* curl ends the attempt with CURLE_ABORTED_BY_CALLBACK */
	}
	return 0;
}

/* Sockets must not leak into the compile jail or the runner, which kforge forks meanwhile. */
static int on_socket(void *p, curl_socket_t fd, curlsocktype purpose)
{
	(void)p;
	(void)purpose;
	int flags = fcntl(fd, F_GETFD);
	if (flags >= 0)
		fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	return CURL_SOCKOPT_OK;
}

static long ms_of(double s)
{
	return (long)ceil(s * 1000.0);
}

static int setup_easy(struct transfer *t, kf_err *err)
{
	const struct kf_http_opts *o = &t->h->o;
	CURL *e = t->easy;
	long stall_s = (long)ceil(o->stall_timeout_s);
	CURLcode c = CURLE_OK;
#define SET(opt, val)                                             \
	do {                                                      \
		if (c == CURLE_OK)                                \
			c = curl_easy_setopt(e, opt, val);        \
	} while (0)
	SET(CURLOPT_URL, t->url);
	SET(CURLOPT_POST, 1L);
	SET(CURLOPT_POSTFIELDS, t->body);
	SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)t->body_len);
	SET(CURLOPT_HTTPHEADER, t->headers);
	SET(CURLOPT_WRITEFUNCTION, on_write);
	SET(CURLOPT_WRITEDATA, t);
	SET(CURLOPT_NOPROGRESS, 0L);
	SET(CURLOPT_XFERINFOFUNCTION, on_progress);
	SET(CURLOPT_XFERINFODATA, t);
	SET(CURLOPT_SOCKOPTFUNCTION, on_socket);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_CONNECTTIMEOUT_MS, ms_of(o->connect_timeout_s));
	SET(CURLOPT_TIMEOUT_MS, ms_of(o->request_timeout_s));
	SET(CURLOPT_LOW_SPEED_LIMIT, LOW_SPEED_BYTES_PER_S);
	SET(CURLOPT_LOW_SPEED_TIME, stall_s < 1 ? 1L : stall_s);
	SET(CURLOPT_ERRORBUFFER, t->errbuf);
	SET(CURLOPT_PRIVATE, t);
	SET(CURLOPT_ACCEPT_ENCODING, "");
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_USERAGENT, "kforge/" KF_VERSION_STRING);
#undef SET
	if (c != CURLE_OK)
		return kf_errf(err, KF_EINTERNAL, "configuring an HTTP request: %s", curl_easy_strerror(c));
	return KF_OK;
}

static void transfer_free(struct transfer *t)
{
	if (!t)
		return;
	if (t->easy)
		curl_easy_cleanup(t->easy);
	curl_slist_free_all(t->headers);
	if (t->secret) {
		explicit_bzero(t->secret, strlen(t->secret));
		free(t->secret);
	}
	free(t->url);
	free(t->body);
	kf_buf_free(&t->resp);
	free(t);
}

static void unlink_transfer(struct kf_http *h, struct transfer *t)
{
	for (struct transfer **p = &h->list; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			h->n--;
			return;
		}
}

static int start_attempt(struct kf_http *h, struct transfer *t, kf_err *err)
{
	kf_buf_reset(&t->resp);
	t->too_large = false;
	t->uploaded = false;
	t->stalled = false;
	t->moved = 0;
	t->errbuf[0] = '\0';
	t->attempt++;
	t->started_ns = kf_now_ns();
	t->moved_ns = t->started_ns;
	t->state = T_ACTIVE;
	CURLMcode mc = curl_multi_add_handle(h->multi, t->easy);
	if (mc != CURLM_OK)
		return kf_errf(err, KF_EINTERNAL, "starting an HTTP request: %s", curl_multi_strerror(mc));
	return KF_OK;
}

int kf_http_new(const struct kf_http_opts *o, const struct kf_http_callbacks *cb, struct kf_http **out,
		kf_err *err)
{
	static bool global_done;
	*out = NULL;
	if (!global_done) {
		CURLcode c = curl_global_init(CURL_GLOBAL_DEFAULT);
		if (c != CURLE_OK)
			return kf_errf(err, KF_EINTERNAL, "initialising libcurl: %s", curl_easy_strerror(c));
		global_done = true;
	}
	struct kf_http *h = kf_xcalloc(1, sizeof *h);
	h->o = *o;
	h->cb = *cb;
	kf_rng_seed(&h->rng, o->jitter_seed);
	h->multi = curl_multi_init();
	if (!h->multi) {
		free(h);
		return kf_errf(err, KF_EINTERNAL, "initialising libcurl: no multi handle");
	}
	*out = h;
	return KF_OK;
}

void kf_http_free(struct kf_http *h)
{
	if (!h)
		return;
	while (h->list) {
		struct transfer *t = h->list;
		h->list = t->next;
		if (t->state == T_ACTIVE)
			curl_multi_remove_handle(h->multi, t->easy);
		transfer_free(t);
	}
	curl_multi_cleanup(h->multi);
	free(h);
}

int kf_http_submit(struct kf_http *h, const struct kf_http_request *req, kf_err *err)
{
	struct transfer *t = kf_xcalloc(1, sizeof *t);
	t->h = h;
	t->user = req->user;
	t->attempt = req->first_attempt > 0 ? req->first_attempt : 0;
	t->url = kf_xstrdup(req->url);
	t->body = kf_xmalloc(req->body_len + 1);
	memcpy(t->body, req->body, req->body_len);
	t->body[req->body_len] = '\0';
	t->body_len = req->body_len;
	if (req->secret && strlen(req->secret) >= KF_HTTP_SECRET_MIN)
		t->secret = kf_xstrdup(req->secret);
	/* An empty Expect: stops curl waiting up to a second for "100 Continue" before large bodies. */
	t->headers = curl_slist_append(NULL, "Expect:");
	for (const char *const *hd = req->headers; hd && *hd && t->headers; hd++)
		t->headers = curl_slist_append(t->headers, *hd);
	t->easy = curl_easy_init();
	int rc;
	if (!t->headers || !t->easy)
		rc = kf_errf(err, KF_EINTERNAL, "preparing an HTTP request: out of memory");
	else if ((rc = setup_easy(t, err)) == KF_OK)
		rc = start_attempt(h, t, err);
	if (rc != KF_OK) {
		transfer_free(t);
		return rc;
	}
	t->next = h->list;
	h->list = t;
	h->n++;
	return KF_OK;
}

int kf_http_pending(const struct kf_http *h)
{
	return h->n;
}

/* Capped exponential backoff with jitter, never shorter than the server's Retry-After. */
static double retry_delay_s(struct kf_http *h, int attempt, double retry_after_s)
{
	double d = h->o.backoff_base_s * pow(2.0, attempt - 1);
	if (d > h->o.backoff_cap_s)
		d = h->o.backoff_cap_s;
	d *= JITTER_MIN + (1.0 - JITTER_MIN) * kf_rng_uniform(&h->rng);
	if (retry_after_s > d)
		d = retry_after_s > h->o.retry_after_max_s ? h->o.retry_after_max_s : retry_after_s;
	return d;
}

/* in[0..len) with every occurrence of secret replaced, into out; false (out untouched) when there is none. */
static bool scrub(const char *in, size_t len, const char *secret, kf_buf *out)
{
	size_t k = strlen(secret), from = 0;
	bool found = false;
	for (const char *hit; from < len && (hit = memmem(in + from, len - from, secret, k));) {
		size_t at = (size_t)(hit - in);
		kf_buf_add(out, in + from, at - from);
		kf_buf_adds(out, KF_HTTP_REDACTED);
		from = at + k;
		found = true;
	}
	if (found)
		kf_buf_add(out, in + from, len - from);
	return found;
}

static void scrub_body(const struct transfer *t, kf_buf *body)
{
	kf_buf clean = KF_BUF_INIT;
	if (!t->secret || !scrub(body->data ? body->data : "", body->len, t->secret, &clean))
		return;
	explicit_bzero(body->data, body->len);
	kf_buf_free(body);
	*body = clean;
}

static void scrub_text(const struct transfer *t, char *s, size_t cap)
{
	kf_buf clean = KF_BUF_INIT;
	if (t->secret && scrub(s, strlen(s), t->secret, &clean))
		snprintf(s, cap, "%s", clean.data);
	kf_buf_free(&clean);
}

/* "HTTP 503: <start of the body on one line>". */
static void status_error(const struct transfer *t, long status, char *out, size_t len)
{
	size_t n = t->resp.len < ERROR_EXCERPT_BYTES ? t->resp.len : ERROR_EXCERPT_BYTES;
	int used = snprintf(out, len, "HTTP %ld%s", status, n ? ": " : "");
	for (size_t i = 0; i < n && used >= 0 && (size_t)used + 1 < len; i++) {
		char ch = t->resp.data[i];
		out[used++] = (ch == '\n' || ch == '\r' || ch == '\t') ? ' ' : ch;
	}
	if (used >= 0 && (size_t)used < len)
		out[used] = '\0';
}

static void finish(struct kf_http *h, struct transfer *t, enum kf_http_result result, long status, double latency_ms,
		   int64_t announced_len, const char *error)
{
	struct kf_http_response r = { .result = result, .status = status, .attempts = t->attempt,
				      .latency_ms = latency_ms, .announced_len = announced_len };
	snprintf(r.error, sizeof r.error, "%s", error ? error : "");
	r.body_len = t->resp.len;
	r.body = kf_buf_detach(&t->resp);
	unlink_transfer(h, t);
	void *user = t->user;
	transfer_free(t);
	h->finished++;
	h->cb.on_done(user, &r);
}

/* Classifies an ended attempt, reports it, and either finishes the request or schedules a retry. */
static void attempt_ended(struct kf_http *h, struct transfer *t, CURLcode code)
{
	long status = 0;
	curl_off_t retry_after = -1, announced = -1;
	curl_multi_remove_handle(h->multi, t->easy);
	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
	if (curl_easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) != CURLE_OK || announced < 0)
		announced = -1;
	/* Before anything reads the body: an excerpt cut mid-key would leak its first half. */
	scrub_body(t, &t->resp);
	if (curl_easy_getinfo(t->easy, CURLINFO_RETRY_AFTER, &retry_after) != CURLE_OK || retry_after <= 0)
		retry_after = -1;
	/* curl's own clock of the attempt: when the caller collects it late, the server was not slow. */
	curl_off_t total_us = -1;
	double latency_ms = (double)(kf_now_ns() - t->started_ns) / (double)NS_PER_MS;
	if (curl_easy_getinfo(t->easy, CURLINFO_TOTAL_TIME_T, &total_us) == CURLE_OK && total_us >= 0)
		latency_ms = (double)total_us / US_PER_MS;
	char error[256] = "";
	enum kf_http_result result = KF_HTTP_OK;
	bool retry = false;
	if (t->too_large) {
		result = KF_HTTP_TOO_LARGE;
		if (announced > 0)
			snprintf(error, sizeof error, "response of %lld bytes, over the %zu-byte limit", (long long)announced,
				 h->o.max_body_bytes);
		else
			snprintf(error, sizeof error, "response larger than %zu bytes", h->o.max_body_bytes);
	} else if (t->stalled) {
		result = KF_HTTP_TRANSPORT;
		retry = true;
		snprintf(error, sizeof error, "no byte received for %g s (the stall timeout)", h->o.stall_timeout_s);
	} else if (code != CURLE_OK) {
		result = KF_HTTP_TRANSPORT;
		retry = transport_retryable(code);
		snprintf(error, sizeof error, "%s%s%s", curl_easy_strerror(code), t->errbuf[0] ? ": " : "", t->errbuf);
	} else if (status < 200 || status > 299) {
		result = KF_HTTP_STATUS;
		retry = status_retryable(status);
		status_error(t, status, error, sizeof error);
	} else if (h->cb.body_ok && !h->cb.body_ok(t->user, t->resp.data ? t->resp.data : "", t->resp.len)) {
		result = KF_HTTP_MALFORMED;
		retry = true;
		snprintf(error, sizeof error, "HTTP %ld with a malformed or truncated body (%zu bytes)", status,
			 t->resp.len);
	}
	scrub_text(t, error, sizeof error);
	retry = retry && t->attempt < h->o.max_attempts;
	struct kf_http_attempt a = { .attempt = t->attempt, .status = status, .error = error[0] ? error : NULL,
				     .latency_ms = latency_ms, .retry_after_s = (double)retry_after,
				     .retry_in_s = -1 };
	if (retry)
		a.retry_in_s = retry_delay_s(h, t->attempt, (double)retry_after);
	if (h->cb.on_attempt)
		h->cb.on_attempt(t->user, &a);
	if (!retry) {
		finish(h, t, result, status, latency_ms, (int64_t)announced, error);
		return;
	}
	t->state = T_WAITING;
	t->due_ns = kf_now_ns() + (int64_t)(a.retry_in_s * (double)NS_PER_S);
}

static void collect(struct kf_http *h)
{
	CURLMsg *msg;
	int left;
	while ((msg = curl_multi_info_read(h->multi, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		struct transfer *t = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&t);
		attempt_ended(h, t, msg->data.result);
	}
}

/* Starts the retries that are due; returns ns until the next one (-1 when none waits). */
static int64_t start_due(struct kf_http *h, kf_err *err, int *rc)
{
	int64_t now = kf_now_ns(), next = -1;
	for (struct transfer *t = h->list; t && *rc == KF_OK; t = t->next) {
		if (t->state != T_WAITING)
			continue;
		if (t->due_ns <= now)
			*rc = start_attempt(h, t, err);
		else if (next < 0 || t->due_ns - now < next)
			next = t->due_ns - now;
	}
	return next;
}

static int active_count(const struct kf_http *h)
{
	int n = 0;
	for (const struct transfer *t = h->list; t; t = t->next)
		n += t->state == T_ACTIVE;
	return n;
}

static int perform(struct kf_http *h, kf_err *err)
{
	int running;
	CURLMcode mc = curl_multi_perform(h->multi, &running);
	if (mc != CURLM_OK)
		return kf_errf(err, KF_EINTERNAL, "driving HTTP requests: %s", curl_multi_strerror(mc));
	collect(h);
	return KF_OK;
}

int kf_http_step_fds(struct kf_http *h, struct kf_http_fd *fds, int n_fds, int timeout_ms, kf_err *err)
{
	int rc = KF_OK;
	if (n_fds < 0 || n_fds > MAX_EXTRA_FDS)
		return kf_errf(err, KF_EINTERNAL, "kf_http_step_fds: %d extra descriptors", n_fds);
	int64_t next_ns = start_due(h, err, &rc);
	if (rc != KF_OK)
		return rc;
	int wait_ms = timeout_ms;
	if (next_ns >= 0 && next_ns / NS_PER_MS < wait_ms)
		wait_ms = (int)((next_ns + NS_PER_MS - 1) / NS_PER_MS);
	int64_t finished = h->finished;
	/* Perform first: transfers added since the last call need their first push. */
	if (active_count(h) > 0 && (rc = perform(h, err)) != KF_OK)
		return rc;
	/* A request that just ended frees a slot: the caller starts the next one before anything waits. */
	if (h->finished != finished)
		wait_ms = 0;
	struct curl_waitfd w[MAX_EXTRA_FDS];
	for (int i = 0; i < n_fds; i++) {
		w[i] = (struct curl_waitfd){ .fd = fds[i].fd, .events = CURL_WAIT_POLLIN };
		fds[i].ready = false;
	}
	if (wait_ms > 0 || n_fds > 0) {
		CURLMcode mc = curl_multi_poll(h->multi, n_fds ? w : NULL, (unsigned)n_fds, wait_ms, NULL);
		if (mc != CURLM_OK)
			return kf_errf(err, KF_EINTERNAL, "waiting for HTTP responses: %s", curl_multi_strerror(mc));
	}
	for (int i = 0; i < n_fds; i++)
		fds[i].ready = w[i].revents != 0;
	if ((rc = perform(h, err)) != KF_OK)
		return rc;
	start_due(h, err, &rc);
	return rc;
}

int kf_http_step(struct kf_http *h, int timeout_ms, kf_err *err)
{
	return kf_http_step_fds(h, NULL, 0, timeout_ms, err);
}

static bool all_uploaded(const struct kf_http *h)
{
	for (const struct transfer *t = h->list; t; t = t->next)
		if (t->state == T_ACTIVE && !t->uploaded)
			return false;
	return true;
}

int kf_http_flush(struct kf_http *h, int max_ms, kf_err *err)
{
	int64_t deadline = kf_now_ns() + (int64_t)max_ms * NS_PER_MS;
	int rc = KF_OK;
	while (rc == KF_OK) {
		if ((rc = perform(h, err)) != KF_OK)
			break;
		int64_t left_ms = (deadline - kf_now_ns()) / NS_PER_MS;
		if (all_uploaded(h) || left_ms <= 0)
			break;
		CURLMcode mc = curl_multi_poll(h->multi, NULL, 0, left_ms < FLUSH_SLICE_MS ? (int)left_ms : FLUSH_SLICE_MS,
					       NULL);
		if (mc != CURLM_OK)
			rc = kf_errf(err, KF_EINTERNAL, "sending HTTP requests: %s", curl_multi_strerror(mc));
	}
	return rc;
}
