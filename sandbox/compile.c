/* Compile jail and compile cache (see sandbox.h).
 * Theory of operation: the source, the generated header and shim are written to a fresh work
 * directory. A child enters new user (unless root)/mount/pid/net/ipc namespaces, becomes pid 1
 * of its pid namespace, mounts a tmpfs as its new root holding only read-only binds of /usr
 * (and the /bin, /lib* links or dirs), /dev/null & co, a fresh /proc, a private /tmp and the
 * work directory, chroots there, drops root, applies rlimits and execs the compiler. The parent
 * reads the capped log and enforces the wall timeout by killing the process group. Before any of
 * this, a lexical check refuses includes that name absolute paths, climb with "..", or are
 * computed by macros, so the jail is the second line, not the only one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/csource.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "sandbox/jail.h"
#include "sandbox/sandbox.h"

#define KF_COMPILE_DEFAULT_TIMEOUT_S 120.0
#define KF_COMPILE_CPU_S 100
#define KF_COMPILE_FSIZE (256u << 20)
#define KF_COMPILE_DATA (8ull << 30)
#define KF_COMPILE_NOFILE 512
#define KF_COMPILE_NPROC 256
#define KF_COMPILE_TMPFS_OPTS "size=1g,mode=0755"
#define KF_COMPILE_CACHE_VERSION "kforge-compile-2"
#define KF_COMPILE_MAX_ARGS 48
#define KF_CUDA_ARCH_SPECIFIC_FROM 90 /* the first compute capability with an "a" target */

struct backend_tool {
	const char *src_name, *shim_name;
	const char *const *compile_flags; /* between the compiler and -c */
	const char *const *link_flags;    /* after the objects */
	const char *const *vendor_link;   /* added when the task allows vendor libraries */
};

static const char *const cpu_compile[] = { "-O3", "-march=native", "-fopenmp", "-fPIC", "-std=gnu17",
					   "-include", "kf_task.h", NULL };
static const char *const cpu_link[] = { "-shared", "-fopenmp", "-Wl,--no-undefined", "-lm", NULL };
static const char *const cuda_compile[] = { "-O3", "-std=c++17", "-Xcompiler", "-fPIC", "-include",
					    "kf_task.h", NULL };
/* The shared runtime, so the candidate uses the runner's (whose allocators are capped). */
static const char *const cuda_link[] = { "-shared", "-cudart", "shared", "-Xlinker", "--no-undefined", NULL };
static const char *const cuda_vendor_link[] = { "-lcublas", "-lcublasLt", NULL };

static const struct backend_tool tools[KF_BACKEND_COUNT] = {
	[KF_BACKEND_CPU] = { "candidate.c", "shim.c", cpu_compile, cpu_link },
	[KF_BACKEND_CUDA] = { "candidate.cu", "shim.cu", cuda_compile, cuda_link, cuda_vendor_link },
};

/* SASS for exactly the device, and no PTX (nothing is compiled just in time at load). From
 * compute capability 9.0 on, the architecture-specific target ("a": wgmma, TMA multicast,
 * tcgen05), which runs only on that architecture, as a candidate is only ever run there. */
static void cuda_gencode(int arch, char *out, size_t len)
{
	if (arch <= 0)
		arch = KF_CUDA_DEFAULT_ARCH;
	const char *specific = arch >= KF_CUDA_ARCH_SPECIFIC_FROM ? "a" : "";
	snprintf(out, len, "arch=compute_%d%s,code=sm_%d%s", arch, specific, arch, specific);
}

/* ---- which compiler, and what identifies it ---- */

static int find_compiler(enum kf_backend b, char *out, size_t len, kf_err *err)
{
	if (b == KF_BACKEND_CUDA) {
		const char *home = getenv("CUDA_HOME");
		snprintf(out, len, "%s/bin/nvcc", home && *home ? home : "/usr/local/cuda");
		if (access(out, X_OK) != 0)
			return kf_errf(err, KF_EINPUT, "nvcc not found at %s (set CUDA_HOME)", out);
		return KF_OK;
	}
	const char *cc = getenv("KFORGE_CC");
	if (!cc || !*cc)
		cc = "cc";
	if (strchr(cc, '/')) {
		snprintf(out, len, "%s", cc);
		return access(out, X_OK) == 0 ? KF_OK : kf_errf(err, KF_EINTERNAL, "compiler %s not found", cc);
	}
	const char *path = getenv("PATH");
	char dirs[4096];
	snprintf(dirs, sizeof dirs, "%s", path && *path ? path : "/usr/bin:/bin");
	for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", d, cc);
		if (access(out, X_OK) == 0)
			return KF_OK;
	}
	return kf_errf(err, KF_EINTERNAL, "no C compiler '%s' on PATH", cc);
}

/* The compiler's own version line ("gcc (Debian 12.2.0-14) 12.2.0", nvcc's "Cuda compilation
 * tools, release 13.0, V13.0.48"), asked once per process and compiler. */
static void compiler_version(const char *path, char *out, size_t len)
{
	static char cached_path[PATH_MAX], cached[200];
	if (strcmp(cached_path, path) != 0) {
		snprintf(cached_path, sizeof cached_path, "%s", path);
		snprintf(cached, sizeof cached, "unknown version");
		int pfd[2];
		if (pipe2(pfd, O_CLOEXEC) == 0) {
			pid_t pid = fork();
			if (pid == 0) {
				dup2(pfd[1], 1);
				int null = open("/dev/null", O_WRONLY);
				dup2(null, 2);
				execl(path, path, "--version", (char *)NULL);
				_exit(127);
			}
			close(pfd[1]);
			char text[4096];
			ssize_t n = pid > 0 ? read(pfd[0], text, sizeof text - 1) : -1;
			close(pfd[0]);
			if (pid > 0)
				waitpid(pid, NULL, 0);
			if (n > 0) {
				text[n] = '\0';
				char *line = strstr(text, "release");
				if (line)
					while (line > text && line[-1] != '\n')
						line--;
				else
					line = text;
				snprintf(cached, sizeof cached, "%.*s", (int)strcspn(line, "\n"), line);
			}
		}
	}
	snprintf(out, len, "%s", cached);
}

/* Version, path, size and mtime of the real binary: changes whenever the toolchain does. */
static void compiler_identity(const char *path, char *out, size_t len)
{
	char real[PATH_MAX], version[200];
	struct stat st;
	if (!realpath(path, real))
		snprintf(real, sizeof real, "%s", path);
	if (stat(real, &st) != 0)
		memset(&st, 0, sizeof st);
	compiler_version(path, version, sizeof version);
	snprintf(out, len, "%s (%s, %lld bytes, mtime %lld)", version, real, (long long)st.st_size, (long long)st.st_mtime);
}

/* -march=native makes the machine's CPU features part of the compile. */
static void cpu_features(kf_sha256 *h)
{
	char *text = NULL;
	size_t len = 0;
	if (kf_read_file("/proc/cpuinfo", 1u << 22, &text, &len, NULL) != KF_OK)
		return;
	char *flags = strstr(text, "\nflags");
	char *model = strstr(text, "model name");
	if (model)
		kf_sha256_update(h, model, strcspn(model, "\n"));
	if (flags)
		kf_sha256_update(h, flags, strcspn(flags + 1, "\n") + 1);
	free(text);
}

/* Shared headers are part of what gets compiled: their bytes belong in the cache key. */
static void hash_tree(kf_sha256 *h, const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", dir, name);
		struct stat st;
		if (name[0] != '.' && lstat(path, &st) == 0) {
			kf_sha256_update(h, name, strlen(name) + 1);
			if (S_ISDIR(st.st_mode)) {
				hash_tree(h, path);
			} else if (S_ISREG(st.st_mode)) {
				char *text = NULL;
				size_t len = 0;
				if (kf_read_file(path, 16u << 20, &text, &len, NULL) == KF_OK)
					kf_sha256_update(h, text, len);
				free(text);
			}
		}
		free(names[i]);
	}
	free(names);
}

/* ---- the lexical include check ---- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Returns NULL when every include names a plain relative or system header. Comments are
 * blanked first; string literals are kept (an .incbin hides inside an asm string). */
static const char *bad_include(const char *text, size_t text_len, char *why, size_t len)
{
	char *src = kf_csource_blank(text, text_len, false);
	const char *bad = NULL;
	static const char *const directives[] = { "include", "include_next", "import", "embed" };
	int line = 1;
	for (const char *p = src; *p; p++) {
		if (*p == '\n') {
			line++;
			continue;
		}
		const char *q = NULL;
		if (*p == '#') {
			const char *d = skip_ws(p + 1);
			for (size_t i = 0; i < sizeof directives / sizeof directives[0]; i++) {
				size_t n = strlen(directives[i]);
				if (!strncmp(d, directives[i], n) && (d[n] == ' ' || d[n] == '\t' || d[n] == '<' || d[n] == '"')) {
					q = skip_ws(d + n);
					break;
				}
			}
			if (q && *q != '<' && *q != '"') {
				snprintf(why, len, "line %d: computed #include is not allowed", line);
				bad = why;
				break;
			}
		} else if (!strncmp(p, "__has_include", 13)) {
			q = skip_ws(p + 13);
			if (*q == '(')
				q = skip_ws(q + 1);
			if (*q != '<' && *q != '"')
				q = NULL;
		} else if (!strncmp(p, ".incbin", 7) || !strncmp(p, ".include", 8)) {
			snprintf(why, len, "line %d: assembler file inclusion (.incbin/.include) is not allowed", line);
			bad = why;
			break;
		}
		if (!q)
			continue;
		char close = *q == '<' ? '>' : '"';
		const char *end = strchr(q + 1, close);
		const char *nl = strchr(q + 1, '\n');
		if (!end || (nl && nl < end))
			continue; /* malformed: the compiler will say so */
		size_t n = (size_t)(end - q - 1);
		if (q[1] == '/' || memmem(q + 1, n, "..", 2)) {
			snprintf(why, len, "line %d: #include of '%.*s' is not allowed (absolute or parent-relative path)",
				 line, (int)(n < 200 ? n : 200), q + 1);
			bad = why;
			break;
		}
	}
	free(src);
	return bad;
}

/* ---- the jail ---- */

#define KF_JAIL_FAIL_MARK "kforge compile jail: "

/* Says on the log what could not be set up (the parent recognises the mark) and gives up. */
static __attribute__((noreturn)) void jail_die(const char *what, const char *path)
{
	char msg[PATH_MAX + 128];
	int n = snprintf(msg, sizeof msg, KF_JAIL_FAIL_MARK "%s %s: %s\n", what, path ? path : "", strerror(errno));
	ssize_t w = write(2, msg, n > 0 ? (size_t)n : 0);
	(void)w;
	_exit(KF_EINTERNAL);
}

static void bind_ro(const char *src, const char *dst)
{
	struct stat st;
	if (lstat(src, &st) != 0)
		return;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(src, target, sizeof target - 1);
		if (n > 0) {
			target[n] = '\0';
			if (symlink(target, dst) != 0)
				jail_die("cannot link", dst);
		}
		return;
	}
	if (S_ISDIR(st.st_mode))
		mkdir(dst, 0755);
	else
		close(open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
		jail_die("cannot bind-mount", src);
	mount(NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, NULL);
}

#define KF_JAIL_INCLUDE "/include"

static __attribute__((noreturn)) void jail_exec(const char *root, const char *work, const char *include_dir,
						 char *const argv[], int log_fd)
{
	static const char *const sys_dirs[] = { "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32" };
	static const char *const devs[] = { "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random" };
	/* The loader's cache and the alternatives links (cc -> gcc) only: no passwd, no secrets. */
	static const char *const etc[] = { "/etc/ld.so.cache", "/etc/alternatives" };
	char p[PATH_MAX];
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed kforge leaves no compiler behind */
	dup2(log_fd, 1);
	dup2(log_fd, 2);
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0)
		dup2(devnull, 0);
	kf_jail_close_from(3);
	int ns = kf_jail_unshare(true);
	if (ns & KF_JAIL_NS_PID) {
		/* The first child is pid 1 of the new namespace and may mount a fresh /proc. */
		pid_t child = fork();
		if (child < 0)
			jail_die("cannot fork", NULL);
		if (child > 0) {
			int st;
			while (waitpid(child, &st, 0) < 0 && errno == EINTR)
				;
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		}
	}
	if (ns & KF_JAIL_NS_MNT) {
		if (mount("tmpfs", root, "tmpfs", 0, KF_COMPILE_TMPFS_OPTS) != 0)
			jail_die("cannot mount a tmpfs on", root);
		for (size_t i = 0; i < sizeof sys_dirs / sizeof sys_dirs[0]; i++) {
			snprintf(p, sizeof p, "%s%s", root, sys_dirs[i]);
			bind_ro(sys_dirs[i], p);
		}
		snprintf(p, sizeof p, "%s/dev", root);
		mkdir(p, 0755);
		for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
			snprintf(p, sizeof p, "%s%s", root, devs[i]);
			bind_ro(devs[i], p);
		}
		snprintf(p, sizeof p, "%s/etc", root);
		mkdir(p, 0755);
		for (size_t i = 0; i < sizeof etc / sizeof etc[0]; i++) {
			snprintf(p, sizeof p, "%s%s", root, etc[i]);
			bind_ro(etc[i], p);
		}
		snprintf(p, sizeof p, "%s/tmp", root);
		mkdir(p, 01777);
		chmod(p, 01777);
		snprintf(p, sizeof p, "%s/proc", root);
		mkdir(p, 0555);
		if ((ns & KF_JAIL_NS_PID) && mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
			jail_die("cannot mount", p);
		if (include_dir) {
			snprintf(p, sizeof p, "%s%s", root, KF_JAIL_INCLUDE);
			bind_ro(include_dir, p);
		}
		snprintf(p, sizeof p, "%s/work", root);
		mkdir(p, 0755);
		if (mount(work, p, NULL, MS_BIND, NULL) != 0)
			jail_die("cannot bind-mount", work);
		if (geteuid() == 0 && chown(p, KF_JAIL_NOBODY_UID, KF_JAIL_NOBODY_UID) != 0)
			jail_die("cannot hand over", p);
		if (chroot(root) != 0 || chdir("/work") != 0)
			jail_die("cannot enter", root);
	} else if (chdir(work) != 0 || (geteuid() == 0 && chown(work, KF_JAIL_NOBODY_UID, KF_JAIL_NOBODY_UID) != 0)) {
		jail_die("cannot enter", work);
	}
	if (kf_jail_drop_root() != 0)
		jail_die("cannot drop root privileges", NULL);
	struct kf_jail_limits lim = { KF_COMPILE_CPU_S, KF_COMPILE_DATA, KF_COMPILE_FSIZE, KF_COMPILE_NOFILE,
				      KF_COMPILE_NPROC };
	if (kf_jail_set_limits(&lim) != 0)
		jail_die("cannot set resource limits", NULL);
	char *envp[] = { "PATH=/usr/local/cuda/bin:/usr/bin:/bin", "LANG=C", "LC_ALL=C", "TMPDIR=/tmp",
			 "HOME=/tmp", NULL };
	execve(argv[0], argv, envp);
	jail_die("cannot run", argv[0]);
}

enum step_outcome { STEP_OK, STEP_FAILED, STEP_TIMEOUT, STEP_JAIL_FAILED };

/* Runs one compiler command in the jail, appending its output to log (capped). */
static enum step_outcome run_step(const char *work, const char *include_dir, char *const argv[], double timeout_s,
				  kf_buf *log, kf_err *err)
{
	char root[PATH_MAX];
	snprintf(root, sizeof root, "%s.root", work);
	if (mkdir(root, 0755) != 0 && errno != EEXIST) {
		kf_errno(err, KF_EINTERNAL, "cannot create %s", root);
		return STEP_JAIL_FAILED;
	}
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		kf_errno(err, KF_EINTERNAL, "cannot create a pipe");
		return STEP_JAIL_FAILED;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		kf_errno(err, KF_EINTERNAL, "cannot fork the compiler");
		return STEP_JAIL_FAILED;
	}
	if (pid == 0) {
		setpgid(0, 0);
		jail_exec(root, work, include_dir, argv, pfd[1]);
	}
	setpgid(pid, pid);
	close(pfd[1]);
	int64_t deadline = kf_now_ns() + (int64_t)(timeout_s * 1e9);
	bool timed_out = false;
	char chunk[4096];
	for (;;) {
		int64_t left = deadline - kf_now_ns();
		if (left <= 0) {
			timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int pr = poll(&p, 1, (int)(left / 1000000 + 1));
		if (pr < 0 && errno != EINTR)
			break;
		if (pr <= 0)
			continue;
		ssize_t n = read(pfd[0], chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (log->len < KF_COMPILE_LOG_MAX)
			kf_buf_add(log, chunk, (size_t)n < KF_COMPILE_LOG_MAX - log->len ? (size_t)n : KF_COMPILE_LOG_MAX - log->len);
	}
	close(pfd[0]);
	int st = 0;
	/* The log closed: the compiler is finishing. Still bound the wait by the deadline. */
	while (!timed_out) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (kf_now_ns() > deadline) {
			timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		usleep(1000);
	}
	if (timed_out) {
		waitpid(pid, &st, 0);
		return STEP_TIMEOUT;
	}
	kill(-pid, SIGKILL); /* nothing of the compile outlives it */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return STEP_OK;
	if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGXCPU || WTERMSIG(st) == SIGKILL))
		return STEP_TIMEOUT;
	const char *mark = log->data ? strstr(log->data, KF_JAIL_FAIL_MARK) : NULL;
	if (mark) {
		kf_errf(err, KF_EINTERNAL, "%.*s", (int)strcspn(mark, "\n"), mark);
		return STEP_JAIL_FAILED;
	}
	return STEP_FAILED;
}

/* ---- cache ---- */

static void cache_paths(const char *key, char *so, char *meta, size_t len)
{
	snprintf(so, len, "%s/compile/%.2s/%s.so", kf_cache_dir(), key, key);
	snprintf(meta, len, "%s/compile/%.2s/%s.json", kf_cache_dir(), key, key);
}

static int cache_load(struct kf_compile_res *res)
{
	char so[PATH_MAX], meta[PATH_MAX];
	cache_paths(res->key, so, meta, sizeof so);
	char *text = NULL;
	if (kf_read_file(meta, 4u << 20, &text, NULL, NULL) != KF_OK)
		return -1;
	cJSON *j = cJSON_Parse(text);
	free(text);
	if (!j)
		return -1;
	int rc = -1;
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(j, "verdict"));
	const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(j, "reason"));
	const char *log = cJSON_GetStringValue(cJSON_GetObjectItem(j, "log"));
	if (!v || kf_verdict_parse(v, &res->verdict) != 0)
		goto out;
	if (res->verdict == KF_V_OK && access(so, R_OK) != 0)
		goto out;
	snprintf(res->reason, sizeof res->reason, "%s", reason ? reason : "");
	res->log = kf_xstrdup(log ? log : "");
	if (res->verdict == KF_V_OK)
		snprintf(res->so_path, sizeof res->so_path, "%s", so);
	rc = 0;
out:
	cJSON_Delete(j);
	return rc;
}

static void cache_store(const struct kf_compile_res *res)
{
	char so[PATH_MAX], meta[PATH_MAX];
	cache_paths(res->key, so, meta, sizeof so);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "verdict", kf_verdict_name(res->verdict));
	cJSON_AddStringToObject(j, "reason", res->reason);
	cJSON_AddStringToObject(j, "log", res->log ? res->log : "");
	cJSON_AddStringToObject(j, "flags", res->flags);
	cJSON_AddStringToObject(j, "compiler", res->compiler);
	char *text = cJSON_PrintUnformatted(j);
	kf_write_file(meta, text, strlen(text), NULL); /* a cache that cannot be written is only slower */
	free(text);
	cJSON_Delete(j);
}

/* ---- the compile ---- */

/* The compiler, then each list in order (NULL lists are skipped). */
static int build_argv(char **argv, const char *compiler, const char *const *const *lists, int n_lists)
{
	int n = 0;
	argv[n++] = (char *)compiler;
	for (int l = 0; l < n_lists; l++)
		for (const char *const *f = lists[l]; f && *f && n < KF_COMPILE_MAX_ARGS - 1; f++)
			argv[n++] = (char *)*f;
	argv[n] = NULL;
	return n;
}

static void join_argv(char *const *argv, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; argv[i] && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

static int write_inputs(const char *work, const struct kf_compile_req *req, const struct backend_tool *t,
			kf_err *err)
{
	char p[PATH_MAX];
	const char *names[] = { "kf_task.h", t->src_name, t->shim_name };
	const char *texts[] = { req->header, req->source, req->shim };
	size_t lens[] = { strlen(req->header), req->source_len, strlen(req->shim) };
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/%s", work, names[i]);
		if (kf_write_file(p, texts[i], lens[i], err) != KF_OK)
			return err->code;
	}
	return KF_OK;
}

int kf_compile(const struct kf_compile_req *req, struct kf_compile_res *res, kf_err *err)
{
	memset(res, 0, sizeof *res);
	int64_t t0 = kf_now_ns();
	const struct backend_tool *t = &tools[req->backend];
	char compiler[PATH_MAX];
	if (find_compiler(req->backend, compiler, sizeof compiler, err) != KF_OK)
		return err->code;
	compiler_identity(compiler, res->compiler, sizeof res->compiler);

	char *cargv[KF_COMPILE_MAX_ARGS], *largv[KF_COMPILE_MAX_ARGS], gencode[64];
	const char *const c_files[] = { "-c", t->src_name, "-o", "candidate.o", NULL };
	const char *const l_files[] = { "candidate.o", t->shim_name, "-o", "out.so", NULL };
	const char *const inc[] = { "-I" KF_JAIL_INCLUDE, NULL };
	const char *const target[] = { "-gencode", gencode, NULL };
	cuda_gencode(req->cuda_arch, gencode, sizeof gencode);
	const char *const *const arch = req->backend == KF_BACKEND_CUDA ? target : NULL;
	const char *const *const c_lists[] = { t->compile_flags, arch, c_files, req->include_dir ? inc : NULL };
	const char *const *const l_lists[] = { t->compile_flags, arch, l_files, t->link_flags,
					       req->vendor_libs ? t->vendor_link : NULL };
	build_argv(cargv, compiler, c_lists, 4);
	build_argv(largv, compiler, l_lists, 5);
	char cflags[256], lflags[256];
	join_argv(cargv, cflags, sizeof cflags);
	join_argv(largv, lflags, sizeof lflags);
	snprintf(res->flags, sizeof res->flags, "%s && %s", cflags, lflags);

	kf_sha256 h;
	kf_sha256_init(&h);
	const char *parts[] = { KF_COMPILE_CACHE_VERSION, res->compiler, res->flags, req->header, req->shim };
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		kf_sha256_update(&h, parts[i], strlen(parts[i]) + 1);
	kf_sha256_update(&h, req->source, req->source_len);
	if (req->backend == KF_BACKEND_CPU)
		cpu_features(&h);
	if (req->include_dir)
		hash_tree(&h, req->include_dir);
	kf_sha256_final_hex(&h, res->key);

	if (cache_load(res) == 0) {
		res->cached = true;
		res->ms = kf_ns_to_ms(kf_now_ns() - t0);
		return KF_OK;
	}

	char why[300];
	if (bad_include(req->source, req->source_len, why, sizeof why)) {
		res->verdict = KF_V_COMPILE_ERROR;
		snprintf(res->reason, sizeof res->reason, "refused before compiling: %s", why);
		res->log = kf_xstrdup(why);
		cache_store(res);
		res->ms = kf_ns_to_ms(kf_now_ns() - t0);
		return KF_OK;
	}

	char base[PATH_MAX], work[PATH_MAX], root[PATH_MAX];
	snprintf(base, sizeof base, "%s/tmp", kf_cache_dir());
	if (kf_mkdtemp(base, "compile-", work, sizeof work, err) != KF_OK)
		return err->code;
	snprintf(root, sizeof root, "%s.root", work);
	kf_buf log = KF_BUF_INIT;
	int rc = write_inputs(work, req, t, err);
	if (rc != KF_OK)
		goto out;
	double timeout = req->timeout_s > 0 ? req->timeout_s : KF_COMPILE_DEFAULT_TIMEOUT_S;
	enum step_outcome o = run_step(work, req->include_dir, cargv, timeout, &log, err);
	if (o == STEP_OK)
		o = run_step(work, req->include_dir, largv, timeout - kf_ns_to_ms(kf_now_ns() - t0) / 1e3, &log, err);
	switch (o) {
	case STEP_JAIL_FAILED:
		rc = err->code;
		goto out;
	case STEP_TIMEOUT:
		res->verdict = KF_V_COMPILE_TIMEOUT;
		snprintf(res->reason, sizeof res->reason, "the compiler ran past its %.0f s wall or %d s CPU limit",
			 timeout, KF_COMPILE_CPU_S);
		break;
	case STEP_FAILED:
		/* The shim and header are generated and known good: a link step failure means the
		 * candidate's symbols (a missing or misnamed kf_launch, an undefined function). */
		if (access(strcat(strcpy(why, work), "/candidate.o"), F_OK) == 0) {
			res->verdict = KF_V_LINK_ERROR;
			snprintf(res->reason, sizeof res->reason, "linking failed (is kf_launch defined with the right name?)");
		} else {
			res->verdict = KF_V_COMPILE_ERROR;
			snprintf(res->reason, sizeof res->reason, "the compiler rejected the source");
		}
		break;
	case STEP_OK: {
		char so[PATH_MAX], meta[PATH_MAX], built[PATH_MAX];
		cache_paths(res->key, so, meta, sizeof so);
		char *slash = strrchr(so, '/');
		*slash = '\0';
		if (kf_mkdir_p(so, err) != KF_OK) {
			rc = err->code;
			goto out;
		}
		*slash = '/';
		snprintf(built, sizeof built, "%s/out.so", work);
		if (rename(built, so) != 0) {
			rc = kf_errno(err, KF_EINTERNAL, "cannot move the compiled object into the cache %s", so);
			goto out;
		}
		res->verdict = KF_V_OK;
		snprintf(res->so_path, sizeof res->so_path, "%s", so);
		break;
	}
	}
	res->log = kf_buf_detach(&log);
	cache_store(res);
	rc = KF_OK;
out:
	kf_buf_free(&log);
	kf_rm_rf(work);
	rmdir(root);
	res->ms = kf_ns_to_ms(kf_now_ns() - t0);
	return rc;
}

void kf_compile_res_free(struct kf_compile_res *res)
{
	free(res->log);
	res->log = NULL;
}
