/* Multi-GPU tasks (level 4, docs/multi-gpu.md): what a task spec must look like to run on several
 * GPUs, and the per-rank ABI the judge, the multi-GPU runner and the generated header share.
 *
 * A level-4 spec describes the whole job: every tensor has the symbol `world` (the GPU count) as
 * its leading dimension, and rank r owns the slice [r] of each. The fp64 oracle therefore sees
 * every rank's inputs and outputs at once; a candidate's kf_launch is called once per rank with
 * its own slices, the rank, the world size, every rank's buffers (peer pointers, valid on every
 * GPU of the job over NVLink) and its stream. Plain C: included by the judge, the runner (which
 * fills struct kf_comm) and the ABI generator (which prints the very same definition). */
#ifndef KF_MULTI_H
#define KF_MULTI_H

#include <stdbool.h>

#include "common/buf.h"
#include "common/err.h"
#include "eval/tasks/task.h"

#define KF_LEVEL_MULTI_GPU 4
#define KF_WORLD_SYMBOL "world"
#define KF_MULTI_MAX_WORLD 8
/* The call's bufs[] slots past the tensors: the judge sends the offsets of each rank's scratch
 * and signal regions in the first two (the same offsets on every rank), the runner puts the
 * struct kf_comm of the rank it calls in the last. So a level-4 task has at most 13 tensors. */
#define KF_MULTI_SCRATCH_SLOT 13
#define KF_MULTI_SIGNAL_SLOT 14
#define KF_MULTI_COMM_SLOT 15
#define KF_MULTI_MAX_TENSORS KF_MULTI_SCRATCH_SLOT
/* Each rank's signal region: zeroed before every call (flags and barrier counters start at 0). */
#define KF_MULTI_SIGNAL_BYTES 65536
/* Each rank's scratch region (the task's "workspace" bytes at least, never less than this):
 * filled with 0xff bytes before every call, a NaN in every float type, so a rank that reads a
 * peer's scratch before the peer wrote it computes NaN and is caught. */
#define KF_MULTI_SCRATCH_MIN 4096
#define KF_MULTI_SCRATCH_FILL 0xff

/* One definition, compiled here and printed into the generated header (KF_MULTI_COMM_TEXT):
 * peer[r].buf[i] is rank r's slice of tensor i (signature order: inputs, then outputs). */
#define KF_MULTI_COMM_DEF                                                                              \
	struct kf_peer {                                                                               \
		void *buf[13];                                                                         \
		void *scratch;                                                                         \
		void *signals;                                                                         \
	};                                                                                             \
	struct kf_comm {                                                                               \
		int rank;                                                                              \
		int world;                                                                             \
		long long scratch_bytes;                                                               \
		long long signal_bytes;                                                                \
		struct kf_peer peer[8];                                                                \
	};
#define KF_MULTI_STR_(x) #x
#define KF_MULTI_STR(x) KF_MULTI_STR_(x)
#define KF_MULTI_COMM_TEXT KF_MULTI_STR(KF_MULTI_COMM_DEF)

KF_MULTI_COMM_DEF

_Static_assert(sizeof(((struct kf_peer *)0)->buf) / sizeof(void *) == KF_MULTI_MAX_TENSORS, "kf_peer.buf size");
_Static_assert(sizeof(((struct kf_comm *)0)->peer) / sizeof(struct kf_peer) == KF_MULTI_MAX_WORLD, "kf_comm.peer size");

/* A level-4 task: judged on several GPUs only. */
bool kf_task_multi_gpu(const struct kf_task *t);
/* Index of the `world` symbol, -1 when none. */
int kf_task_world_symbol(const struct kf_task *t);
/* A level-4 spec is well formed for several GPUs: a `world` symbol that leads every tensor's
 * shape, at most KF_MULTI_MAX_TENSORS tensors. KF_EINPUT naming the problem otherwise. */
int kf_task_multi_check(const struct kf_task *t, kf_err *err);
/* The shape s with world set to `world` (the GPU count the job runs on). */
struct kf_shape kf_task_multi_shape(const struct kf_task *t, const struct kf_shape *s, int world);

/* Generated-header text (CUDA): the rules of a multi-GPU call and struct kf_comm. */
void kf_abi_multi_types(const struct kf_task *t, kf_buf *out);
/* The trailing parameters of a level-4 kf_launch, and the shim's arguments for them. */
#define KF_MULTI_STREAM_PARAM "const struct kf_comm *comm, cudaStream_t stream"
#define KF_MULTI_STREAM_ARG "(const struct kf_comm *)bufs[" KF_MULTI_STR(KF_MULTI_COMM_SLOT) "], (cudaStream_t)stream"

#endif
