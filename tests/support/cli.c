/* Runs kforge as a child process for the CLI-level tests (see cli.h). The child gets its own
 * process group so a timeout can kill everything it started; its streams are drained
 * concurrently so a chatty child never blocks on a full pipe. */
#include "tests/support/cli.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"

extern char **environ;

#define POLL_SLICE_MS 100 /* how often the deadline is checked while output flows */
#define REAP_SLICE_MS 5   /* how often the child's exit is checked once its pipes closed */
#define EXIT_GRACE_NS 2000000000LL /* after the child exits, how long its pipes may stay open */
#define READ_CHUNK 65536
#define EXEC_FAILED_STATUS 127

struct stream {
	int fd;
	kf_buf buf;
};

const char *kf_cli_kforge_path(void)
{
	static char path[PATH_MAX];
	if (path[0])
		return path;
	const char *installed = getenv(KF_CLI_INSTALLED_ENV);
	if (installed && *installed) {
		snprintf(path, sizeof path, "%s", installed);
		return path;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return "kforge";
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return "kforge";
	*slash = '\0';
	snprintf(path, sizeof path, "%s/kforge", exe);
	return path;
}

static bool same_name(const char *a, const char *b)
{
	size_t la = strcspn(a, "="), lb = strcspn(b, "=");
	return la == lb && !strncmp(a, b, la);
}

/* The inherited environment with env's entries replacing those of the same name. */
static char **build_env(const char *const *env)
{
	size_t n_inherited = 0, n_extra = 0;
	while (environ && environ[n_inherited])
		n_inherited++;
	while (env && env[n_extra])
		n_extra++;
	char **out = kf_xcalloc(n_inherited + n_extra + 1, sizeof *out);
	size_t k = 0;
	/* An installed kforge under test finds its data beside itself, not in the source tree. */
	const char *installed = getenv(KF_CLI_INSTALLED_ENV);
	bool drop_home = installed && *installed;
	for (size_t i = 0; i < n_inherited; i++) {
		bool replaced = drop_home && same_name(environ[i], "KFORGE_HOME=");
		for (size_t j = 0; j < n_extra && !replaced; j++)
			replaced = same_name(environ[i], env[j]);
		if (!replaced)
			out[k++] = environ[i];
	}
	for (size_t j = 0; j < n_extra; j++)
		out[k++] = (char *)env[j];
	return out;
}

static char **build_argv(const char *prog, const char *const *args)
{
	size_t n = 0;
	while (args && args[n])
		n++;
	char **argv = kf_xcalloc(n + 2, sizeof *argv);
	argv[0] = (char *)prog;
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	return argv;
}

/* Reads what is there; returns false at end of stream. */
static bool drain(struct stream *s)
{
	char chunk[READ_CHUNK];
	ssize_t n = read(s->fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	size_t room = KF_CLI_OUTPUT_MAX > s->buf.len ? KF_CLI_OUTPUT_MAX - s->buf.len : 0;
	kf_buf_add(&s->buf, chunk, (size_t)n < room ? (size_t)n : room);
	return true;
}

static void close_stream(struct stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* Pumps both streams until they close and the child is reaped, the deadline passes, or the
 * child has been gone for EXIT_GRACE_NS with its pipes still held open by something it left. */
static void pump(pid_t pid, struct stream st[2], int64_t deadline_ns, bool *exited, int *status,
		 bool *timed_out)
{
	int64_t exited_at = 0;
	while (!*exited || st[0].fd >= 0 || st[1].fd >= 0) {
		int64_t now = kf_now_ns();
		if (now >= deadline_ns) {
			*timed_out = true;
			return;
		}
		if (*exited && now - exited_at > EXIT_GRACE_NS)
			return;
		struct pollfd p[2];
		for (int i = 0; i < 2; i++)
			p[i] = (struct pollfd){ .fd = st[i].fd, .events = POLLIN };
		bool open = st[0].fd >= 0 || st[1].fd >= 0;
		if (poll(p, 2, open ? POLL_SLICE_MS : REAP_SLICE_MS) < 0 && errno != EINTR)
			return;
		for (int i = 0; i < 2; i++) {
			if (st[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR)) && !drain(&st[i]))
				close_stream(&st[i]);
		}
		if (!*exited && waitpid(pid, status, WNOHANG) == pid) {
			*exited = true;
			exited_at = kf_now_ns();
		}
	}
}

static void exec_child(int out_w, int err_w, char **argv, char **envp)
{
	setpgid(0, 0);
	int null_fd = open("/dev/null", O_RDONLY);
	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_w, STDOUT_FILENO) < 0 ||
	    dup2(err_w, STDERR_FILENO) < 0)
		_exit(EXEC_FAILED_STATUS);
	execve(argv[0], argv, envp);
	dprintf(STDERR_FILENO, "kforge-tests: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(EXEC_FAILED_STATUS);
}

static void finish(struct kf_cli_result *res, struct stream st[2], int status)
{
	res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	res->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	res->out_len = st[0].buf.len;
	res->err_len = st[1].buf.len;
	res->out = kf_buf_detach(&st[0].buf);
	res->err = kf_buf_detach(&st[1].buf);
	const char *end = NULL;
	res->json = cJSON_ParseWithOpts(res->out, &end, 1);
}

int kf_cli_run(const char *const *args, const char *const *env, double timeout_s, struct kf_cli_result *res,
	       kf_err *err)
{
	memset(res, 0, sizeof *res);
	int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };
	if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
		kf_errno(err, KF_EINTERNAL, "pipe");
		goto out_close;
	}
	char **argv = build_argv(kf_cli_kforge_path(), args);
	char **envp = build_env(env);
	int64_t start = kf_now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		kf_errno(err, KF_EINTERNAL, "fork");
		goto out_free;
	}
	if (pid == 0)
		exec_child(out_pipe[1], err_pipe[1], argv, envp);
	setpgid(pid, pid);
	close(out_pipe[1]);
	close(err_pipe[1]);
	out_pipe[1] = err_pipe[1] = -1;

	struct stream st[2] = { { out_pipe[0], KF_BUF_INIT }, { err_pipe[0], KF_BUF_INIT } };
	out_pipe[0] = err_pipe[0] = -1;
	bool exited = false;
	int status = 0;
	pump(pid, st, start + (int64_t)(timeout_s * 1e9), &exited, &status, &res->timed_out);
	if (!exited || st[0].fd >= 0 || st[1].fd >= 0)
		kill(-pid, SIGKILL);
	if (!exited) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	res->wall_s = (double)(kf_now_ns() - start) / 1e9;
	close_stream(&st[0]);
	close_stream(&st[1]);
	finish(res, st, status);
	free(argv);
	free(envp);
	return KF_OK;

out_free:
	free(argv);
	free(envp);
out_close:
	for (int i = 0; i < 2; i++) {
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
	}
	return err ? err->code : KF_EINTERNAL;
}

void kf_cli_result_free(struct kf_cli_result *res)
{
	free(res->out);
	free(res->err);
	cJSON_Delete(res->json);
	memset(res, 0, sizeof *res);
}

bool kf_cli_is_one_error_line(const struct kf_cli_result *res)
{
	static const char prefix[] = "kforge: ";
	if (!res->err || res->err_len <= sizeof prefix || strncmp(res->err, prefix, sizeof prefix - 1))
		return false;
	const char *newline = strchr(res->err, '\n');
	return newline == res->err + res->err_len - 1;
}

const char *kf_cli_json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool kf_cli_json_num(const cJSON *obj, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!cJSON_IsNumber(v))
		return false;
	*out = v->valuedouble;
	return true;
}

int kf_cli_join_kernel(const char *prelude, const char *body, const char *out, kf_err *err)
{
	const char *parts[] = { prelude, body };
	char *text[2] = { NULL, NULL }, *joined = NULL;
	size_t len[2] = { 0, 0 };
	int rc = KF_OK;
	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX];
		if ((size_t)snprintf(path, sizeof path, "%s/%s", kf_home(), parts[i]) >= sizeof path) {
			rc = kf_errf(err, KF_EINPUT, "path too long: %s", parts[i]);
			goto out;
		}
		if ((rc = kf_read_file(path, KF_CLI_OUTPUT_MAX, &text[i], &len[i], err)) != KF_OK)
			goto out;
	}
	joined = malloc(len[0] + 1 + len[1]);
	if (!joined) {
		rc = kf_errf(err, KF_EINTERNAL, "out of memory joining %s and %s", prelude, body);
		goto out;
	}
	memcpy(joined, text[0], len[0]);
	joined[len[0]] = '\n';
	memcpy(joined + len[0] + 1, text[1], len[1]);
	rc = kf_write_file(out, joined, len[0] + 1 + len[1], err);
out:
	free(joined);
	free(text[0]);
	free(text[1]);
	return rc;
}

int kf_cli_tmpdir(char out[PATH_MAX], kf_err *err)
{
	return kf_mkdtemp("/tmp", "kforge-test-", out, PATH_MAX, err);
}

pid_t kf_cli_spawn(const char *const *args, const char *dir)
{
	char out[PATH_MAX], err[PATH_MAX];
	snprintf(out, sizeof out, "%s/run.out", dir);
	snprintf(err, sizeof err, "%s/run.err", dir);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setpgid(0, 0);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (o < 0 || e < 0 || dup2(o, STDOUT_FILENO) < 0 || dup2(e, STDERR_FILENO) < 0)
			_exit(127);
		const char *argv[40] = { kf_cli_kforge_path() };
		for (int i = 0; args[i] && i < 38; i++)
			argv[i + 1] = args[i];
		execve(argv[0], (char *const *)argv, build_env(NULL));
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}
