/* What the two CUDA runner programs share (sandbox/runner_cuda_common.c): the cap on the candidate's
 * device allocations (the cudaMalloc family it binds to), the hold kernel that keeps a stream busy
 * until the runner releases it, the import of the judge's exported device buffers, CUDA error text,
 * and the system calls the driver needs once a context exists. The single-GPU runner
 * (runner_cuda.c) and the multi-GPU runner (runner_cuda_multi.c) each link one copy. */
#ifndef KF_RUNNER_CUDA_COMMON_H
#define KF_RUNNER_CUDA_COMMON_H

#include <stddef.h>
#include <sys/syscall.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

/* What the driver needs once the context exists (DESIGN.md §7, measured on the GPU machine): the
 * entries of a runner backend's extra_syscalls. */
#define KF_RUNNER_CUDA_SYSCALLS SYS_ioctl, SYS_epoll_wait, SYS_epoll_pwait, SYS_sched_setaffinity

/* Before the filter: finds the CUDA runtime's allocators behind the wrappers and sets the cap on the
 * bytes the candidate may ever ask for, on every device together. Returns 0, or -1 with why. */
int kf_runner_cuda_cap_init(size_t cap, char *why, size_t why_len);

/* Loads the hold kernel from the fatbin embedded in the runner and its release flag, host memory
 * allocated with host_alloc_flags (cudaHostAllocMapped at least) and mapped into the device. */
cudaError_t kf_runner_cuda_hold_load(unsigned int host_alloc_flags);
/* Clears the release flag: holds launched after this wait until kf_runner_cuda_hold_release. */
void kf_runner_cuda_hold_arm(void);
/* One hold on stream s; it gives up after timeout_ns of device time if never released. */
cudaError_t kf_runner_cuda_hold_launch(cudaStream_t s, unsigned long long timeout_ns);
/* Releases every hold waiting on the flag at once. */
void kf_runner_cuda_hold_release(void);

/* Imports the allocation behind the judge's file descriptor fd (bytes long, already a multiple of
 * the granularity) as device memory of device, maps it at *ptr and grants the n_access accesses. */
CUresult kf_runner_cuda_import(int fd, size_t bytes, int device, const CUmemAccessDesc *access, size_t n_access,
			       CUdeviceptr *ptr);

/* "what: name (description)" in why; returns -1. */
int kf_runner_cuda_fail(char *why, size_t len, const char *what, cudaError_t e);
/* "what: name" of a driver error in why; returns -1. */
int kf_runner_cuda_cu_fail(char *why, size_t len, const char *what, CUresult r);

#endif
