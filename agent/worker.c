/* Judge workers and compile processes (see worker.h): the pool the orchestrator drives without
 * ever blocking on a judge or a compile (replies are read as they arrive, non-blocking, and
 * buffered until a frame is whole), its queue of jobs, and the two kinds of process's own loops.
 * A request is written only to an idle process, which is blocked reading it, so writing it never
 * waits for a judgement or a compile. */
#include "agent/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/compile_ahead.h"
#include "common/buf.h"
#include "common/clock.h"
#include "db/store.h"
#include "eval/judge/area.h"
#include "eval/judge/judge.h"

#define FRAME_MAX (256u << 20) /* a judge result with every raw timing sample stays far below this */
#define FRAME_HEADER_MAX 16    /* decimal digits of a length, and the newline */
#define READ_CHUNK 65536
#define REQUEST_ERROR_MAX 64 /* "a compile request needs a task and a source" */
#define NS_PER_S 1e9
/* Compiles yield the CPU to the judges: on the CPU backend a judge times kernels on these cores. */
#define COMPILE_NICE 10
/* How long the oldest queued job may wait while free judges take later jobs of the tasks they hold. */
#define KF_AFFINITY_MAX_WAIT_S 20.0

struct worker {
	bool compiler;         /* a compile process; else a judge */
	pid_t pid;
	int to, from;          /* request pipe (write end), reply pipe (read end) */
	bool alive;
	bool busy;
	int64_t job;           /* the job in hand while busy */
	char last_task[KF_NAME_MAX];
	int64_t busy_since_ns;
	int64_t busy_ns;       /* total time spent with a job in hand */
	int done;              /* jobs finished */
	kf_buf in;             /* reply bytes read and not yet handed on */
};

enum job_state {
	JOB_WAITING,   /* neither compiled nor compiling */
	JOB_COMPILING, /* with a compile process */
	JOB_READY,     /* compiled ahead (or not to be): for the next free judge */
};

/* A queued job, with its own copies of the task's name and the source. */
struct job {
	struct kf_worker_job j;
	enum job_state state;
	int64_t queued_ns;
};

struct kf_worker_pool {
	struct worker *w;      /* judges first, then compile processes */
	int n;
	int n_judges;
	int archs[KF_WORKER_MAX]; /* what the judges' devices build for, each once (kf_area_arch) */
	int n_archs;
	struct job *q;         /* by id, oldest first */
	int n_q, cap_q;
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

/* The task and source a request names (what says which kind of request, for the error); NULL, the
 * reason added to reply, when either is missing or the task is unknown. */
static const struct kf_task *request_task(const cJSON *req, const char *what, struct kf_task *const *tasks,
					  int n_tasks, struct kf_task **loaded, const char **source, cJSON *reply)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "task"));
	*source = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "source"));
	if (!name || !*source) {
		char msg[REQUEST_ERROR_MAX];
		snprintf(msg, sizeof msg, "a %s request needs a task and a source", what);
		cJSON_AddStringToObject(reply, "error", msg);
		return NULL;
	}
	kf_err err = { 0 };
	const struct kf_task *t = find_task(tasks, n_tasks, name, loaded, &err);
	if (!t)
		cJSON_AddStringToObject(reply, "error", err.msg);
	return t;
}

/* Judges one request; the reply always names the request's id. */
static cJSON *judge_request(const cJSON *req, struct kf_task *const *tasks, int n_tasks, struct kf_task **loaded,
			    struct kf_judge_opts *o, const struct kf_peaks *peaks)
{
	cJSON *reply = cJSON_CreateObject();
	cJSON_AddNumberToObject(reply, "id", num(req, "id", 0));
	const char *source = NULL;
	const struct kf_task *t = request_task(req, "judge", tasks, n_tasks, loaded, &source, reply);
	if (!t)
		return reply;
	kf_err err = { 0 };
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

/* One compile request: the reply names its id and what came of it. */
static cJSON *compile_request(const cJSON *req, enum kf_backend backend, const int *archs, int n_archs,
			      struct kf_task *const *tasks, int n_tasks, struct kf_task **loaded)
{
	cJSON *reply = cJSON_CreateObject();
	cJSON_AddNumberToObject(reply, "id", num(req, "id", 0));
	const char *source = NULL;
	const struct kf_task *t = request_task(req, "compile", tasks, n_tasks, loaded, &source, reply);
	if (!t)
		return reply;
	kf_err err = { 0 };
	bool compiled = false, cached = true;
	double ms = 0;
	for (int i = 0; i < n_archs; i++) {
		bool c = false, hit = false;
		double one = 0;
		if (kf_compile_ahead(t, backend, archs[i], source, strlen(source), &c, &hit, &one, &err) != KF_OK) {
			cJSON_AddStringToObject(reply, "error", err.msg);
			return reply;
		}
		compiled |= c;
		cached &= hit;
		ms += one;
	}
	cJSON_AddBoolToObject(reply, "compiled", compiled);
	cJSON_AddBoolToObject(reply, "cached", compiled && cached);
	cJSON_AddNumberToObject(reply, "ms", ms);
	return reply;
}

int kf_worker_serve_compiles(int in_fd, int out_fd, enum kf_backend backend, const int *archs, int n_archs,
			     struct kf_task *const *tasks, int n_tasks, kf_err *err)
{
	struct kf_task *loaded = NULL;
	int rc = KF_OK;
	for (cJSON *req = NULL; rc == KF_OK;) {
		int got = read_frame(in_fd, &req);
		if (got <= 0) {
			if (got < 0)
				rc = kf_errf(err, KF_EINTERNAL, "compile process: a request that is not a frame");
			break;
		}
		cJSON *reply = compile_request(req, backend, archs, n_archs, tasks, n_tasks, &loaded);
		if (write_frame(out_fd, reply) != 0)
			rc = kf_errno(err, KF_EINTERNAL, "compile process: writing a reply");
		cJSON_Delete(reply);
		cJSON_Delete(req);
	}
	kf_task_free(loaded);
	return rc;
}

/* ---- the pool ---- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the child: nothing of the orchestrator's other processes, its own process group, gone with it. */
static void detach_child(struct kf_worker_pool *p, int self, pid_t parent, int death_signal)
{
	for (int i = 0; i < self; i++) {
		close_fd(&p->w[i].to);
		close_fd(&p->w[i].from);
	}
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, death_signal);
	if (getppid() != parent)
		_exit(1);
	signal(SIGINT, SIG_IGN);
}

static void become_worker(struct kf_worker_pool *p, int self, int req_rd, int rep_wr, pid_t parent,
			  const struct kf_worker_setup *s)
{
	detach_child(p, self, parent, SIGKILL);
	signal(SIGTERM, SIG_DFL);
	kf_err err = { 0 };
	int rc = kf_worker_serve(req_rd, rep_wr, s->backend, s->devices[self], s->tasks, s->n_tasks, s->db_path,
				 s->peaks, &err);
	if (rc != KF_OK)
		fprintf(stderr, "kforge: %s\n", err.msg);
	_exit(rc == KF_OK ? 0 : 3);
}

static void become_compiler(struct kf_worker_pool *p, int self, int req_rd, int rep_wr, pid_t parent,
			    const struct kf_worker_setup *s)
{
	detach_child(p, self, parent, SIGKILL);
	signal(SIGTERM, SIG_DFL);
	setpriority(PRIO_PROCESS, 0, COMPILE_NICE);
	kf_err err = { 0 };
	int rc = kf_worker_serve_compiles(req_rd, rep_wr, s->backend, p->archs, p->n_archs, s->tasks, s->n_tasks, &err);
	if (rc != KF_OK)
		fprintf(stderr, "kforge: %s\n", err.msg);
	_exit(rc == KF_OK ? 0 : 3);
}

/* In the child: the command, speaking the protocol on its stdin and stdout. */
static void exec_worker(struct kf_worker_pool *p, int self, int req_rd, int rep_wr, pid_t parent,
			const struct kf_worker_setup *s)
{
	detach_child(p, self, parent, SIGTERM);
	if (dup2(req_rd, STDIN_FILENO) < 0 || dup2(rep_wr, STDOUT_FILENO) < 0)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	execvp(s->command[0], (char *const *)s->command);
	fprintf(stderr, "kforge: starting a judge worker: %s: %s\n", s->command[0], strerror(errno));
	_exit(127);
}

static int start_one(struct kf_worker_pool *p, int i, pid_t parent, const struct kf_worker_setup *s, kf_err *err)
{
	bool compiler = i >= s->n;
	int req[2], rep[2];
	if (pipe2(req, O_CLOEXEC) != 0)
		return kf_errno(err, KF_EINTERNAL, "judge workers: pipe");
	if (pipe2(rep, O_CLOEXEC) != 0) {
		close(req[0]);
		close(req[1]);
		return kf_errno(err, KF_EINTERNAL, "judge workers: pipe");
	}
	fflush(NULL); /* nothing buffered may be written twice */
	pid_t pid = fork();
	if (pid == 0) {
		close(req[1]);
		close(rep[0]);
		if (compiler)
			become_compiler(p, i, req[0], rep[1], parent, s);
		else if (s->command)
			exec_worker(p, i, req[0], rep[1], parent, s);
		else
			become_worker(p, i, req[0], rep[1], parent, s);
	}
	close(req[0]);
	close(rep[1]);
	if (pid < 0) {
		close(req[1]);
		close(rep[0]);
		return kf_errno(err, KF_EINTERNAL, "judge workers: fork");
	}
	fcntl(rep[0], F_SETFL, fcntl(rep[0], F_GETFL) | O_NONBLOCK);
	p->w[i] = (struct worker){ .compiler = compiler, .pid = pid, .to = req[1], .from = rep[0], .alive = true };
	p->n = i + 1;
	return KF_OK;
}

/* The architectures the judges' devices build for, each once. Asked in a child that exits: this
 * process forks workers after, and a process that has started CUDA cannot give it to a child;
 * nor should each compile process start CUDA of its own just to ask. */
static int device_archs(const struct kf_worker_setup *s, struct kf_worker_pool *p, kf_err *err)
{
	int found[KF_WORKER_MAX] = { 0 };
	if (s->backend == KF_BACKEND_CPU) {
		p->archs[0] = 0;
		p->n_archs = 1;
		return KF_OK;
	}
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return kf_errno(err, KF_EINTERNAL, "compile processes: pipe");
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		for (int i = 0; i < s->n; i++)
			found[i] = kf_area_arch(s->backend, s->devices[i]);
		_exit(write_all(fds[1], (const char *)found, (size_t)s->n * sizeof *found) == 0 ? 0 : 1);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return kf_errno(err, KF_EINTERNAL, "compile processes: fork");
	}
	size_t want = (size_t)s->n * sizeof *found, got = 0;
	while (got < want) {
		ssize_t k = read(fds[0], (char *)found + got, want - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fds[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	/* Unknown (0) builds for the default target, as the judge then does too. */
	for (int i = 0; i < s->n; i++) {
		int a = got == want ? found[i] : 0, k = 0;
		while (k < p->n_archs && p->archs[k] != a)
			k++;
		if (k == p->n_archs)
			p->archs[p->n_archs++] = a;
	}
	return KF_OK;
}

int kf_worker_pool_start(const struct kf_worker_setup *s, struct kf_worker_pool **out, kf_err *err)
{
	*out = NULL;
	if (s->n < 1 || s->n > KF_WORKER_MAX)
		return kf_errf(err, KF_EINPUT, "judge workers: %d asked for, 1 to %d possible", s->n, KF_WORKER_MAX);
	int compilers = s->command ? 0 : s->compile_jobs;
	if (compilers > KF_WORKER_MAX - s->n)
		compilers = KF_WORKER_MAX - s->n;
	if (compilers < 0)
		compilers = 0;
	/* A worker that died mid-request must be an error code on write, not the end of kforge. */
	signal(SIGPIPE, SIG_IGN);
	struct kf_worker_pool *p = kf_xcalloc(1, sizeof *p);
	p->w = kf_xcalloc((size_t)(s->n + compilers), sizeof *p->w);
	p->n_judges = s->n;
	p->stop_signal = s->command ? SIGTERM : SIGKILL;
	for (int i = 0; i < s->n + compilers; i++)
		p->w[i] = (struct worker){ .to = -1, .from = -1 };
	pid_t parent = getpid();
	int rc = compilers ? device_archs(s, p, err) : KF_OK;
	for (int i = 0; i < s->n + compilers && rc == KF_OK; i++)
		rc = start_one(p, i, parent, s, err);
	if (rc != KF_OK) {
		kf_worker_pool_stop(p);
		return rc;
	}
	*out = p;
	return KF_OK;
}

static void free_job(struct job *j)
{
	free((char *)j->j.task);
	free((char *)j->j.source);
}

void kf_worker_pool_stop(struct kf_worker_pool *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];
		close_fd(&w->to);
		if (w->alive && w->busy)
			kill(w->pid, w->compiler ? SIGKILL : p->stop_signal);
	}
	for (int i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];
		if (w->pid > 0)
			while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
				;
		close_fd(&w->from);
		kf_buf_free(&w->in);
	}
	for (int i = 0; i < p->n_q; i++)
		free_job(&p->q[i]);
	free(p->q);
	free(p->w);
	free(p);
}

int kf_worker_pool_size(const struct kf_worker_pool *p)
{
	return p->n_judges;
}

int kf_worker_pool_alive(const struct kf_worker_pool *p)
{
	int n = 0;
	for (int i = 0; i < p->n_judges; i++)
		n += p->w[i].alive;
	return n;
}

int kf_worker_pool_busy(const struct kf_worker_pool *p)
{
	int n = 0;
	for (int i = 0; i < p->n_judges; i++)
		n += p->w[i].alive && p->w[i].busy;
	return n;
}

int kf_worker_pool_queued(const struct kf_worker_pool *p)
{
	return p->n_q;
}

/* An idle judge, preferring one that judged `task` last; -1 when none. */
static int idle_judge(const struct kf_worker_pool *p, const char *task)
{
	int any = -1;
	for (int i = 0; i < p->n_judges; i++) {
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

static int idle_compiler(const struct kf_worker_pool *p)
{
	for (int i = p->n_judges; i < p->n; i++)
		if (p->w[i].alive && !p->w[i].busy)
			return i;
	return -1;
}

static bool compilers_alive(const struct kf_worker_pool *p)
{
	for (int i = p->n_judges; i < p->n; i++)
		if (p->w[i].alive)
			return true;
	return false;
}

static void mark_busy(struct worker *w, int64_t job, const char *task)
{
	w->busy = true;
	w->job = job;
	w->busy_since_ns = kf_now_ns();
	snprintf(w->last_task, sizeof w->last_task, "%s", task);
}

static void mark_idle(struct worker *w)
{
	w->busy = false;
	w->busy_ns += kf_now_ns() - w->busy_since_ns;
	w->done++;
}

/* Hands queued job k to idle judge wi and takes it off the queue. */
static void send_judge(struct kf_worker_pool *p, int wi, int k)
{
	struct worker *w = &p->w[wi];
	const struct kf_worker_job *job = &p->q[k].j;
	cJSON *req = cJSON_CreateObject();
	cJSON_AddNumberToObject(req, "id", (double)job->id);
	cJSON_AddStringToObject(req, "task", job->task);
	cJSON_AddStringToObject(req, "source", job->source);
	cJSON_AddNumberToObject(req, "seed", (double)job->seed);
	cJSON_AddNumberToObject(req, "seeds", job->n_seeds);
	cJSON_AddNumberToObject(req, "call_timeout_s", job->call_timeout_s);
	cJSON_AddNumberToObject(req, "timing_budget_s", job->timing_budget_s);
	cJSON_AddNumberToObject(req, "deadline_s", job->deadline_s);
	mark_busy(w, job->id, job->task);
	/* A failed write means the worker died: its end of file, read next, hands the job back. */
	write_frame(w->to, req);
	cJSON_Delete(req);
	free_job(&p->q[k]);
	memmove(&p->q[k], &p->q[k + 1], (size_t)(p->n_q - k - 1) * sizeof *p->q);
	p->n_q--;
}

static void send_compile(struct kf_worker_pool *p, int wi, int k)
{
	struct worker *w = &p->w[wi];
	struct job *job = &p->q[k];
	cJSON *req = cJSON_CreateObject();
	cJSON_AddNumberToObject(req, "id", (double)job->j.id);
	cJSON_AddStringToObject(req, "task", job->j.task);
	cJSON_AddStringToObject(req, "source", job->j.source);
	mark_busy(w, job->j.id, job->j.task);
	job->state = JOB_COMPILING;
	write_frame(w->to, req); /* as for a judge: a dead compile process is found on the next read */
	cJSON_Delete(req);
}

/* Gives each free judge the oldest job in `state` of the task it judged last, whose session (trusted
 * kernels loaded, reference runners up, inputs drawn) it keeps: another task's job makes it rebuild
 * all of that, which on a GPU costs more than judging a candidate. Skipped once the oldest queued job
 * has waited KF_AFFINITY_MAX_WAIT_S, so no task starves behind another's stream of samples. */
static void by_affinity(struct kf_worker_pool *p, enum job_state state)
{
	if (p->n_q && kf_now_ns() - p->q[0].queued_ns > (int64_t)(KF_AFFINITY_MAX_WAIT_S * NS_PER_S))
		return;
	for (int wi = 0; wi < p->n_judges; wi++) {
		const struct worker *w = &p->w[wi];
		if (!w->alive || w->busy || !w->last_task[0])
			continue;
		for (int k = 0; k < p->n_q; k++)
			if (p->q[k].state == state && !strcmp(p->q[k].j.task, w->last_task)) {
				send_judge(p, wi, k);
				break;
			}
	}
}

/* Passes queued jobs on, oldest first: compiled ones to free judges (each preferring its own
 * task's), then waiting ones to free compile processes, then what is still waiting to judges that are
 * still free. */
static void schedule(struct kf_worker_pool *p)
{
	by_affinity(p, JOB_READY);
	for (int k = 0; k < p->n_q;) {
		int wi = p->q[k].state == JOB_READY ? idle_judge(p, p->q[k].j.task) : -1;
		if (wi >= 0)
			send_judge(p, wi, k);
		else
			k++;
	}
	for (int k = 0, wi; k < p->n_q && (wi = idle_compiler(p)) >= 0; k++)
		if (p->q[k].state == JOB_WAITING)
			send_compile(p, wi, k);
	by_affinity(p, JOB_WAITING);
	for (int k = 0; k < p->n_q;) {
		int wi = p->q[k].state == JOB_WAITING ? idle_judge(p, p->q[k].j.task) : -1;
		if (wi >= 0)
			send_judge(p, wi, k);
		else
			k++;
	}
}

int kf_worker_pool_submit(struct kf_worker_pool *p, const struct kf_worker_job *job, kf_err *err)
{
	for (int k = 0; k < p->n_q; k++)
		if (p->q[k].j.id == job->id)
			return kf_errf(err, KF_EINTERNAL, "judge workers: job %lld is queued twice", (long long)job->id);
	p->q = kf_xgrow(p->q, p->n_q, &p->cap_q, sizeof *p->q);
	int k = p->n_q;
	while (k > 0 && p->q[k - 1].j.id > job->id)
		k--;
	memmove(&p->q[k + 1], &p->q[k], (size_t)(p->n_q - k) * sizeof *p->q);
	p->n_q++;
	char *src = kf_xmalloc(job->len + 1);
	memcpy(src, job->source, job->len);
	src[job->len] = '\0';
	p->q[k] = (struct job){ .j = *job, .state = compilers_alive(p) ? JOB_WAITING : JOB_READY,
				.queued_ns = kf_now_ns() };
	p->q[k].j.task = kf_xstrdup(job->task);
	p->q[k].j.source = src;
	schedule(p);
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

static struct job *queued(struct kf_worker_pool *p, int64_t id)
{
	for (int k = 0; k < p->n_q; k++)
		if (p->q[k].j.id == id)
			return &p->q[k];
	return NULL;
}

/* A compile that ended, well or not: its job is the judges' now (a failed compile ahead costs
 * nothing but time: the judge compiles the candidate itself and reports what happens then). */
static void compile_ended(struct kf_worker_pool *p, struct worker *w)
{
	struct job *j = queued(p, w->job);
	if (j && j->state == JOB_COMPILING)
		j->state = JOB_READY;
}

static void worker_died(struct kf_worker_pool *p, int wi, kf_worker_reply_fn fn, void *ctx)
{
	struct worker *w = &p->w[wi];
	w->alive = false;
	close_fd(&w->to);
	kill(w->pid, w->compiler ? SIGKILL : p->stop_signal);
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
	close_fd(&w->from);
	if (!w->busy)
		return;
	mark_idle(w);
	if (w->compiler) {
		compile_ended(p, w);
		return;
	}
	struct kf_worker_reply r = { .worker = wi, .id = w->job, .died = true };
	fn(ctx, &r);
}

/* Takes one whole reply frame from process wi. */
static int take_reply(struct kf_worker_pool *p, int wi, cJSON *msg, kf_worker_reply_fn fn, void *ctx, kf_err *err)
{
	struct worker *w = &p->w[wi];
	int64_t id = (int64_t)num(msg, "id", 0);
	if (!w->busy || id != w->job)
		return kf_errf(err, KF_EINTERNAL, "%s %d answered a job it was not given",
			       w->compiler ? "compile process" : "judge worker", wi);
	mark_idle(w);
	if (w->compiler) {
		compile_ended(p, w);
		return KF_OK;
	}
	struct kf_worker_reply r = { .worker = wi, .id = id };
	r.error = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "error"));
	r.result = cJSON_DetachItemFromObjectCaseSensitive(msg, "result");
	if (!r.result && !r.error)
		r.error = "the judge worker sent neither a result nor an error";
	fn(ctx, &r);
	return KF_OK;
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
	int rc = KF_OK;
	while (rc == KF_OK) {
		cJSON *msg = NULL;
		size_t used = 0;
		int got = parse_frame(w->in.data + off, w->in.len - off, &msg, &used);
		if (got == 0)
			break;
		if (got < 0) {
			eof = true; /* garbage from a trusted process: treat it as dead */
			break;
		}
		off += used;
		rc = take_reply(p, wi, msg, fn, ctx, err);
		cJSON_Delete(msg);
	}
	if (rc != KF_OK)
		return rc;
	if (off) {
		memmove(w->in.data, w->in.data + off, w->in.len - off);
		w->in.len -= off;
	}
	if (eof)
		worker_died(p, wi, fn, ctx);
	/* Jobs still waiting for a compile slot go to the judges once no compile process is left. */
	if (!compilers_alive(p))
		for (int k = 0; k < p->n_q; k++)
			p->q[k].state = p->q[k].state == JOB_WAITING ? JOB_READY : p->q[k].state;
	schedule(p);
	return KF_OK;
}

void kf_worker_pool_busy_time(const struct kf_worker_pool *p, double *busy_s)
{
	int64_t now = kf_now_ns();
	for (int i = 0; i < p->n_judges; i++) {
		const struct worker *w = &p->w[i];
		int64_t ns = w->busy_ns + (w->busy ? now - w->busy_since_ns : 0);
		busy_s[i] = (double)ns / NS_PER_S;
	}
}

void kf_worker_pool_compiled(const struct kf_worker_pool *p, int *jobs, double *busy_s)
{
	int64_t ns = 0;
	*jobs = 0;
	for (int i = p->n_judges; i < p->n; i++) {
		*jobs += p->w[i].done;
		ns += p->w[i].busy_ns;
	}
	*busy_s = (double)ns / NS_PER_S;
}
