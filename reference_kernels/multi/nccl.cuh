/* NCCL for the level-4 vendor baselines (reference_kernels/vendor/nccl_*.cu), opened with dlopen so that
 * nothing links against it at build time (libnccl.so.2: a system library on the GPU machines, and in the CUDA
 * install). The baselines run in the judge's own process, one host thread calling ranks 0..world-1 in order:
 * rank 0 opens an NCCL group (creating the communicators on the first call, one per GPU of the job, found
 * from the ranks' buffers), the last rank closes it, which is when NCCL enqueues every rank's collective.
 * NVLink SHARP (NVLS, multicast objects) is forced off. */
#pragma once
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdlib.h>

namespace {

typedef struct nccl_comm_opaque *nccl_comm_t;
enum { NCCL_SUM = 0, NCCL_BF16 = 9 }; /* ncclSum, ncclBfloat16 (nccl.h, NCCL 2.10 and later) */
typedef int (*nccl_init_all_fn)(nccl_comm_t *, int, const int *);
typedef int (*nccl_group_fn)(void);
typedef int (*nccl_reduce_fn)(const void *, void *, size_t, int, int, nccl_comm_t, cudaStream_t);
typedef int (*nccl_gather_fn)(const void *, void *, size_t, int, nccl_comm_t, cudaStream_t);

struct nccl_lib {
    bool tried;
    nccl_init_all_fn init_all;
    nccl_group_fn group_start, group_end;
    nccl_reduce_fn all_reduce, reduce_scatter;
    nccl_gather_fn all_gather;
    nccl_comm_t comms[8];
    int world, devices[8];
};
nccl_lib g_nccl;

inline bool nccl_load() {
    if (g_nccl.tried)
        return g_nccl.group_end != nullptr;
    g_nccl.tried = true;
    /* NVLink SHARP needs multicast objects, which must stay off on kforge's GPU machines (a program using them
     * can put the host's shared GPUs out of service): forced off before NCCL reads its environment. */
    if (setenv("NCCL_NVLS_ENABLE", "0", 1) != 0)
        return false;
    void *so = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!so)
        return false;
    g_nccl.init_all = (nccl_init_all_fn)dlsym(so, "ncclCommInitAll");
    g_nccl.all_reduce = (nccl_reduce_fn)dlsym(so, "ncclAllReduce");
    g_nccl.reduce_scatter = (nccl_reduce_fn)dlsym(so, "ncclReduceScatter");
    g_nccl.all_gather = (nccl_gather_fn)dlsym(so, "ncclAllGather");
    g_nccl.group_start = (nccl_group_fn)dlsym(so, "ncclGroupStart");
    nccl_group_fn end = (nccl_group_fn)dlsym(so, "ncclGroupEnd");
    if (g_nccl.init_all && g_nccl.all_reduce && g_nccl.reduce_scatter && g_nccl.all_gather && g_nccl.group_start)
        g_nccl.group_end = end;
    return g_nccl.group_end != nullptr;
}

/* The job's GPUs, from where each rank's first buffer lives. */
inline bool nccl_devices(const struct kf_comm *c, int *devices) {
    for (int p = 0; p < c->world; p++) {
        cudaPointerAttributes a;
        if (cudaPointerGetAttributes(&a, c->peer[p].buf[0]) != cudaSuccess || a.type != cudaMemoryTypeDevice)
            return false;
        devices[p] = a.device;
    }
    return true;
}

/* Rank 0: communicators for this job (made once per set of GPUs), then the group opens. The rank's
 * communicator, or nullptr on failure. */
inline nccl_comm_t nccl_begin(const struct kf_comm *c) {
    if (!nccl_load())
        return nullptr;
    if (c->rank == 0) {
        int devices[8];
        if (!nccl_devices(c, devices))
            return nullptr;
        bool same = g_nccl.world == c->world;
        for (int p = 0; same && p < c->world; p++)
            same = g_nccl.devices[p] == devices[p];
        if (!same) {
            int current = 0;
            cudaGetDevice(&current);
            if (g_nccl.init_all(g_nccl.comms, c->world, devices) != 0)
                return nullptr;
            cudaSetDevice(current);
            g_nccl.world = c->world;
            for (int p = 0; p < c->world; p++)
                g_nccl.devices[p] = devices[p];
        }
        if (g_nccl.group_start() != 0)
            return nullptr;
    }
    return g_nccl.world == c->world ? g_nccl.comms[c->rank] : nullptr;
}

/* The last rank closes the group: every rank's collective is enqueued now. */
inline int nccl_end(const struct kf_comm *c) {
    return c->rank == c->world - 1 ? g_nccl.group_end() : 0;
}

} // namespace
