/* File-system helpers (see fs.h). */
#include "common/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"

int kf_read_file(const char *path, size_t max_bytes, char **out, size_t *len, kf_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kf_errno(err, KF_EINPUT, "cannot open %s", path);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return kf_errno(err, KF_EINPUT, "cannot stat %s", path);
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return kf_errf(err, KF_EINPUT, "%s is a directory, not a file", path);
	}
	kf_buf b = KF_BUF_INIT;
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			kf_errno(err, KF_EINPUT, "cannot read %s", path);
			goto fail;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max_bytes) {
			kf_errf(err, KF_EINPUT, "%s is larger than the limit of %zu bytes", path, max_bytes);
			goto fail;
		}
		kf_buf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	if (len)
		*len = b.len;
	*out = kf_buf_detach(&b);
	return KF_OK;
fail:
	close(fd);
	kf_buf_free(&b);
	return err ? err->code : KF_EINPUT;
}

int kf_write_file(const char *path, const void *data, size_t len, kf_err *err)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return kf_errno(err, KF_EINTERNAL, "cannot create %s", tmp);
	const char *p = data;
	size_t left = len;
	while (left > 0) {
		ssize_t n = write(fd, p, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			kf_errno(err, KF_EINTERNAL, "cannot write %s", tmp);
			goto fail;
		}
		p += n;
		left -= (size_t)n;
	}
	if (fsync(fd) != 0) {
		kf_errno(err, KF_EINTERNAL, "cannot flush %s", tmp);
		goto fail;
	}
	close(fd);
	if (rename(tmp, path) != 0) {
		unlink(tmp);
		return kf_errno(err, KF_EINTERNAL, "cannot rename %s to %s", tmp, path);
	}
	return KF_OK;
fail:
	close(fd);
	unlink(tmp);
	return KF_EINTERNAL;
}

int kf_mkdir_p(const char *path, kf_err *err)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
		return kf_errf(err, KF_EINPUT, "path too long: %s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return kf_errno(err, KF_EINTERNAL, "cannot create directory %s", tmp);
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		return kf_errno(err, KF_EINTERNAL, "cannot create directory %s", tmp);
	return KF_OK;
}

int kf_mkdtemp(const char *base, const char *prefix, char *out, size_t out_len, kf_err *err)
{
	if (kf_mkdir_p(base, err) != KF_OK)
		return err ? err->code : KF_EINTERNAL;
	if (snprintf(out, out_len, "%s/%sXXXXXX", base, prefix) >= (int)out_len)
		return kf_errf(err, KF_EINTERNAL, "temporary path too long under %s", base);
	if (!mkdtemp(out))
		return kf_errno(err, KF_EINTERNAL, "cannot create a temporary directory under %s", base);
	return KF_OK;
}

void kf_rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (d) {
			struct dirent *e;
			while ((e = readdir(d))) {
				if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
					continue;
				char child[PATH_MAX];
				if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) < (int)sizeof child)
					kf_rm_rf(child);
			}
			closedir(d);
		}
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* The directory holding the running executable, in out; false when /proc cannot say. */
static bool exe_dir(char *out, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", out, len - 1);
	if (n <= 0)
		return false;
	out[n] = '\0';
	char *slash = strrchr(out, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *kf_home(void)
{
	static char home[PATH_MAX];
	if (home[0])
		return home;
	const char *env = getenv("KFORGE_HOME");
	if (env && *env) {
		snprintf(home, sizeof home, "%s", env);
		return home;
	}
	char exe[PATH_MAX], probe[PATH_MAX + sizeof KF_INSTALLED_DATA_DIR + sizeof "/tasks"];
	if (!exe_dir(exe, sizeof exe)) {
		snprintf(home, sizeof home, ".");
		return home;
	}
	/* Installed: <prefix>/bin/kforge beside <prefix>/share/kforge (make install). */
	snprintf(probe, sizeof probe, "%s/" KF_INSTALLED_DATA_DIR "/tasks", exe);
	if (is_dir(probe)) {
		snprintf(home, sizeof home, "%s/" KF_INSTALLED_DATA_DIR, exe);
		return home;
	}
	/* The source tree: <home>/build/<exe> or <home>/build/<sub>/<exe>: the directory above build/. */
	char *slash = exe + strlen(exe);
	while (slash && slash != exe) {
		*slash = '\0';
		const char *last = strrchr(exe, '/');
		if (last && !strcmp(last + 1, "build")) {
			*(char *)last = '\0';
			snprintf(home, sizeof home, "%s", exe[0] ? exe : "/");
			return home;
		}
		slash = strrchr(exe, '/');
	}
	snprintf(home, sizeof home, ".");
	return home;
}

int kf_libexec_path(const char *name, char *out, size_t len)
{
	char dir[PATH_MAX];
	if (!exe_dir(dir, sizeof dir))
		return -1;
	/* Beside the executable (build/), one level up (build/bench/, build/asan/ programs use their own
	 * build folder's), or installed: <prefix>/bin/kforge and <prefix>/libexec/kforge/. */
	snprintf(out, len, "%s/%s", dir, name);
	if (access(out, F_OK) == 0)
		return 0;
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		snprintf(out, len, "%s/%s", dir, name);
		if (access(out, F_OK) == 0)
			return 0;
		snprintf(out, len, "%s/" KF_INSTALLED_LIBEXEC_DIR "/%s", dir, name);
		if (access(out, F_OK) == 0)
			return 0;
	}
	return -1;
}

/* A cache directory that exists or can be made, and that kforge may write. */
static bool usable_dir(const char *path)
{
	kf_err ignored;
	return kf_mkdir_p(path, &ignored) == KF_OK && access(path, W_OK | X_OK) == 0;
}

const char *kf_cache_dir(void)
{
	static char dir[PATH_MAX];
	if (dir[0])
		return dir;
	const char *env = getenv("KFORGE_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	/* An explicit KFORGE_CACHE is used as given (an error later names it); the defaults fall
	 * through to the next when unusable (HOME=/nonexistent, a read-only home). */
	if (env && *env) {
		snprintf(dir, sizeof dir, "%s", env);
		return dir;
	}
	if (xdg && *xdg && snprintf(dir, sizeof dir, "%s/kforge", xdg) < (int)sizeof dir && usable_dir(dir))
		return dir;
	if (home && *home && snprintf(dir, sizeof dir, "%s/.cache/kforge", home) < (int)sizeof dir && usable_dir(dir))
		return dir;
	snprintf(dir, sizeof dir, "/tmp/kforge-cache-%ld", (long)getuid());
	return dir;
}
