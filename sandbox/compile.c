/* Compile jail and compile cache (see sandbox.h).
 * Theory of operation: the source, the generated header and shim are written to a fresh work
 * directory, handed to a uid drawn for this compile alone (kf_jail_fresh_uid: RLIMIT_NPROC then
 * counts this compile's processes only, and no other jail can touch its files). A child enters
 * new user (unless root)/mount/pid/net/ipc namespaces, becomes pid 1 of its pid namespace, mounts
 * a tmpfs as its new root holding only read-only binds of /usr (and the /bin, /lib* links or
 * dirs), /dev/null (no other device: /dev/zero or /dev/urandom would be endless includes), a
 * private /tmp and the work directory (no /proc: compilers do not need it, and its files are
 * includes that leak the jail's layout or block forever), chroots there, drops root to the fresh
 * uid, applies rlimits (CPU, address space, file size, processes) and execs the compiler. Every
 * one of these steps must succeed: a jail that cannot be built is kforge's internal error,
 * reported through a status pipe the compiler never holds, and nothing is ever compiled outside
 * it. The parent reads the capped log (sanitised before it is kept: it quotes the candidate's
 * source) and enforces the wall timeout by killing the process group.
 * There is no lexical pre-check of includes: the preprocessor's spellings (digraphs, line
 * splices, macros, assembler directives in any case, strings pasted together) are too many for
 * a scan to be a defence, and the jail holds no file worth including.
 * The cache: objects are copied out of the work directory by kforge's own user (0644, in 0755
 * directories), capped in size, evicted least recently used beyond a size limit; outcomes that
 * come from running out of a resource (memory, processes, time, a signal) are never cached. */
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
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "common/text.h"
#include "sandbox/jail.h"
#include "sandbox/sandbox.h"

#define KF_COMPILE_DEFAULT_TIMEOUT_S 120.0
#define KF_COMPILE_CPU_S 100
/* Address space of each compiler process: cc1, cicc and ptxas stay well under it on every
 * reference kernel, and an include or template bomb fails here instead of in the host's memory. */
#define KF_COMPILE_AS (4ull << 30)
/* The largest shared object kforge keeps: far above any real kernel (the biggest reference
 * object is under 1 MiB), far below what a huge initialised array would cost every entry. */
#define KF_COMPILE_OBJECT_MAX (64u << 20)
/* Any file the compiler writes: twice the object cap leaves room for the .o and intermediate
 * files, and ends a huge initialised array at the assembler ("File too large"). */
#define KF_COMPILE_FSIZE (2 * KF_COMPILE_OBJECT_MAX)
#define KF_COMPILE_NOFILE 512
#define KF_COMPILE_NPROC 256
#define KF_COMPILE_TMPFS_OPTS "size=1g,mode=0755"
#define KF_COMPILE_CACHE_VERSION "kforge-compile-3"
/* The compile cache's size limit (KFORGE_CACHE_MAX_MB overrides it); beyond it the least
 * recently used entries go, except those used in the last KF_COMPILE_CACHE_GRACE_S seconds
 * (another kforge may be about to load them). */
#define KF_COMPILE_CACHE_MAX_MB 2048
#define KF_COMPILE_CACHE_GRACE_S 600
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
static const char *const cuda_vendor_link[] = { "-lcublas", "-lcublasLt", "-lcudnn", NULL };

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

/* ---- the jail ---- */

/* The jail's status pipe, close-on-exec in the jail: set-up failures and the compiler's death by
 * a signal are reported there, where the compiler (whose log quotes the candidate) never writes. */
#define KF_JAIL_STATUS_FD 3
#define KF_JAIL_SETUP_MARK "setup: "
#define KF_JAIL_SIGNAL_MARK "signal: "
#define KF_JAIL_STATUS_MAX 1024

struct jail_spec {
	const char *root;        /* where the jail's tmpfs root is mounted */
	const char *work;        /* the work directory, bound at /work */
	const char *include_dir; /* bound read-only at KF_JAIL_INCLUDE, or NULL */
	char *const *argv;
	uid_t outer_uid;         /* kforge's euid: the only uid a user namespace maps */
	uid_t uid;               /* this compile's own uid, when kforge runs as root */
};

static void status_write(const char *text, size_t len)
{
	ssize_t w = write(KF_JAIL_STATUS_FD, text, len);
	(void)w; /* nothing else is left to report with */
}

/* Says on the status pipe which step could not be set up, with errno, and gives up. */
static __attribute__((noreturn)) void jail_die(const char *what, const char *path)
{
	int e = errno;
	char msg[PATH_MAX + 256];
	int n = snprintf(msg, sizeof msg, KF_JAIL_SETUP_MARK "%s%s%s: %s (errno %d)", what, path ? " " : "",
			 path ? path : "", strerror(e), e);
	status_write(msg, n > 0 ? ((size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) : 0);
	_exit(KF_EINTERNAL);
}

/* The flags a read-only remount must keep: in a user namespace the kernel refuses to clear
 * nosuid, nodev, noexec or the atime mode that the original mount has. */
static unsigned long locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;
	if (statvfs(path, &sv) != 0)
		return 0;
	f |= sv.f_flag & ST_NOSUID ? MS_NOSUID : 0;
	f |= sv.f_flag & ST_NODEV ? MS_NODEV : 0;
	f |= sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0;
	f |= sv.f_flag & ST_NOATIME ? MS_NOATIME : 0;
	f |= sv.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0;
	f |= sv.f_flag & ST_RELATIME ? MS_RELATIME : 0;
	return f;
}

/* Binds src read-only at dst (links are recreated as links); a src that does not exist on this
 * machine (/lib32, /libx32) is skipped. */
static void bind_ro(const char *src, const char *dst)
{
	struct stat st;
	if (lstat(src, &st) != 0)
		return;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(src, target, sizeof target - 1);
		if (n <= 0)
			jail_die("cannot read the link", src);
		target[n] = '\0';
		if (symlink(target, dst) != 0)
			jail_die("cannot link", dst);
		return;
	}
	if (S_ISDIR(st.st_mode) ? mkdir(dst, 0755) != 0 : close(open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) != 0)
		jail_die("cannot create the mount point", dst);
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
		jail_die("cannot bind-mount", src);
	if (mount(NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | locked_flags(src), NULL) != 0)
		jail_die("cannot make read-only", dst);
}

#define KF_JAIL_INCLUDE "/include"

/* Lowers one limit to at most value (a lower limit kforge already runs under stays). */
static int lower_limit(int resource, rlim_t value)
{
	struct rlimit rl;
	if (getrlimit(resource, &rl) != 0)
		return -1;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < value)
		value = rl.rlim_max;
	rl.rlim_cur = rl.rlim_max = value;
	return setrlimit(resource, &rl);
}

/* The jail's pid 1 namespace needs a parent outside it that waits: it reports a death by signal
 * on the status pipe (its own exit status could be any compiler's) and exits as the compiler did. */
static __attribute__((noreturn)) void wait_for_namespace_init(pid_t child)
{
	int st;
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			jail_die("cannot wait for the compiler", NULL);
	if (WIFSIGNALED(st)) {
		char msg[32];
		int n = snprintf(msg, sizeof msg, KF_JAIL_SIGNAL_MARK "%d", WTERMSIG(st));
		status_write(msg, (size_t)n);
		_exit(1);
	}
	_exit(WEXITSTATUS(st));
}

static __attribute__((noreturn)) void jail_exec(const struct jail_spec *j, int log_fd, int status_fd)
{
	static const char *const sys_dirs[] = { "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32" };
	/* The loader's cache and the alternatives links (cc -> gcc) only: no passwd, no secrets. */
	static const char *const etc[] = { "/etc/ld.so.cache", "/etc/alternatives" };
	char p[PATH_MAX];
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed kforge leaves no compiler behind */
	if (dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)
		_exit(KF_EINTERNAL); /* with no pipe to say so on: the parent sees no output and a failure */
	if (status_fd != KF_JAIL_STATUS_FD && dup3(status_fd, KF_JAIL_STATUS_FD, O_CLOEXEC) < 0)
		_exit(KF_EINTERNAL);
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull < 0 || dup2(devnull, 0) < 0)
		jail_die("cannot open", "/dev/null");
	kf_jail_close_from(KF_JAIL_STATUS_FD + 1);

	int need = KF_JAIL_NS_NET | KF_JAIL_NS_MNT | KF_JAIL_NS_IPC | KF_JAIL_NS_PID;
	if (j->outer_uid != 0)
		need |= KF_JAIL_NS_USER;
	errno = 0;
	const char *step = NULL;
	int ns = kf_jail_enter(true, &step);
	if (ns < 0 || (ns & need) != need)
		jail_die("cannot enter the jail's namespaces:", step ? step : "a namespace is missing");
	if (geteuid() != j->outer_uid)
		jail_die("cannot map kforge's uid into the user namespace", NULL);
	/* The first child is pid 1 of the new namespace: when it ends, the kernel kills whatever
	 * else of the compile is left, and nothing in it can signal a process outside. */
	pid_t child = fork();
	if (child < 0)
		jail_die("cannot fork the namespace's init", NULL);
	if (child > 0)
		wait_for_namespace_init(child);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* not inherited across fork: the init dies with its waiter */

	if (mount("tmpfs", j->root, "tmpfs", 0, KF_COMPILE_TMPFS_OPTS) != 0)
		jail_die("cannot mount a tmpfs on", j->root);
	for (size_t i = 0; i < sizeof sys_dirs / sizeof sys_dirs[0]; i++) {
		snprintf(p, sizeof p, "%s%s", j->root, sys_dirs[i]);
		bind_ro(sys_dirs[i], p);
	}
	/* /dev/null is the only device: /dev/zero, /dev/urandom and the like are endless files
	 * an #include or .incbin would read until memory runs out. */
	snprintf(p, sizeof p, "%s/dev", j->root);
	if (mkdir(p, 0755) != 0)
		jail_die("cannot create", p);
	snprintf(p, sizeof p, "%s/dev/null", j->root);
	bind_ro("/dev/null", p);
	snprintf(p, sizeof p, "%s/etc", j->root);
	if (mkdir(p, 0755) != 0)
		jail_die("cannot create", p);
	for (size_t i = 0; i < sizeof etc / sizeof etc[0]; i++) {
		snprintf(p, sizeof p, "%s%s", j->root, etc[i]);
		bind_ro(etc[i], p);
	}
	snprintf(p, sizeof p, "%s/tmp", j->root);
	if (mkdir(p, 01777) != 0 || chmod(p, 01777) != 0)
		jail_die("cannot create", p);
	if (j->include_dir) {
		snprintf(p, sizeof p, "%s%s", j->root, KF_JAIL_INCLUDE);
		bind_ro(j->include_dir, p);
	}
	snprintf(p, sizeof p, "%s/work", j->root);
	if (mkdir(p, 0755) != 0 || mount(j->work, p, NULL, MS_BIND, NULL) != 0)
		jail_die("cannot bind-mount", j->work);
	if (chroot(j->root) != 0 || chdir("/work") != 0)
		jail_die("cannot enter", j->root);

	uid_t uid = j->outer_uid == 0 ? j->uid : j->outer_uid;
	if (kf_jail_drop_root_to(uid) != 0)
		jail_die("cannot drop root privileges", NULL);
	if (getuid() != uid || geteuid() != uid || (j->outer_uid == 0 && getgid() != (gid_t)uid))
		jail_die("the uid change did not take", NULL);
	struct kf_jail_limits lim = { KF_COMPILE_CPU_S, KF_COMPILE_AS, KF_COMPILE_FSIZE, KF_COMPILE_NOFILE,
				      KF_COMPILE_NPROC };
	if (kf_jail_set_limits(&lim) != 0)
		jail_die("cannot set resource limits (cpu, data, fsize, nofile, nproc)", NULL);
	if (lower_limit(RLIMIT_AS, KF_COMPILE_AS) != 0)
		jail_die("cannot set the address-space limit", NULL);
	/* A file past the size limit then fails with EFBIG, which the assembler and linker report
	 * ("File too large"), instead of killing them with SIGXFSZ. */
	if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR)
		jail_die("cannot ignore SIGXFSZ", NULL);
	char *envp[] = { "PATH=/usr/local/cuda/bin:/usr/bin:/bin", "LANG=C", "LC_ALL=C", "TMPDIR=/tmp",
			 "HOME=/tmp", NULL };
	execve(j->argv[0], j->argv, envp);
	jail_die("cannot run", j->argv[0]);
}

enum step_outcome { STEP_OK, STEP_FAILED, STEP_TIMEOUT, STEP_SIGNALED, STEP_JAIL_FAILED };

/* Appends what the jail wrote on its status pipe (every writer is gone by now). */
static void read_status(int fd, char *out, size_t len)
{
	size_t used = 0;
	while (used + 1 < len) {
		ssize_t n = read(fd, out + used, len - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	out[used] = '\0';
}

/* Runs one compiler command in the jail, appending its output to log (capped). *sig is the
 * signal that ended the compiler, for STEP_SIGNALED. */
static enum step_outcome run_step(const struct jail_spec *j, double timeout_s, kf_buf *log, int *sig, kf_err *err)
{
	int pfd[2], sfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		kf_errno(err, KF_EINTERNAL, "compile jail: cannot create a pipe");
		return STEP_JAIL_FAILED;
	}
	if (pipe2(sfd, O_CLOEXEC | O_NONBLOCK) != 0) {
		close(pfd[0]);
		close(pfd[1]);
		kf_errno(err, KF_EINTERNAL, "compile jail: cannot create a pipe");
		return STEP_JAIL_FAILED;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		close(sfd[0]);
		close(sfd[1]);
		kf_errno(err, KF_EINTERNAL, "compile jail: cannot fork the compiler");
		return STEP_JAIL_FAILED;
	}
	if (pid == 0) {
		setpgid(0, 0);
		jail_exec(j, pfd[1], sfd[1]);
	}
	setpgid(pid, pid);
	close(pfd[1]);
	close(sfd[1]);
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
	if (timed_out)
		waitpid(pid, &st, 0);
	kill(-pid, SIGKILL); /* nothing of the compile outlives it */
	char status[KF_JAIL_STATUS_MAX];
	read_status(sfd[0], status, sizeof status);
	close(sfd[0]);
	if (!strncmp(status, KF_JAIL_SETUP_MARK, strlen(KF_JAIL_SETUP_MARK))) {
		kf_text_sanitize_str(status, sizeof status);
		kf_errf(err, KF_EINTERNAL, "compile jail: %s", status + strlen(KF_JAIL_SETUP_MARK));
		return STEP_JAIL_FAILED;
	}
	if (timed_out)
		return STEP_TIMEOUT;
	*sig = 0;
	if (WIFSIGNALED(st))
		*sig = WTERMSIG(st);
	else if (!strncmp(status, KF_JAIL_SIGNAL_MARK, strlen(KF_JAIL_SIGNAL_MARK)))
		*sig = atoi(status + strlen(KF_JAIL_SIGNAL_MARK));
	/* SIGXCPU is the CPU limit's warning, SIGKILL its hard end (or the wall deadline's). */
	if (*sig == SIGXCPU || *sig == SIGKILL)
		return STEP_TIMEOUT;
	if (*sig)
		return STEP_SIGNALED;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? STEP_OK : STEP_FAILED;
}

/* ---- cache ---- */

static void cache_paths(const char *key, char *so, char *meta, size_t len)
{
	snprintf(so, len, "%s/compile/%.2s/%s.so", kf_cache_dir(), key, key);
	snprintf(meta, len, "%s/compile/%.2s/%s.json", kf_cache_dir(), key, key);
}

/* Only files kforge's own user wrote, and nobody else can change, are believed. */
static bool cache_file_trusted(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022);
}

/* A hit marks the entry as recently used, for the eviction's order. */
static void cache_touch(const char *path)
{
	utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW); /* an untouched entry is only evicted sooner */
}

static int cache_load(struct kf_compile_res *res)
{
	char so[PATH_MAX], meta[PATH_MAX];
	cache_paths(res->key, so, meta, sizeof so);
	char *text = NULL;
	if (!cache_file_trusted(meta) || kf_read_file(meta, 4u << 20, &text, NULL, NULL) != KF_OK)
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
	if (res->verdict == KF_V_OK && !cache_file_trusted(so))
		goto out;
	snprintf(res->reason, sizeof res->reason, "%s", reason ? reason : "");
	res->log = kf_xstrdup(log ? log : "");
	if (res->verdict == KF_V_OK) {
		snprintf(res->so_path, sizeof res->so_path, "%s", so);
		cache_touch(so);
	}
	cache_touch(meta);
	rc = 0;
out:
	cJSON_Delete(j);
	return rc;
}

/* The directory of an entry, made by kforge's user and writable by it alone. */
static int cache_dir_for(const char *so, kf_err *err)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", so);
	*strrchr(dir, '/') = '\0';
	int rc = kf_mkdir_p(dir, err);
	if (rc != KF_OK)
		return rc;
	/* Whatever the umask was: 0755. A directory kforge does not own keeps its mode, and the
	 * entries in it are then refused on load (cache_file_trusted). */
	chmod(dir, 0755);
	*strrchr(dir, '/') = '\0';
	chmod(dir, 0755);
	return KF_OK;
}

/* Copies the jail's out.so into the cache as kforge's own file (0644): never a rename, so no
 * file the jail's uid owns or holds a link to ends up in the cache. *too_large is set (and
 * nothing written) for an object above KF_COMPILE_OBJECT_MAX; *bytes is its size. */
static int cache_put_object(const char *work, const char *so, bool *too_large, off_t *bytes, kf_err *err)
{
	char built[PATH_MAX], tmp[PATH_MAX];
	snprintf(built, sizeof built, "%s/out.so", work);
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", so);
	*too_large = false;
	bool created = false;
	int in = open(built, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), out = -1;
	struct stat st;
	if (in < 0 || fstat(in, &st) != 0) {
		kf_errno(err, KF_EINTERNAL, "cannot open the compiled object %s", built);
		goto fail;
	}
	*bytes = st.st_size;
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)KF_COMPILE_OBJECT_MAX) {
		*too_large = true;
		close(in);
		return KF_OK;
	}
	if (cache_dir_for(so, err) != KF_OK)
		goto fail;
	out = mkstemp(tmp);
	created = out >= 0;
	if (out < 0 || fchmod(out, 0644) != 0) {
		kf_errno(err, KF_EINTERNAL, "cannot create %s", tmp);
		goto fail;
	}
	char chunk[1 << 16];
	off_t copied = 0;
	for (;;) {
		ssize_t n = read(in, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			kf_errno(err, KF_EINTERNAL, "cannot read %s", built);
			goto fail;
		}
		if (n == 0 || copied + n > (off_t)KF_COMPILE_OBJECT_MAX)
			break;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, chunk + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				kf_errno(err, KF_EINTERNAL, "cannot write %s", tmp);
				goto fail;
			}
			off += w;
		}
		copied += n;
	}
	if (copied != st.st_size) {
		kf_errf(err, KF_EINTERNAL, "the compiled object %s changed while it was copied", built);
		goto fail;
	}
	if (fsync(out) != 0 || close(out) != 0) {
		out = -1;
		kf_errno(err, KF_EINTERNAL, "cannot write %s", tmp);
		goto fail;
	}
	out = -1;
	if (rename(tmp, so) != 0) {
		kf_errno(err, KF_EINTERNAL, "cannot move the compiled object into the cache %s", so);
		goto fail;
	}
	close(in);
	return KF_OK;
fail:
	if (out >= 0)
		close(out);
	if (created)
		unlink(tmp);
	if (in >= 0)
		close(in);
	return err->code;
}

/* One cache entry (its .so and .json) as the eviction sees it. */
struct cache_entry {
	char key[KF_SHA256_HEX_LEN];
	char sub[3];
	off_t bytes;
	time_t used; /* the newest mtime of its files: written or last hit */
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct cache_entry *)a)->key, ((const struct cache_entry *)b)->key);
}

static int by_use(const void *a, const void *b)
{
	time_t x = ((const struct cache_entry *)a)->used, y = ((const struct cache_entry *)b)->used;
	return x < y ? -1 : x > y;
}

/* KFORGE_CACHE_MAX_MB, a positive number of MiB; anything else means the default. */
static uint64_t cache_limit_bytes(void)
{
	const char *e = getenv("KFORGE_CACHE_MAX_MB");
	char *end = NULL;
	errno = 0;
	long long mb = e && *e ? strtoll(e, &end, 10) : 0;
	if (!e || !*e || *end || errno || mb <= 0 || (unsigned long long)mb > UINT64_MAX >> 20)
		mb = KF_COMPILE_CACHE_MAX_MB;
	return (uint64_t)mb << 20;
}

/* Reads every file of compile/<xx>/ into *files (one element per .so or .json); returns the sum of sizes. */
static uint64_t cache_scan(const char *top, struct cache_entry **files, int *n)
{
	uint64_t total = 0;
	int cap = 0;
	DIR *d = opendir(top);
	if (!d)
		return 0;
	for (struct dirent *sub; (sub = readdir(d));) {
		if (strlen(sub->d_name) != 2 || sub->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", top, sub->d_name);
		DIR *s = opendir(path);
		if (!s)
			continue;
		for (struct dirent *f; (f = readdir(s));) {
			const char *dot = strrchr(f->d_name, '.');
			struct stat st;
			if (!dot || dot - f->d_name != KF_SHA256_HEX_LEN - 1 || (strcmp(dot, ".so") && strcmp(dot, ".json")) ||
			    fstatat(dirfd(s), f->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			*files = kf_xgrow(*files, *n, &cap, sizeof **files);
			struct cache_entry *e = &(*files)[(*n)++];
			snprintf(e->key, sizeof e->key, "%.*s", KF_SHA256_HEX_LEN - 1, f->d_name);
			snprintf(e->sub, sizeof e->sub, "%s", sub->d_name);
			e->bytes = st.st_size;
			e->used = st.st_mtime;
			total += (uint64_t)st.st_size;
		}
		closedir(s);
	}
	closedir(d);
	return total;
}

/* Keeps the cache under its size limit: least recently used entries go first. */
static void cache_evict(void)
{
	char top[PATH_MAX];
	snprintf(top, sizeof top, "%s/compile", kf_cache_dir());
	struct cache_entry *e = NULL;
	int n = 0;
	uint64_t total = cache_scan(top, &e, &n), limit = cache_limit_bytes();
	if (total > limit) {
		/* Merge each entry's two files, then walk from the least recently used. */
		qsort(e, (size_t)n, sizeof *e, by_key);
		int m = 0;
		for (int i = 0; i < n; i++) {
			if (m > 0 && !strcmp(e[m - 1].key, e[i].key)) {
				e[m - 1].bytes += e[i].bytes;
				e[m - 1].used = e[i].used > e[m - 1].used ? e[i].used : e[m - 1].used;
			} else {
				e[m++] = e[i];
			}
		}
		qsort(e, (size_t)m, sizeof *e, by_use);
		time_t now = time(NULL);
		for (int i = 0; i < m && total > limit && now - e[i].used >= KF_COMPILE_CACHE_GRACE_S; i++) {
			char path[PATH_MAX];
			/* The .json first: a reader then misses the entry rather than finding it without its object. */
			snprintf(path, sizeof path, "%s/%s/%s.json", top, e[i].sub, e[i].key);
			unlink(path);
			snprintf(path, sizeof path, "%s/%s/%s.so", top, e[i].sub, e[i].key);
			unlink(path);
			total -= (uint64_t)e[i].bytes;
		}
	}
	free(e);
}

static void cache_store(const struct kf_compile_res *res)
{
	char so[PATH_MAX], meta[PATH_MAX];
	cache_paths(res->key, so, meta, sizeof so);
	if (cache_dir_for(meta, NULL) != KF_OK)
		return; /* a cache that cannot be written is only slower */
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "verdict", kf_verdict_name(res->verdict));
	cJSON_AddStringToObject(j, "reason", res->reason);
	cJSON_AddStringToObject(j, "log", res->log ? res->log : "");
	cJSON_AddStringToObject(j, "flags", res->flags);
	cJSON_AddStringToObject(j, "compiler", res->compiler);
	char *text = cJSON_PrintUnformatted(j);
	if (kf_write_file(meta, text, strlen(text), NULL) == KF_OK)
		chmod(meta, 0644);
	free(text);
	cJSON_Delete(j);
	cache_evict();
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

/* Phrases of a compiler that ran out of something: such an outcome may be another process's
 * doing (or the machine's), so it is never cached. A candidate that prints them in an #error
 * only makes its own outcome uncached. */
static const char *const cpu_exhausted[] = { "CPU time limit exceeded", NULL };
static const char *const file_too_large[] = { "File too large", NULL };
static const char *const resources_exhausted[] = {
	"Cannot allocate memory", "out of memory", "memory exhausted", "Memory allocation failure",
	"std::bad_alloc", "Resource temporarily unavailable", "cannot fork", "terminated program",
	"died due to signal", NULL,
};

static bool log_says(const char *log, const char *const *phrases)
{
	for (; *phrases; phrases++)
		if (strcasestr(log, *phrases))
			return true;
	return false;
}

static void compile_timeout(struct kf_compile_res *res, double timeout)
{
	res->verdict = KF_V_COMPILE_TIMEOUT;
	snprintf(res->reason, sizeof res->reason, "the compiler ran past its %.0f s wall or %d s CPU limit", timeout,
		 KF_COMPILE_CPU_S);
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

	uid_t outer_uid = geteuid();
	struct jail_spec jail = { .include_dir = req->include_dir, .outer_uid = outer_uid, .uid = kf_jail_fresh_uid() };
	char base[PATH_MAX], work[PATH_MAX], root[PATH_MAX];
	snprintf(base, sizeof base, "%s/tmp", kf_cache_dir());
	if (kf_mkdtemp(base, "compile-", work, sizeof work, err) != KF_OK)
		return err->code;
	snprintf(root, sizeof root, "%s.root", work);
	jail.work = work;
	jail.root = root;
	kf_buf log = KF_BUF_INIT;
	int rc = write_inputs(work, req, t, err);
	if (rc != KF_OK)
		goto out;
	/* The work directory (mode 0700 from mkdtemp) becomes the compile's own: the only place
	 * it may write. */
	if (outer_uid == 0 && chown(work, jail.uid, jail.uid) != 0) {
		rc = kf_errno(err, KF_EINTERNAL, "compile jail: cannot hand %s to uid %u", work, (unsigned)jail.uid);
		goto out;
	}
	if (mkdir(root, 0755) != 0) {
		rc = kf_errno(err, KF_EINTERNAL, "compile jail: cannot create %s", root);
		goto out;
	}
	double timeout = req->timeout_s > 0 ? req->timeout_s : KF_COMPILE_DEFAULT_TIMEOUT_S;
	int sig = 0;
	jail.argv = cargv;
	enum step_outcome o = run_step(&jail, timeout, &log, &sig, err);
	if (o == STEP_OK) {
		jail.argv = largv;
		o = run_step(&jail, timeout - kf_ns_to_ms(kf_now_ns() - t0) / 1e3, &log, &sig, err);
	}
	bool cacheable = true;
	const char *raw = log.data ? log.data : "";
	switch (o) {
	case STEP_JAIL_FAILED:
		rc = err->code;
		goto out;
	case STEP_TIMEOUT:
		cacheable = false;
		compile_timeout(res, timeout);
		break;
	case STEP_SIGNALED:
		cacheable = false;
		res->verdict = KF_V_COMPILE_ERROR;
		snprintf(res->reason, sizeof res->reason, "the compiler was killed by signal %d (%s)", sig, strsignal(sig));
		break;
	case STEP_FAILED:
		if (log_says(raw, cpu_exhausted)) {
			cacheable = false;
			compile_timeout(res, timeout);
		} else if (log_says(raw, file_too_large)) {
			/* Deterministic (the limit is fixed): cached, so it is not paid for again. */
			res->verdict = KF_V_COMPILE_ERROR;
			snprintf(res->reason, sizeof res->reason,
				 "object too large: a file the compiler wrote passed the %u MiB limit", KF_COMPILE_FSIZE >> 20);
		} else if (log_says(raw, resources_exhausted)) {
			cacheable = false;
			res->verdict = KF_V_COMPILE_ERROR;
			snprintf(res->reason, sizeof res->reason,
				 "the compiler ran out of memory or processes (%llu GiB address space, %d processes); not cached",
				 KF_COMPILE_AS >> 30, KF_COMPILE_NPROC);
		} else {
			/* The shim and header are generated and known good: a link step failure means
			 * the candidate's symbols (a missing or misnamed kf_launch, an undefined function). */
			char obj[PATH_MAX];
			snprintf(obj, sizeof obj, "%s/candidate.o", work);
			res->verdict = access(obj, F_OK) == 0 ? KF_V_LINK_ERROR : KF_V_COMPILE_ERROR;
			snprintf(res->reason, sizeof res->reason, "%s",
				 res->verdict == KF_V_LINK_ERROR ? "linking failed (is kf_launch defined with the right name?)"
								 : "the compiler rejected the source");
		}
		break;
	case STEP_OK: {
		char so[PATH_MAX], meta[PATH_MAX];
		cache_paths(res->key, so, meta, sizeof so);
		bool too_large;
		off_t bytes = 0;
		if ((rc = cache_put_object(work, so, &too_large, &bytes, err)) != KF_OK)
			goto out;
		if (too_large) {
			res->verdict = KF_V_COMPILE_ERROR;
			snprintf(res->reason, sizeof res->reason, "object too large: %.1f MiB (limit %u MiB)",
				 (double)bytes / (1 << 20), KF_COMPILE_OBJECT_MAX >> 20);
		} else {
			res->verdict = KF_V_OK;
			snprintf(res->so_path, sizeof res->so_path, "%s", so);
		}
		break;
	}
	}
	/* The log quotes the candidate's source: kept only as valid, escape-free UTF-8. */
	kf_buf clean = KF_BUF_INIT;
	kf_text_sanitize_max(raw, log.len, KF_COMPILE_LOG_MAX, &clean);
	res->log = kf_buf_detach(&clean);
	if (cacheable)
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
