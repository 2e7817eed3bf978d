/* The multi-GPU runner program (docs/multi-gpu.md): one process drives every GPU of a job, one
 * rank per GPU. Before the seccomp filter it creates a context, a stream, two events and the hold
 * kernel on each device and maps every rank's buffers (a virtual-memory-management allocation per
 * rank, exported by the judge as a file descriptor) with read-write access granted to every device
 * of the job, so a rank loads and stores its peers' buffers over NVLink. A call enqueues, rank by
 * rank, a hold kernel, the start event, the candidate's kf_launch for that rank and the stop event;
 * then one store to a host-mapped flag releases every hold at once (the common start), every device
 * is synchronised, and the claim is the slowest rank's window.
 *
 * Why one process rather than one per rank: one flag releases all holds together (no cross-process
 * barrier to trust), one watchdog ends a deadlocked job on every GPU at once and frees them all with
 * the process, peer pointers are plain addresses of one address space, and the sandbox is the
 * single-GPU runner's (same core, same filter). The price, the ranks' host-side enqueues made one
 * after another, is outside the timed window (the holds are still holding). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "eval/tasks/multi.h"
#include "sandbox/runner_core.h"
#include "sandbox/runner_cuda_common.h"
#include "sandbox/runner_proto.h"

_Static_assert(KF_MULTI_COMM_SLOT == KF_PROTO_MAX_BUFS - 1, "the comm slot is the last buffer slot");
_Static_assert(KF_MULTI_MAX_WORLD == KF_RUNNER_MAX_WORLD, "one world limit");
/* The last int of a call carries the scratch size of each rank (the judge's layout). */
#define KF_MULTI_SCRATCH_INT (KF_PROTO_MAX_INTS - 1)
_Static_assert(KF_TASK_MAX_INTS < KF_MULTI_SCRATCH_INT, "the scratch size has an int slot of its own");
/* Ranks enqueue one after another behind their holds: the first hold must outlast every rank's
 * enqueue (tens of microseconds each), and a kf_launch that waits on its stream pays this once. */
#define KF_MULTI_HOLD_TIMEOUT_NS 20000000ull

struct rank_state {
	int device;
	cudaStream_t stream;
	cudaEvent_t start, stop;
	char *base; /* this rank's buffers */
};

struct multi_state {
	int world;
	struct rank_state r[KF_MULTI_MAX_WORLD];
	size_t bytes;
	struct kf_comm comm[KF_MULTI_MAX_WORLD];
};

/* ---- errors ---- */

/* Longer than any message the runner writes, so the rank always fits in what. */
#define KF_MULTI_WHAT_MAX 128

/* The shared messages (runner_cuda_common.c) with the failing rank after what. */
static int fail(char *why, size_t len, const char *what, int rank, cudaError_t e)
{
	char what_rank[KF_MULTI_WHAT_MAX];
	snprintf(what_rank, sizeof what_rank, "%s (rank %d)", what, rank);
	return kf_runner_cuda_fail(why, len, what_rank, e);
}

static int cu_fail(char *why, size_t len, const char *what, int rank, CUresult r)
{
	char what_rank[KF_MULTI_WHAT_MAX];
	snprintf(what_rank, sizeof what_rank, "%s (rank %d)", what, rank);
	return kf_runner_cuda_cu_fail(why, len, what_rank, r);
}

/* ---- the hold kernel, one per device, one release flag for all ---- */

/* Before the filter, as in runner_cuda.c; the flag is portable (mapped in every context) and the
 * kernel is launched once on every device, so no module is loaded lazily under the filter. */
static int hold_load(struct multi_state *st, char *why, size_t len)
{
	cudaError_t e = kf_runner_cuda_hold_load(cudaHostAllocMapped | cudaHostAllocPortable);
	if (e != cudaSuccess)
		return fail(why, len, "cannot load the runner's hold kernel", 0, e);
	for (int r = 0; r < st->world; r++) {
		kf_runner_cuda_hold_arm();
		if ((e = cudaSetDevice(st->r[r].device)) == cudaSuccess &&
		    (e = kf_runner_cuda_hold_launch(st->r[r].stream, KF_MULTI_HOLD_TIMEOUT_NS)) == cudaSuccess) {
			kf_runner_cuda_hold_release();
			e = cudaStreamSynchronize(st->r[r].stream);
		}
		kf_runner_cuda_hold_release();
		if (e != cudaSuccess)
			return fail(why, len, "cannot run the runner's hold kernel", r, e);
	}
	return 0;
}

/* ---- backend hooks ---- */

static int multi_setup(void **state, int device, size_t mem_cap, bool vendor, char *why, size_t why_len)
{
	static struct multi_state st;
	/* The cap counts every device's allocations together. */
	if (kf_runner_cuda_cap_init(mem_cap, why, why_len) != 0)
		return -1;
	if (vendor) {
		snprintf(why, why_len, "the multi-GPU runner loads no vendor libraries (a level-4 task forbids them)");
		return -1;
	}
	st.world = kf_runner_world();
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess)
		return fail(why, why_len, "cannot count the GPUs", 0, e);
	if (st.world > count || device >= count) {
		snprintf(why, why_len, "a job of %d GPUs from GPU %d: this machine has %d", st.world, device, count);
		return -1;
	}
	for (int r = 0; r < st.world; r++) {
		struct rank_state *rs = &st.r[r];
		rs->device = (device + r) % count; /* the judge's rule (eval/judge/multi.c) */
		if ((e = cudaSetDevice(rs->device)) != cudaSuccess || (e = cudaFree(NULL)) != cudaSuccess)
			return fail(why, why_len, "cannot initialise the GPU", r, e);
		if ((e = cudaStreamCreateWithFlags(&rs->stream, cudaStreamNonBlocking)) != cudaSuccess ||
		    (e = cudaEventCreate(&rs->start)) != cudaSuccess || (e = cudaEventCreate(&rs->stop)) != cudaSuccess)
			return fail(why, why_len, "cannot create the rank's stream and events", r, e);
		for (int p = 0; p < st.world; p++) {
			int ok = 0;
			int peer = (device + p) % count;
			if (p != r && (cudaDeviceCanAccessPeer(&ok, rs->device, peer) != cudaSuccess || !ok)) {
				snprintf(why, why_len, "GPU %d cannot access GPU %d (no peer access: no NVLink or P2P path)",
					 rs->device, peer);
				return -1;
			}
		}
	}
	if (hold_load(&st, why, why_len) != 0)
		return -1;
	cudaSetDevice(device);
	*state = &st;
	return 0;
}

/* Every rank's buffers, imported from its descriptor and mapped with read-write access for every
 * device of the job. Rank 0's base is the one the core bounds offsets with; every rank's area has
 * the same layout and size. */
static void *multi_map(void *state, int shm_fd, size_t shm_bytes, int ro_fd, size_t ro_bytes, size_t *area_bytes,
		       char *why, size_t why_len)
{
	(void)ro_fd, (void)ro_bytes;
	struct multi_state *st = state;
	CUmemAccessDesc access[KF_MULTI_MAX_WORLD];
	for (int p = 0; p < st->world; p++)
		access[p] = (CUmemAccessDesc){ .location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = st->r[p].device },
					       .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	for (int r = 0; r < st->world; r++) {
		int fd = r == 0 ? shm_fd : KF_RFD_FIRST_FREE + r - 1;
		CUdeviceptr ptr = 0;
		CUresult res = kf_runner_cuda_import(fd, shm_bytes, st->r[r].device, access, (size_t)st->world, &ptr);
		if (r > 0)
			close(fd);
		if (res != CUDA_SUCCESS) {
			cu_fail(why, why_len, "cannot map the judge's device buffers for every GPU", r, res);
			return NULL;
		}
		st->r[r].base = (char *)ptr;
	}
	st->bytes = shm_bytes;
	*area_bytes = shm_bytes;
	return st->r[0].base;
}

/* Rank r's view of the call: the judge's offsets (into rank 0's mapping) moved to rank r's. */
static void rank_bufs(const struct multi_state *st, int r, void *const *bufs, void **out)
{
	for (int i = 0; i < KF_MULTI_COMM_SLOT; i++)
		out[i] = bufs[i] ? st->r[r].base + ((const char *)bufs[i] - st->r[0].base) : NULL;
}

static void build_comm(struct multi_state *st, void *const *bufs, long long scratch_bytes)
{
	void *per[KF_MULTI_MAX_WORLD][KF_PROTO_MAX_BUFS];
	for (int r = 0; r < st->world; r++)
		rank_bufs(st, r, bufs, per[r]);
	for (int r = 0; r < st->world; r++) {
		struct kf_comm *c = &st->comm[r];
		memset(c, 0, sizeof *c);
		c->rank = r;
		c->world = st->world;
		c->scratch_bytes = scratch_bytes;
		c->signal_bytes = KF_MULTI_SIGNAL_BYTES;
		for (int p = 0; p < st->world; p++) {
			memcpy(c->peer[p].buf, per[p], sizeof c->peer[p].buf);
			c->peer[p].scratch = per[p][KF_MULTI_SCRATCH_SLOT];
			c->peer[p].signals = per[p][KF_MULTI_SIGNAL_SLOT];
		}
	}
}

static int multi_call(void *state, kf_shim_call_fn fn, void *const *bufs, const long long *ints, int *rc,
		      int64_t *device_ns, char *why, size_t why_len)
{
	struct multi_state *st = state;
	*device_ns = -1;
	*rc = 0;
	build_comm(st, bufs, ints[KF_MULTI_SCRATCH_INT]);
	kf_runner_cuda_hold_arm();
	for (int r = 0; r < st->world; r++) {
		struct rank_state *rs = &st->r[r];
		cudaError_t e = cudaSetDevice(rs->device);
		if (e == cudaSuccess)
			e = kf_runner_cuda_hold_launch(rs->stream, KF_MULTI_HOLD_TIMEOUT_NS);
		if (e == cudaSuccess)
			e = cudaEventRecord(rs->start, rs->stream);
		if (e != cudaSuccess) {
			kf_runner_cuda_hold_release();
			return fail(why, why_len, "CUDA error before the call", r, e);
		}
	}
	/* Every rank is called even after one failed: a peer may be waiting for it, and the judge
	 * reports the first failure either way. */
	for (int r = 0; r < st->world; r++) {
		struct rank_state *rs = &st->r[r];
		void *call_bufs[KF_PROTO_MAX_BUFS];
		rank_bufs(st, r, bufs, call_bufs);
		call_bufs[KF_MULTI_COMM_SLOT] = &st->comm[r];
		cudaSetDevice(rs->device);
		int one = fn(call_bufs, ints, rs->stream);
		if (one != 0 && *rc == 0)
			*rc = one;
		cudaSetDevice(rs->device); /* kf_launch may have switched it */
		cudaEventRecord(rs->stop, rs->stream);
	}
	kf_runner_cuda_hold_release();
	/* Every device: work hidden on other streams (or other GPUs) ends before the judge looks. */
	for (int r = 0; r < st->world; r++) {
		cudaError_t e = cudaSetDevice(st->r[r].device);
		if (e == cudaSuccess)
			e = cudaDeviceSynchronize();
		if (e == cudaSuccess)
			e = cudaGetLastError();
		if (e != cudaSuccess)
			return fail(why, why_len, "CUDA error in kf_launch", r, e);
	}
	/* The slowest rank's window; no claim at all (the judge's clock alone) if one cannot be read. */
	int64_t slowest = -1;
	for (int r = 0; r < st->world; r++) {
		float ms = 0;
		if (cudaEventElapsedTime(&ms, st->r[r].start, st->r[r].stop) != cudaSuccess) {
			slowest = -1;
			break;
		}
		if ((int64_t)((double)ms * 1e6) > slowest)
			slowest = (int64_t)((double)ms * 1e6);
	}
	*device_ns = slowest;
	cudaSetDevice(st->r[0].device);
	return 0;
}

static const int cuda_syscalls[] = { KF_RUNNER_CUDA_SYSCALLS };

static const struct kf_runner_backend multi_backend = {
	.name = "cuda-multi",
	.cap_host_data = false,
	.allow_uncounted_maps = true,
	.extra_syscalls = cuda_syscalls,
	.n_extra = sizeof cuda_syscalls / sizeof cuda_syscalls[0],
	.setup = multi_setup,
	.map_buffers = multi_map,
	.call = multi_call,
};

int main(int argc, char **argv)
{
	return kf_runner_main(argc, argv, &multi_backend);
}
