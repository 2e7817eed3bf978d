/* A runner's cgroup (see cgroup.h). */
#include "sandbox/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KF_CGROUP_ROOT "/sys/fs/cgroup"
#define KF_CGROUP_RMDIR_TRIES 100
#define KF_CGROUP_RMDIR_PAUSE_NS 2000000L /* the kernel frees a killed task's group shortly after */

/* kforge's own group in the hierarchy of `controller` ("" for v2's unified one), from
 * /proc/self/cgroup lines "id:controllers:path". */
static int own_path(const char *controller, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -1;
	char line[PATH_MAX + 64];
	int rc = -1;
	while (rc != 0 && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *ctl = strchr(line, ':');
		char *path = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		ctl++;
		bool match = false;
		if (!*controller) {
			match = strcmp(line, "0") == 0 && !*ctl;
		} else {
			for (char *save = NULL, *tok = strtok_r(ctl, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				match = match || strcmp(tok, controller) == 0;
		}
		if (match && (size_t)snprintf(out, len, "%s", path) < len)
			rc = 0;
	}
	fclose(f);
	return rc;
}

static int write_text(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static bool has_word(const char *path, const char *word)
{
	char buf[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (char *save = NULL, *tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (strcmp(tok, word) == 0)
			return true;
	return false;
}

/* Where the group goes, or 0 when this machine offers no usable cgroups to kforge. */
static int locate(struct kf_cgroup *cg, const char *name)
{
	char own[PATH_MAX], own_pids[PATH_MAX], ctl[PATH_MAX + 64];
	if (geteuid() != 0)
		return 0;
	if (own_path("", own, sizeof own) == 0) {
		snprintf(ctl, sizeof ctl, "%s%s/cgroup.subtree_control", KF_CGROUP_ROOT, own);
		if (has_word(ctl, "memory") && has_word(ctl, "pids")) {
			cg->version = 2;
			snprintf(cg->mem, sizeof cg->mem, "%s%s/%s", KF_CGROUP_ROOT, own, name);
			snprintf(cg->pids, sizeof cg->pids, "%s", cg->mem);
			return 2;
		}
	}
	if (own_path("memory", own, sizeof own) == 0 && own_path("pids", own_pids, sizeof own_pids) == 0) {
		snprintf(ctl, sizeof ctl, "%s/memory%s/memory.limit_in_bytes", KF_CGROUP_ROOT, own);
		char pctl[PATH_MAX + 64];
		snprintf(pctl, sizeof pctl, "%s/pids%s/cgroup.procs", KF_CGROUP_ROOT, own_pids);
		if (access(ctl, W_OK) == 0 && access(pctl, W_OK) == 0) {
			cg->version = 1;
			snprintf(cg->mem, sizeof cg->mem, "%s/memory%s/%s", KF_CGROUP_ROOT, own, name);
			snprintf(cg->pids, sizeof cg->pids, "%s/pids%s/%s", KF_CGROUP_ROOT, own_pids, name);
			return 1;
		}
	}
	return 0;
}

int kf_cgroup_create(struct kf_cgroup *cg, const char *name, size_t mem_bytes, long pids_max, char *why,
		     size_t why_len)
{
	memset(cg, 0, sizeof *cg);
	if (locate(cg, name) == 0)
		return 0;
	char mem[32], pids[32];
	snprintf(mem, sizeof mem, "%zu", mem_bytes);
	snprintf(pids, sizeof pids, "%ld", pids_max);
	const char *step = "mkdir";
	bool two = cg->version == 1;
	if (mkdir(cg->mem, 0755) != 0 || (two && mkdir(cg->pids, 0755) != 0))
		goto fail;
	step = cg->version == 2 ? "memory.max" : "memory.limit_in_bytes";
	if (write_text(cg->mem, step, mem) != 0)
		goto fail;
	step = "pids.max";
	if (write_text(cg->pids, step, pids) != 0)
		goto fail;
	return 1;
fail:
	snprintf(why, why_len, "cannot set up the runner's cgroup (v%d %s in %s): %s", cg->version, step, cg->mem,
		 strerror(errno));
	kf_cgroup_remove(cg);
	return -1;
}

int kf_cgroup_enter(const struct kf_cgroup *cg)
{
	if (cg->version == 0)
		return 0;
	char pid[24];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	if (write_text(cg->mem, "cgroup.procs", pid) != 0)
		return -1;
	return cg->version == 1 ? write_text(cg->pids, "cgroup.procs", pid) : 0;
}

bool kf_cgroup_oom_killed(const struct kf_cgroup *cg)
{
	if (cg->version == 0)
		return false;
	char path[PATH_MAX + 32], line[128];
	snprintf(path, sizeof path, "%s/%s", cg->mem, cg->version == 2 ? "memory.events" : "memory.oom_control");
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	long kills = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "oom_kill %ld", &kills) == 1)
			break;
	fclose(f);
	return kills > 0;
}

static void remove_dir(const char *dir)
{
	for (int i = 0; i < KF_CGROUP_RMDIR_TRIES; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return;
		if (errno != EBUSY)
			return;
		struct timespec pause = { .tv_nsec = KF_CGROUP_RMDIR_PAUSE_NS };
		nanosleep(&pause, NULL);
	}
}

void kf_cgroup_remove(struct kf_cgroup *cg)
{
	if (cg->version == 0)
		return;
	remove_dir(cg->mem);
	if (cg->version == 1)
		remove_dir(cg->pids);
	cg->version = 0;
}
