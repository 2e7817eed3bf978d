/* The CPU runner program: the runner core plus shared-memory buffers and a direct call. */
#include <sys/mman.h>
#include <stdio.h>

#include "sandbox/runner_core.h"

static void *cpu_map(void *state, int shm_fd, size_t bytes, int ro_fd, size_t ro_bytes, size_t *area_bytes,
		     char *why, size_t why_len)
{
	(void)state, (void)ro_fd, (void)ro_bytes;
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
