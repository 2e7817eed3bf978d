/* What the CUDA judge writes into the memfd it shares with a CUDA runner: the IPC handle of
 * the device buffers and their size. Plain C, readable by both sides. */
#ifndef KF_CUDA_SHARED_H
#define KF_CUDA_SHARED_H

#include <stdint.h>

#define KF_CUDA_SHARED_MAGIC 0x6b666375u /* "kfcu" */
#define KF_CUDA_IPC_HANDLE_BYTES 64

struct kf_cuda_shared {
	uint32_t magic;
	uint32_t reserved;
	uint64_t bytes;                                   /* device buffer size */
	unsigned char ipc_handle[KF_CUDA_IPC_HANDLE_BYTES]; /* cudaIpcMemHandle_t */
};

#endif
