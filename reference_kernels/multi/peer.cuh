/* NVLink helpers of the level-4 reference kernels (docs/multi-gpu.md): a sum over ranks' buffers read with
 * peer loads (the copy is its one-source case) and a barrier over the ranks' signal regions. Every rank's
 * buffers are plain device addresses valid on every GPU of the job (struct kf_comm, kf_task.h); nothing
 * here uses NVLink multicast. Kernels live in an unnamed namespace, as in tile/: each reference that
 * includes this owns its copies. */
#pragma once
#include <cuda_bf16.h>
#include <stdint.h>

namespace {

constexpr int PEER_THREADS = 256;
constexpr int PEER_VEC = 8;                                    /* bf16 per 16-byte load */
constexpr unsigned long long PEER_BARRIER_TIMEOUT_NS = 2000000000ull; /* a peer that never arrives: trap, never hang */

struct peer_sum_args {
    const __nv_bfloat16 *src[8]; /* one per rank, each n elements */
    __nv_bfloat16 *dst;
    long long n;
    int nsrc;
    bool vec;                    /* every pointer 16-byte aligned */
};

/* dst[i] = sum over s of src[s][i], fp32 in source order (every rank sums in the same order, so an all-reduce
 * leaves bitwise-equal results everywhere), rounded once. */
__global__ void __launch_bounds__(PEER_THREADS) peer_sum_kernel(peer_sum_args a) {
    const long long stride = (long long)blockDim.x * gridDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nvec = a.vec ? a.n / PEER_VEC : 0;
    for (long long v = tid; v < nvec; v += stride) {
        float acc[PEER_VEC] = {};
        for (int s = 0; s < a.nsrc; s++) {
            uint4 u = reinterpret_cast<const uint4 *>(a.src[s])[v];
            const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&u);
            for (int k = 0; k < PEER_VEC / 2; k++) {
                float2 f = __bfloat1622float2(h[k]);
                acc[2 * k] += f.x;
                acc[2 * k + 1] += f.y;
            }
        }
        uint4 o;
        __nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&o);
        for (int k = 0; k < PEER_VEC / 2; k++)
            h[k] = __floats2bfloat162_rn(acc[2 * k], acc[2 * k + 1]);
        reinterpret_cast<uint4 *>(a.dst)[v] = o;
    }
    for (long long i = nvec * PEER_VEC + tid; i < a.n; i += stride) {
        float acc = 0;
        for (int s = 0; s < a.nsrc; s++)
            acc += __bfloat162float(a.src[s][i]);
        a.dst[i] = __float2bfloat16_rn(acc);
    }
}

inline bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

/* Launches peer_sum_kernel on stream: dst = sum of nsrc sources (nsrc 1: a copy). */
inline cudaError_t peer_sum(const __nv_bfloat16 *const *src, int nsrc, __nv_bfloat16 *dst, long long n, cudaStream_t stream) {
    if (n <= 0)
        return cudaSuccess;
    peer_sum_args a = {};
    a.dst = dst;
    a.n = n;
    a.nsrc = nsrc;
    a.vec = aligned16(dst);
    for (int s = 0; s < nsrc; s++) {
        a.src[s] = src[s];
        a.vec = a.vec && aligned16(src[s]);
    }
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    long long work = (a.vec ? n / PEER_VEC : n) + PEER_THREADS - 1;
    long long blocks = work / PEER_THREADS;
    if (blocks > 4LL * sms) blocks = 4LL * sms;
    if (blocks < 1) blocks = 1;
    peer_sum_kernel<<<(unsigned)blocks, PEER_THREADS, 0, stream>>>(a);
    return cudaGetLastError();
}

__device__ __forceinline__ unsigned long long peer_now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

struct peer_barrier_args {
    unsigned *signals[8];
    int rank, world, phase;
};

/* Thread p tells rank p that this rank arrived (a system-scope release store into rank p's signals, after a
 * system fence: everything this rank's stream wrote before is visible to p), then waits, acquiring, for rank
 * p's own arrival in this rank's signals. Slot phase*world + sender, zero at the start of every call. */
__global__ void peer_barrier_kernel(peer_barrier_args a) {
    const int p = threadIdx.x;
    if (p >= a.world)
        return;
    __threadfence_system();
    unsigned *there = a.signals[p] + a.phase * a.world + a.rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(there), "r"(1u) : "memory");
    const unsigned *here = a.signals[a.rank] + a.phase * a.world + p;
    const unsigned long long t0 = peer_now_ns();
    for (;;) {
        unsigned v;
        asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(here) : "memory");
        if (v)
            break;
        if (peer_now_ns() - t0 > PEER_BARRIER_TIMEOUT_NS)
            __trap();
        __nanosleep(100);
    }
}

/* Every rank of comm reaches this point of its stream before any goes on; phase numbers the barriers of one
 * call (each slot is used once per call). */
inline cudaError_t peer_barrier(const struct kf_comm *comm, int phase, cudaStream_t stream) {
    peer_barrier_args a = {};
    a.rank = comm->rank;
    a.world = comm->world;
    a.phase = phase;
    if ((long long)(phase + 1) * comm->world * (long long)sizeof(unsigned) > comm->signal_bytes)
        return cudaErrorInvalidValue;
    for (int p = 0; p < comm->world; p++)
        a.signals[p] = static_cast<unsigned *>(comm->peer[p].signals);
    peer_barrier_kernel<<<1, 32, 0, stream>>>(a);
    return cudaGetLastError();
}

} // namespace
