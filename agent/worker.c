/* Judge workers (see worker.h): the pool the orchestrator drives without ever blocking on a judge
 * (replies are read as they arrive, non-blocking, and buffered until a frame is whole), and the
 * worker's own loop. A request is written only to an idle worker, which is blocked reading it, so
 * writing it never waits for a judgement. */
#include "agent/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "db/store.h"
#include "eval/judge/judge.h"

#define FRAME_MAX (256u << 20) /* a judge result with every raw timing sample stays far below this */
#define FRAME_HEADER_MAX 16    /* decimal digits of a length, and the newline */
#define READ_CHUNK 65536
#define NS_PER_S 1e9

struct worker {
	pid_t pid;
	int to, from;          /* request pipe (write end), reply pipe (read end) */
	bool alive;
	bool busy;
	int64_t job;           /* the job in hand while busy */
	char last_task[KF_NAME_MAX];
	int64_t busy_since_ns;
	int64_t busy_ns;       /* total time spent with a job in hand */
	kf_buf in;             /* reply bytes read and not yet handed on */
};

struct kf_worker_pool {
	struct worker *w;
	int n;
	/* How a busy worker is ended: a forked one is killed; a command (srun) gets SIGTERM, which it
	 * passes on to its job step, where SIGKILL would leave the step running. */
	int stop_signal;
};

/* ---- frames ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int write_frame(int fd, const cJSON *msg)
{
	char *text = cJSON_PrintUnformatted(msg);
	if (!text)
		return -1;
	char head[FRAME_HEADER_MAX + 8];
	size_t len = strlen(text);
	int hn = snprintf(head, sizeof head, "%zu\n", len);
	int rc = write_all(fd, head, (size_t)hn) == 0 && write_all(fd, text, len) == 0 ? 0 : -1;
	free(text);
	return rc;
}

/* Parses the frame at the start of buf: 1 with *msg and *used set, 0 when it is not whole yet, -1
 * when it is not a frame. */
static int parse_frame(const char *buf, size_t len, cJSON **msg, size_t *used)
{
	size_t i = 0, n = 0;
	while (i < len && i < FRAME_HEADER_MAX && buf[i] >= '0' && buf[i] <= '9')
		n = n * 10 + (size_t)(buf[i++] - '0');
	if (i == len)
		return i < FRAME_HEADER_MAX ? 0 : -1;
	if (i == 0 || buf[i] != '\n' || n > FRAME_MAX)
		return -1;
	if (len - i - 1 < n)
		return 0;
	*msg = cJSON_ParseWithLength(buf + i + 1, n);
	*used = i + 1 + n;
	return *msg ? 1 : -1;
}

/* Blocking read of one frame: 1 with *msg, 0 at a clean end of input, -1 on garbage or an error. */
static int read_frame(int fd, cJSON **msg)
{
	char head[FRAME_HEADER_MAX + 1];
	size_t n = 0, i = 0;
	for (;; i++) {
		if (i >= FRAME_HEADER_MAX)
			return -1;
		ssize_t k = read(fd, &head[i], 1);
		if (k < 0 && errno == EINTR) {
			i--;
			continue;
		}
		if (k <= 0)
			return k == 0 && i == 0 ? 0 : -1;
		if (head[i] == '\n')
			break;
		if (head[i] < '0' || head[i] > '9')
			return -1;
		n = n * 10 + (size_t)(head[i] - '0');
	}
	if (i == 0 || n > FRAME_MAX)
		return -1;
	char *text = kf_xmalloc(n + 1);
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, text + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			free(text);
			return -1;
		}
		got += (size_t)k;
	}
	*msg = cJSON_ParseWithLength(text, n);
	free(text);
	return *msg ? 1 : -1;
}

/* ---- the worker's side ---- */

static const struct kf_task *find_task(struct kf_task *const *tasks, int n, const char *name,
				       struct kf_task **loaded, kf_err *err)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(tasks[i]->name, name))
			return tasks[i];
	if (*loaded && !strcmp((*loaded)->name, name))
		return *loaded;
	kf_task_free(*loaded);
	*loaded = NULL;
	return kf_task_find(NULL, name, loaded, err) == KF_OK ? *loaded : NULL;
}

static double num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* Judges one request; the reply always names the request's id. */
static cJSON *judge_request(const cJSON *req, struct kf_task *const *tasks, int n_tasks, struct kf_task **loaded,
			    struct kf_judge_opts *o, const struct kf_peaks *peaks)
{
	cJSON *reply = cJSON_CreateObject();
	cJSON_AddNumberToObject(reply, "id", num(req, "id", 0));
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "task"));
	const char *source = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "source"));
	kf_err err = { 0 };
	const struct kf_task *t = name && source ? find_task(tasks, n_tasks, name, loaded, &err) : NULL;
	if (!name || !source) {
		cJSON_AddStringToObject(reply, "error", "a judge request needs a task and a source");
		return reply;
	}
	if (!t) {
		cJSON_AddStringToObject(reply, "error", err.msg);
		return reply;
	}
	o->seed = (uint64_t)num(req, "seed", 0);
	o->n_seeds = (int)num(req, "seeds", o->n_seeds);
	o->call_timeout_s = num(req, "call_timeout_s", o->call_timeout_s);
	o->timing_budget_s = num(req, "timing_budget_s", o->timing_budget_s);
	o->deadline_s = num(req, "deadline_s", o->deadline_s);
	char started[KF_STORE_TIMESTAMP_LEN], finished[KF_STORE_TIMESTAMP_LEN];
	cJSON *result = NULL;
	kf_store_utc_now(started);
	int rc = kf_judge_evaluate(t, peaks, source, strlen(source), o, &result, &err);
	kf_store_utc_now(finished);
	if (rc != KF_OK) {
		cJSON_AddStringToObject(reply, "error", err.msg);
		return reply;
	}
	cJSON_AddStringToObject(result, "started_at", started);
	cJSON_AddStringToObject(result, "finished_at", finished);
	cJSON_AddItemToObject(reply, "result", result);
	return reply;
}

int kf_worker_serve(int in_fd, int out_fd, enum kf_backend backend, int device, struct kf_task *const *tasks,
		    int n_tasks, const char *db_path, const struct kf_peaks *given, kf_err *err)
{
	struct kf_store *store = NULL;
	struct kf_peaks own = { 0 };
	struct kf_task *loaded = NULL;
	const struct kf_peaks *peaks = given;
	int rc = KF_OK;
	if (db_path && *db_path && (rc = kf_store_open(db_path, &store, err)) != KF_OK)
		return rc;
	struct kf_judge_opts o;
	kf_judge_opts_default(&o);
	o.backend = backend;
	o.device = device;
	o.store = store;
	o.session = kf_judge_session_new();
	for (cJSON *req = NULL; rc == KF_OK;) {
		int got = read_frame(in_fd, &req);
		if (got <= 0) {
			if (got < 0)
				rc = kf_errf(err, KF_EINTERNAL, "judge worker: a request that is not a frame");
			break;
		}
		/* Read when the first candidate comes: by then the orchestrator has measured and stored them. */
		if (!peaks && (rc = kf_sol_peaks(store, backend, device, &own, err)) == KF_OK)
			peaks = &own;
		cJSON *reply = rc == KF_OK ? judge_request(req, tasks, n_tasks, &loaded, &o, peaks) : NULL;
		if (!reply) {
			cJSON_Delete(req);
			break;
		}
		if (write_frame(out_fd, reply) != 0)
			rc = kf_errno(err, KF_EINTERNAL, "judge worker: writing a reply");
		cJSON_Delete(reply);
		cJSON_Delete(req);
	}
	kf_judge_session_free(o.session);
	kf_task_free(loaded);
	kf_sol_peaks_free(&own);
	kf_store_close(store);
	return rc;
}

/* ---- the pool ---- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the child: nothing of the orchestrator's other workers, its own process group, gone with it. */
static void become_worker(struct kf_worker_pool *p, int self, int req_rd, int rep_wr, pid_t parent,
			  const struct kf_worker_setup *s)
{
	for (int i = 0; i < self; i++) {
		close_fd(&p->w[i].to);
		close_fd(&p->w[i].from);
	}
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	kf_err err = { 0 };
	int rc = kf_worker_serve(req_rd, rep_wr, s->backend, s->devices[self], s->tasks, s->n_tasks, s->db_path,
				 s->peaks, &err);
	if (rc != KF_OK)
		fprintf(stderr, "kforge: %s\n", err.msg);
	_exit(rc == KF_OK ? 0 : 3);
}

/* In the child: the command, speaking the protocol on its stdin and stdout. */
static void exec_worker(struct kf_worker_pool *p, int self, int req_rd, int rep_wr, pid_t parent,
			const struct kf_worker_setup *s)
{
	for (int i = 0; i < self; i++) {
		close_fd(&p->w[i].to);
		close_fd(&p->w[i].from);
	}
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent || dup2(req_rd, STDIN_FILENO) < 0 || dup2(rep_wr, STDOUT_FILENO) < 0)
		_exit(127);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	execvp(s->command[0], (char *const *)s->command);
	fprintf(stderr, "kforge: starting a judge worker: %s: %s\n", s->command[0], strerror(errno));
	_exit(127);
}

int kf_worker_pool_start(const struct kf_worker_setup *s, struct kf_worker_pool **out, kf_err *err)
{
	*out = NULL;
	if (s->n < 1 || s->n > KF_WORKER_MAX)
		return kf_errf(err, KF_EINPUT, "judge workers: %d asked for, 1 to %d possible", s->n, KF_WORKER_MAX);
	/* A worker that died mid-request must be an error code on write, not the end of kforge. */
	signal(SIGPIPE, SIG_IGN);
	struct kf_worker_pool *p = kf_xcalloc(1, sizeof *p);
	p->w = kf_xcalloc((size_t)s->n, sizeof *p->w);
	p->stop_signal = s->command ? SIGTERM : SIGKILL;
	for (int i = 0; i < s->n; i++)
		p->w[i] = (struct worker){ .to = -1, .from = -1 };
	pid_t parent = getpid();
	int rc = KF_OK;
	for (int i = 0; i < s->n && rc == KF_OK; i++) {
		int req[2], rep[2];
		if (pipe2(req, O_CLOEXEC) != 0)
			rc = kf_errno(err, KF_EINTERNAL, "judge workers: pipe");
		else if (pipe2(rep, O_CLOEXEC) != 0) {
			rc = kf_errno(err, KF_EINTERNAL, "judge workers: pipe");
			close(req[0]);
			close(req[1]);
		}
		if (rc != KF_OK)
			break;
		fflush(NULL); /* nothing buffered may be written twice */
		pid_t pid = fork();
		if (pid == 0) {
			close(req[1]);
			close(rep[0]);
			if (s->command)
				exec_worker(p, i, req[0], rep[1], parent, s);
			else
				become_worker(p, i, req[0], rep[1], parent, s);
		}
		close(req[0]);
		close(rep[1]);
		if (pid < 0) {
			rc = kf_errno(err, KF_EINTERNAL, "judge workers: fork");
			close(req[1]);
			close(rep[0]);
			break;
		}
		fcntl(rep[0], F_SETFL, fcntl(rep[0], F_GETFL) | O_NONBLOCK);
		p->w[i] = (struct worker){ .pid = pid, .to = req[1], .from = rep[0], .alive = true };
		p->n = i + 1;
	}
	if (rc != KF_OK) {
		kf_worker_pool_stop(p);
		return rc;
	}
	*out = p;
	return KF_OK;
}

void kf_worker_pool_stop(struct kf_worker_pool *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];
		close_fd(&w->to);
		if (w->alive && w->busy)
			kill(w->pid, p->stop_signal);
	}
	for (int i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];
		if (w->pid > 0)
			while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
				;
		close_fd(&w->from);
		kf_buf_free(&w->in);
	}
	free(p->w);
	free(p);
}

int kf_worker_pool_size(const struct kf_worker_pool *p)
{
	return p->n;
}

int kf_worker_pool_alive(const struct kf_worker_pool *p)
{
	int n = 0;
	for (int i = 0; i < p->n; i++)
		n += p->w[i].alive;
	return n;
}

int kf_worker_pool_busy(const struct kf_worker_pool *p)
{
	int n = 0;
	for (int i = 0; i < p->n; i++)
		n += p->w[i].alive && p->w[i].busy;
	return n;
}

int kf_worker_pool_idle(const struct kf_worker_pool *p, const char *task)
{
	int any = -1;
	for (int i = 0; i < p->n; i++) {
		const struct worker *w = &p->w[i];
		if (!w->alive || w->busy)
			continue;
		if (!strcmp(w->last_task, task))
			return i;
		if (any < 0)
			any = i;
	}
	return any;
}

int kf_worker_pool_send(struct kf_worker_pool *p, int wi, const struct kf_worker_job *job, kf_err *err)
{
	struct worker *w = &p->w[wi];
	if (!w->alive || w->busy)
		return kf_errf(err, KF_EINTERNAL, "judge worker %d is not idle", wi);
	cJSON *req = cJSON_CreateObject();
	cJSON_AddNumberToObject(req, "id", (double)job->id);
	cJSON_AddStringToObject(req, "task", job->task);
	char *src = kf_xmalloc(job->len + 1);
	memcpy(src, job->source, job->len);
	src[job->len] = '\0';
	cJSON_AddStringToObject(req, "source", src);
	free(src);
	cJSON_AddNumberToObject(req, "seed", (double)job->seed);
	cJSON_AddNumberToObject(req, "seeds", job->n_seeds);
	cJSON_AddNumberToObject(req, "call_timeout_s", job->call_timeout_s);
	cJSON_AddNumberToObject(req, "timing_budget_s", job->timing_budget_s);
	cJSON_AddNumberToObject(req, "deadline_s", job->deadline_s);
	w->busy = true;
	w->job = job->id;
	w->busy_since_ns = kf_now_ns();
	snprintf(w->last_task, sizeof w->last_task, "%s", job->task);
	/* A failed write means the worker died: its end of file, read next, hands the job back. */
	write_frame(w->to, req);
	cJSON_Delete(req);
	return KF_OK;
}

int kf_worker_pool_fds(const struct kf_worker_pool *p, struct kf_http_fd *fds, int *workers, int max)
{
	int n = 0;
	for (int i = 0; i < p->n && n < max; i++)
		if (p->w[i].alive) {
			fds[n] = (struct kf_http_fd){ .fd = p->w[i].from };
			workers[n++] = i;
		}
	return n;
}

static void worker_died(struct kf_worker_pool *p, int wi, kf_worker_reply_fn fn, void *ctx)
{
	struct worker *w = &p->w[wi];
	w->alive = false;
	close_fd(&w->to);
	kill(w->pid, p->stop_signal);
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
	close_fd(&w->from);
	if (!w->busy)
		return;
	w->busy = false;
	w->busy_ns += kf_now_ns() - w->busy_since_ns;
	struct kf_worker_reply r = { .worker = wi, .id = w->job, .died = true };
	fn(ctx, &r);
}

int kf_worker_pool_read(struct kf_worker_pool *p, int wi, kf_worker_reply_fn fn, void *ctx, kf_err *err)
{
	struct worker *w = &p->w[wi];
	if (!w->alive)
		return KF_OK;
	char chunk[READ_CHUNK];
	bool eof = false;
	for (;;) {
		ssize_t k = read(w->from, chunk, sizeof chunk);
		if (k > 0) {
			kf_buf_add(&w->in, chunk, (size_t)k);
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		eof = k == 0 || errno != EAGAIN;
		break;
	}
	size_t off = 0;
	for (;;) {
		cJSON *msg = NULL;
		size_t used = 0;
		int got = parse_frame(w->in.data + off, w->in.len - off, &msg, &used);
		if (got == 0)
			break;
		if (got < 0) {
			eof = true; /* garbage from a trusted worker: treat it as dead */
			break;
		}
		off += used;
		struct kf_worker_reply r = { .worker = wi, .id = (int64_t)num(msg, "id", 0) };
		r.error = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "error"));
		r.result = cJSON_DetachItemFromObjectCaseSensitive(msg, "result");
		if (!w->busy || r.id != w->job) {
			cJSON_Delete(r.result);
			cJSON_Delete(msg);
			return kf_errf(err, KF_EINTERNAL, "judge worker %d answered a job it was not given", wi);
		}
		w->busy = false;
		w->busy_ns += kf_now_ns() - w->busy_since_ns;
		if (!r.result && !r.error)
			r.error = "the judge worker sent neither a result nor an error";
		fn(ctx, &r);
		cJSON_Delete(msg);
	}
	if (off) {
		memmove(w->in.data, w->in.data + off, w->in.len - off);
		w->in.len -= off;
	}
	if (eof)
		worker_died(p, wi, fn, ctx);
	return KF_OK;
}

void kf_worker_pool_busy_time(const struct kf_worker_pool *p, double *busy_s)
{
	int64_t now = kf_now_ns();
	for (int i = 0; i < p->n; i++) {
		const struct worker *w = &p->w[i];
		int64_t ns = w->busy_ns + (w->busy ? now - w->busy_since_ns : 0);
		busy_s[i] = (double)ns / NS_PER_S;
	}
}
