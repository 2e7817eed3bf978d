/* The candidate ABI, generated from a task spec (DESIGN.md §4): the header a candidate is
 * compiled against (also shown in prompts), the shim that adapts the typed kf_launch to the
 * judge's uniform call, and the same pair for the fp64 oracle. Text generation only. */
#ifndef KF_ABI_H
#define KF_ABI_H

#include "common/buf.h"
#include "eval/tasks/task.h"

/* The uniform entry points the generated shims export. bufs follow the signature order
 * (inputs, then outputs); ints are the shape symbols in order; stream is the CUDA stream
 * (NULL on the CPU). */
#define KF_SHIM_CALL_SYMBOL "kf_shim_call"
#define KF_SHIM_INIT_SYMBOL "kf_shim_init"
#define KF_ORACLE_CALL_SYMBOL "kf_oracle_shim_call"
typedef int (*kf_shim_call_fn)(void *const *bufs, const long long *ints, void *stream);
typedef int (*kf_shim_init_fn)(void);

/* Header text: a comment with the description, shapes and rules, the element types
 * (kf_bf16 and conversions on the CPU; cuda_bf16.h on CUDA) and the kf_launch prototype.
 * It is force-included when the candidate is compiled, so a wrong signature fails to compile. */
void kf_abi_header(const struct kf_task *t, enum kf_backend b, kf_buf *out);
/* Only the prototype line, e.g. for `kforge tasks --json`. */
void kf_abi_prototype(const struct kf_task *t, enum kf_backend b, kf_buf *out);
/* Shim source: defines kf_shim_call (calls kf_launch with cast arguments) and kf_shim_init
 * (calls the candidate's optional kf_init, a weak symbol). */
void kf_abi_shim(const struct kf_task *t, enum kf_backend b, kf_buf *out);
/* Oracle header and shim: kf_oracle takes every tensor as double, same argument order. */
void kf_abi_oracle_header(const struct kf_task *t, kf_buf *out);
void kf_abi_oracle_shim(const struct kf_task *t, kf_buf *out);
/* For a task without a CPU reference: a CPU kernel with the typed ABI (compiled like a reference,
 * with kf_task.h) made of the oracle's source and a kf_launch that widens the inputs to double,
 * calls kf_oracle and rounds the outputs once to their dtypes. */
void kf_abi_oracle_reference(const struct kf_task *t, const char *oracle_source, kf_buf *out);

#endif
