/* The CPU runner program: the runner core plus shared-memory buffers and a direct call. The
 * buffers are mapped as the judge laid them out (sandbox/cpu_layout.h): inputs read-only from a
 * sealed memfd, outputs read-write, and an unmapped guard after every region. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sandbox/cpu_layout.h"
#include "sandbox/runner_core.h"

/* The whole area reserved inaccessible, then each region mapped over it: what stays reserved is
 * the guards. */
static void *map_layout(int shm_fd, size_t bytes, int ro_fd, size_t ro_bytes, size_t *area_bytes, char *why,
			size_t why_len)
{
	struct kf_cpu_layout l;
	if (pread(ro_fd, &l, sizeof l, 0) != (ssize_t)sizeof l || l.magic != KF_CPU_LAYOUT_MAGIC ||
	    l.n > KF_CPU_LAYOUT_MAX || !l.area_bytes) {
		snprintf(why, why_len, "the buffer layout header is unreadable");
		return NULL;
	}
	char *base = mmap(NULL, l.area_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		snprintf(why, why_len, "cannot reserve %llu bytes for the buffers", (unsigned long long)l.area_bytes);
		return NULL;
	}
	for (uint32_t i = 0; i < l.n; i++) {
		const struct kf_cpu_segment *s = &l.seg[i];
		bool ro = s->fd == KF_CPU_SEG_RO;
		size_t limit = ro ? ro_bytes : bytes;
		if (s->area_off + s->len > l.area_bytes || s->file_off + s->len > limit ||
		    mmap(base + s->area_off, s->len, ro ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 ro ? ro_fd : shm_fd, (off_t)s->file_off) == MAP_FAILED) {
			snprintf(why, why_len, "cannot map buffer region %u of the layout", i);
			munmap(base, l.area_bytes);
			return NULL;
		}
	}
	*area_bytes = l.area_bytes;
	return base;
}

static void *cpu_map(void *state, int shm_fd, size_t bytes, int ro_fd, size_t ro_bytes, size_t *area_bytes,
		     char *why, size_t why_len)
{
	(void)state;
	if (ro_bytes)
		return map_layout(shm_fd, bytes, ro_fd, ro_bytes, area_bytes, why, why_len);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
	if (p == MAP_FAILED) {
		snprintf(why, why_len, "cannot map %zu bytes of shared buffers", bytes);
		return NULL;
	}
	*area_bytes = bytes;
	return p;
}

static int cpu_call(void *state, kf_shim_call_fn fn, void *const *bufs, const long long *ints, int *rc,
		    int64_t *device_ns, char *why, size_t why_len)
{
	(void)state, (void)why, (void)why_len;
	*device_ns = -1;
	*rc = fn(bufs, ints, NULL);
	return 0;
}

static const struct kf_runner_backend cpu_backend = {
	.name = "cpu",
	.cap_host_data = true,
	.map_buffers = cpu_map,
	.call = cpu_call,
};

int main(int argc, char **argv)
{
	return kf_runner_main(argc, argv, &cpu_backend);
}
