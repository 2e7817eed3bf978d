/* The judge's multi-GPU device operations (see multi_cuda.h), built into libkforge-cuda.so. */
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "eval/judge/gpu/multi_cuda.h"
#include "eval/tasks/multi.h"

#define KF_PEER_COPY_BYTES (256ull << 20) /* peer copy bandwidth measured on 256 MiB */
#define KF_PEER_COPY_REPS 5
/* Longer than any enqueue of world ranks' trusted kernels behind their holds. */
#define KF_JUDGE_HOLD_TIMEOUT_NS 20000000ull
#define KF_NVML_MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS */

static int cuda_fail(kf_err *err, const char *what, int device, cudaError_t e)
{
	return kf_errf(err, KF_EINTERNAL, "%s (GPU %d): %s (%s)", what, device, cudaGetErrorName(e), cudaGetErrorString(e));
}

static int device_count(int *n, kf_err *err)
{
	cudaError_t e = cudaGetDeviceCount(n);
	if (e != cudaSuccess) {
		*n = 0;
		return cuda_fail(err, "cannot count the GPUs", 0, e);
	}
	return KF_OK;
}

static void use(int device) { cudaSetDevice(device); }

static int share(void *const *bases, const size_t *bytes, const int *devices, int world, kf_err *err)
{
	CUmemAccessDesc access[KF_MULTI_MAX_WORLD];
	for (int p = 0; p < world; p++) {
		int ok = 0;
		for (int q = 0; q < world; q++)
			if (q != p && (cudaDeviceCanAccessPeer(&ok, devices[p], devices[q]) != cudaSuccess || !ok))
				return kf_errf(err, KF_EINPUT, "GPU %d cannot access GPU %d (no peer access: no NVLink or P2P path)",
					       devices[p], devices[q]);
		access[p] = (CUmemAccessDesc){ .location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = devices[p] },
					       .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	}
	for (int r = 0; r < world; r++) {
		cudaError_t e = cudaSetDevice(devices[r]);
		if (e != cudaSuccess)
			return cuda_fail(err, "cannot select the GPU", devices[r], e);
		CUresult res = cuMemSetAccess((CUdeviceptr)bases[r], bytes[r], access, (size_t)world);
		if (res != CUDA_SUCCESS) {
			const char *name = NULL;
			cuGetErrorName(res, &name);
			return kf_errf(err, KF_EINTERNAL, "cannot give every GPU access to rank %d's buffers: %s", r,
				       name ? name : "unknown CUDA driver error");
		}
	}
	return KF_OK;
}

/* Per device, made once: the timer's events. The release flag is portable host memory. */
static struct {
	bool ready;
	cudaEvent_t start[KF_MULTI_MAX_WORLD], stop[KF_MULTI_MAX_WORLD];
	int device[KF_MULTI_MAX_WORLD];
	volatile unsigned *release;
	unsigned *dev_release;
} g_timer;

static int timer_prepare(const int *devices, int world, kf_err *err)
{
	cudaError_t e = cudaSuccess;
	if (!g_timer.release) {
		void *host = NULL;
		if ((e = cudaSetDevice(devices[0])) != cudaSuccess ||
		    (e = cudaHostAlloc(&host, sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable)) != cudaSuccess ||
		    (e = cudaHostGetDevicePointer((void **)&g_timer.dev_release, host, 0)) != cudaSuccess)
			return cuda_fail(err, "cannot allocate the ranks' release flag", devices[0], e);
		g_timer.release = host;
	}
	for (int r = 0; r < world; r++) {
		if (g_timer.ready && g_timer.device[r] == devices[r] && g_timer.start[r])
			continue;
		if ((e = cudaSetDevice(devices[r])) != cudaSuccess || (e = cudaEventCreate(&g_timer.start[r])) != cudaSuccess ||
		    (e = cudaEventCreate(&g_timer.stop[r])) != cudaSuccess)
			return cuda_fail(err, "cannot create the ranks' events", devices[r], e);
		g_timer.device[r] = devices[r];
	}
	g_timer.ready = true;
	return KF_OK;
}

static void release_all(void) { __atomic_store_n(g_timer.release, 1u, __ATOMIC_SEQ_CST); }

static int time_ranks(const int *devices, void *const *streams, int world, kf_rank_launch_fn launch, void *ctx,
		      double *rank_ms, int *rc, kf_err *err)
{
	*rc = 0;
	if (timer_prepare(devices, world, err) != KF_OK)
		return err->code;
	*g_timer.release = 0;
	for (int r = 0; r < world; r++) {
		cudaError_t e = cudaSetDevice(devices[r]);
		if (e == cudaSuccess)
			e = (cudaError_t)kf_multi_hold_launch(g_timer.dev_release, KF_JUDGE_HOLD_TIMEOUT_NS, streams[r]);
		if (e == cudaSuccess)
			e = cudaEventRecord(g_timer.start[r], (cudaStream_t)streams[r]);
		if (e != cudaSuccess) {
			release_all();
			return cuda_fail(err, "cannot hold the rank's stream", devices[r], e);
		}
	}
	for (int r = 0; r < world; r++) {
		cudaSetDevice(devices[r]);
		int one = launch(ctx, r, streams[r]);
		if (one && !*rc)
			*rc = one;
		cudaSetDevice(devices[r]);
		cudaEventRecord(g_timer.stop[r], (cudaStream_t)streams[r]);
	}
	release_all();
	for (int r = 0; r < world; r++) {
		cudaError_t e = cudaSetDevice(devices[r]);
		if (e == cudaSuccess)
			e = cudaDeviceSynchronize();
		if (e == cudaSuccess)
			e = cudaGetLastError();
		float ms = 0;
		if (e == cudaSuccess)
			e = cudaEventElapsedTime(&ms, g_timer.start[r], g_timer.stop[r]);
		if (e != cudaSuccess)
			return cuda_fail(err, "a trusted multi-GPU kernel failed", devices[r], e);
		rank_ms[r] = ms;
	}
	return KF_OK;
}

/* ---- the machine record ---- */

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_by_bus_fn)(const char *, void **);
typedef int (*nvml_ancestor_fn)(void *, void *, int *);
typedef int (*nvml_link_state_fn)(void *, unsigned, int *);

static const char *ancestor_name(int level)
{
	switch (level) {
	case 0: return "same_board";
	case 10: return "single_pcie_switch";
	case 20: return "multiple_pcie_switches";
	case 30: return "pcie_host_bridge";
	case 40: return "numa_node";
	case 50: return "system";
	default: return "unknown";
	}
}

/* NVLink, per direction per GPU, from the vendor's datasheets (SXM parts). */
static double nvlink_datasheet(const char *device)
{
	static const struct { const char *name_has; double bytes_s; } table[] = {
		{ "H200", 450e9 }, { "H100 PCIe", 300e9 }, { "H100", 450e9 }, { "A100", 300e9 },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strstr(device, table[i].name_has))
			return table[i].bytes_s;
	return 0;
}

/* Topology through NVML (the `nvidia-smi topo -m` matrix and the links up), "unknown" where NVML
 * is missing; NVML handles by PCI bus id, as NVML's numbering need not be CUDA's. */
static void nvml_topology(const int *devices, int world, cJSON *j)
{
	void *so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	nvml_init_fn init = so ? (nvml_init_fn)dlsym(so, "nvmlInit_v2") : NULL;
	nvml_by_bus_fn by_bus = so ? (nvml_by_bus_fn)dlsym(so, "nvmlDeviceGetHandleByPciBusId_v2") : NULL;
	nvml_ancestor_fn ancestor = so ? (nvml_ancestor_fn)dlsym(so, "nvmlDeviceGetTopologyCommonAncestor") : NULL;
	nvml_link_state_fn link = so ? (nvml_link_state_fn)dlsym(so, "nvmlDeviceGetNvLinkState") : NULL;
	void *h[KF_MULTI_MAX_WORLD] = { 0 };
	bool nvml = init && by_bus && ancestor && link && init() == 0;
	cJSON_AddStringToObject(j, "topology_source", nvml ? "nvml" : "unavailable (no libnvidia-ml)");
	cJSON *devs = cJSON_AddArrayToObject(j, "devices");
	for (int r = 0; r < world; r++) {
		char bus[32] = "";
		cudaDeviceGetPCIBusId(bus, sizeof bus, devices[r]);
		cJSON *d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "ordinal", devices[r]);
		cJSON_AddStringToObject(d, "pci_bus_id", bus);
		int up = -1;
		if (nvml && by_bus(bus, &h[r]) == 0) {
			up = 0;
			for (unsigned l = 0; l < KF_NVML_MAX_LINKS; l++) {
				int active = 0;
				if (link(h[r], l, &active) == 0 && active)
					up++;
			}
		}
		cJSON_AddNumberToObject(d, "nvlinks_up", up);
		cJSON_AddItemToArray(devs, d);
	}
	cJSON *pairs = cJSON_AddArrayToObject(j, "pairs");
	for (int a = 0; a < world; a++)
		for (int b = a + 1; b < world; b++) {
			cJSON *p = cJSON_CreateObject();
			int level = -1, peer = 0;
			if (h[a] && h[b] && ancestor(h[a], h[b], &level) != 0)
				level = -1;
			cudaDeviceCanAccessPeer(&peer, devices[a], devices[b]);
			cJSON_AddNumberToObject(p, "a", devices[a]);
			cJSON_AddNumberToObject(p, "b", devices[b]);
			cJSON_AddStringToObject(p, "common_ancestor", ancestor_name(level));
			cJSON_AddBoolToObject(p, "peer_access", peer != 0);
			cJSON_AddItemToArray(pairs, p);
		}
}

/* The copy engines' peer bandwidth from GPU a to GPU b (both directions at once when bidir), the
 * best of a few 256 MiB copies; 0 with err on failure. */
static double peer_copy(int a, int b, bool bidir, kf_err *err)
{
	void *buf[2][2] = { { NULL, NULL }, { NULL, NULL } }; /* [device a|b][src|dst] */
	cudaStream_t s[2] = { NULL, NULL };
	cudaEvent_t t0 = NULL, t1 = NULL;
	const int dev[2] = { a, b };
	double best = 0;
	cudaError_t e = cudaSuccess;
	for (int i = 0; i < 2 && e == cudaSuccess; i++) {
		if ((e = cudaSetDevice(dev[i])) != cudaSuccess)
			break;
		e = cudaDeviceEnablePeerAccess(dev[1 - i], 0);
		if (e == cudaErrorPeerAccessAlreadyEnabled)
			e = cudaSuccess;
		cudaGetLastError();
		if (e == cudaSuccess && (e = cudaMalloc(&buf[i][0], KF_PEER_COPY_BYTES)) == cudaSuccess &&
		    (e = cudaMalloc(&buf[i][1], KF_PEER_COPY_BYTES)) == cudaSuccess &&
		    (e = cudaMemset(buf[i][0], 1, KF_PEER_COPY_BYTES)) == cudaSuccess)
			e = cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking);
	}
	if (e == cudaSuccess && (e = cudaSetDevice(a)) == cudaSuccess && (e = cudaEventCreate(&t0)) == cudaSuccess)
		e = cudaEventCreate(&t1);
	for (int rep = 0; rep < KF_PEER_COPY_REPS && e == cudaSuccess; rep++) {
		float ms = 0;
		cudaSetDevice(a);
		if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaEventRecord(t0, s[0])) != cudaSuccess)
			break;
		if (bidir) { /* b's stream starts with a's event: both copies run together */
			cudaSetDevice(b);
			if ((e = cudaStreamWaitEvent(s[1], t0, 0)) != cudaSuccess ||
			    (e = cudaMemcpyPeerAsync(buf[0][1], a, buf[1][0], b, KF_PEER_COPY_BYTES, s[1])) != cudaSuccess)
				break;
		}
		cudaSetDevice(a);
		if ((e = cudaMemcpyPeerAsync(buf[1][1], b, buf[0][0], a, KF_PEER_COPY_BYTES, s[0])) != cudaSuccess)
			break;
		if (bidir) {
			cudaEvent_t done = NULL;
			cudaSetDevice(b);
			if ((e = cudaEventCreate(&done)) != cudaSuccess || (e = cudaEventRecord(done, s[1])) != cudaSuccess)
				break;
			cudaSetDevice(a);
			e = cudaStreamWaitEvent(s[0], done, 0);
			cudaEventDestroy(done);
			if (e != cudaSuccess)
				break;
		}
		if ((e = cudaEventRecord(t1, s[0])) == cudaSuccess && (e = cudaEventSynchronize(t1)) == cudaSuccess &&
		    (e = cudaEventElapsedTime(&ms, t0, t1)) == cudaSuccess && ms > 0)
			best = fmax(best, (bidir ? 2.0 : 1.0) * KF_PEER_COPY_BYTES / (ms / 1e3));
	}
	if (e != cudaSuccess) {
		best = 0;
		cuda_fail(err, "measuring the peer copy bandwidth", a, e);
	}
	for (int i = 0; i < 2; i++) {
		cudaSetDevice(dev[i]);
		cudaDeviceSynchronize();
		cudaFree(buf[i][0]);
		cudaFree(buf[i][1]);
		if (s[i])
			cudaStreamDestroy(s[i]);
	}
	cudaSetDevice(a);
	if (t0)
		cudaEventDestroy(t0);
	if (t1)
		cudaEventDestroy(t1);
	return best;
}

static int describe(const int *devices, int world, char **json, kf_err *err)
{
	struct cudaDeviceProp p;
	cudaError_t e = cudaGetDeviceProperties(&p, devices[0]);
	if (e != cudaSuccess)
		return cuda_fail(err, "no usable GPU", devices[0], e);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "gpus", world);
	nvml_topology(devices, world, j);
	/* One direction and both at once between every pair; the slowest pair is the job's ceiling. */
	double uni = INFINITY, bi = INFINITY;
	for (int a = 0; a < world; a++)
		for (int b = a + 1; b < world; b++) {
			double u = peer_copy(devices[a], devices[b], false, err);
			double x = u > 0 ? peer_copy(devices[a], devices[b], true, err) : 0;
			if (!(u > 0) || !(x > 0)) {
				cJSON_Delete(j);
				return KF_EINTERNAL;
			}
			uni = fmin(uni, u);
			bi = fmin(bi, x);
		}
	cJSON_AddNumberToObject(j, "peer_copy_bytes_s", uni);
	cJSON_AddNumberToObject(j, "peer_copy_bidir_bytes_s", bi);
	cJSON_AddNumberToObject(j, "nvlink_datasheet_bytes_s", nvlink_datasheet(p.name));
	*json = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return KF_OK;
}

static const struct kf_cuda_multi_ops multi_ops = {
	.device_count = device_count,
	.use = use,
	.share = share,
	.time_ranks = time_ranks,
	.describe = describe,
};

__attribute__((visibility("default"))) const struct kf_cuda_multi_ops *kf_cuda_multi_ops(void) { return &multi_ops; }
