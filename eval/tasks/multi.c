/* Multi-GPU tasks (see multi.h): recognising and checking a level-4 spec, its shapes at a GPU
 * count, and the per-rank part of its generated header. Text and checks only. */
#include "eval/tasks/multi.h"

#include <string.h>

bool kf_task_multi_gpu(const struct kf_task *t) { return t->level == KF_LEVEL_MULTI_GPU; }

int kf_task_world_symbol(const struct kf_task *t) { return kf_task_symbol(t, KF_WORLD_SYMBOL); }

int kf_task_multi_check(const struct kf_task *t, kf_err *err)
{
	if (kf_task_world_symbol(t) < 0)
		return kf_errf(err, KF_EINPUT, "%s: a level-%d (multi-GPU) task needs the symbol \"%s\"", t->path,
			       KF_LEVEL_MULTI_GPU, KF_WORLD_SYMBOL);
	if (t->n_inputs + t->n_outputs > KF_MULTI_MAX_TENSORS)
		return kf_errf(err, KF_EINPUT, "%s: a multi-GPU task has at most %d tensors (it has %d)", t->path,
			       KF_MULTI_MAX_TENSORS, t->n_inputs + t->n_outputs);
	for (int i = 0; i < t->n_inputs + t->n_outputs; i++)
		if (t->tensors[i].ndim < 2 || strcmp(t->tensors[i].dims[0], KF_WORLD_SYMBOL))
			return kf_errf(err, KF_EINPUT,
				       "%s: tensor %s: a multi-GPU task's tensors lead with the dimension \"%s\" "
				       "(rank r owns the slice [r]), and have at least one more",
				       t->path, t->tensors[i].name, KF_WORLD_SYMBOL);
	return KF_OK;
}

struct kf_shape kf_task_multi_shape(const struct kf_task *t, const struct kf_shape *s, int world)
{
	struct kf_shape out = *s;
	int w = kf_task_world_symbol(t);
	if (w >= 0)
		out.v[w] = world;
	return out;
}

void kf_abi_multi_types(const struct kf_task *t, kf_buf *out)
{
	(void)t;
	kf_buf_adds(out,
		    "/* Multi-GPU (level 4): kf_launch is called once per rank, ranks 0..world-1 in order, from\n"
		    " * one host thread, each with its own GPU current and its own `stream`; the timed window of\n"
		    " * every rank opens at the same moment (after all ranks' calls returned) and the job's\n"
		    " * time is the slowest rank's.\n"
		    " *  - The tensors above are the whole job: rank r's pointers are its slice [r] (the\n"
		    " *    leading `world` dimension dropped), e.g. x points at x[rank][...].\n"
		    " *  - comm->peer[p].buf[i] is rank p's slice of tensor i (inputs, then outputs, in\n"
		    " *    signature order); every GPU of the job can load and store it over NVLink.\n"
		    " *  - comm->peer[p].signals: signal_bytes of rank p, zero at the start of every call\n"
		    " *    (flags, barrier counters). comm->peer[p].scratch: scratch_bytes of rank p, filled\n"
		    " *    with 0xff bytes (NaN) at the start of every call.\n"
		    " *  - A rank may read a peer's outputs or scratch only after the peer wrote them\n"
		    " *    (synchronise through signals with release/acquire or system-scope atomics).\n"
		    " *    Never write a peer's inputs. A rank that waits for a peer that never signals\n"
		    " *    is a deadlock: the call times out.\n"
		    " *  - No NVLink multicast objects, no NCCL, no IPC handles: the peers' pointers are all.\n"
		    " */\n");
	kf_buf_adds(out, KF_MULTI_COMM_TEXT);
	kf_buf_adds(out, "\n\n");
}
