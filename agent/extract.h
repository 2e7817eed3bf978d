/* Code extraction: finds the kernel source in a model's reply. The reply should hold one fenced
 * block in the backend's language (c on the CPU; cuda, cu or c++ on CUDA); when there are several,
 * the last one that defines kf_launch (a function body, not a call or a declaration) wins: a revision
 * replaces a draft, and an "example usage" block that only calls kf_launch is never taken for the
 * kernel. Without a definition, the last block that mentions kf_launch, else the last block. A reply with no code, only
 * empty blocks, blocks that name different files, a block cut off before its closing fence, or code
 * only in another language is a recorded outcome, not a candidate. Pure text processing. */
#ifndef KF_EXTRACT_H
#define KF_EXTRACT_H

#include <stddef.h>

#include "eval/tasks/task.h"

enum kf_extract_outcome {
	KF_EXTRACT_CODE,
	KF_EXTRACT_NO_CODE,
	KF_EXTRACT_EMPTY_BLOCK,
	KF_EXTRACT_CONFLICTING_FILES,
	KF_EXTRACT_UNTERMINATED_BLOCK,
	KF_EXTRACT_WRONG_LANGUAGE,
};
/* The names stored in requests.outcome: "code", "no_code", "empty_block", ... */
const char *kf_extract_outcome_name(enum kf_extract_outcome o);

struct kf_extract {
	enum kf_extract_outcome outcome;
	char *code;        /* KF_EXTRACT_CODE: the block's text (malloc'd); NULL otherwise */
	char detail[256];  /* a sentence for the record and for the log */
};

void kf_extract_code(const char *reply, enum kf_backend b, struct kf_extract *out);
void kf_extract_free(struct kf_extract *x);
/* The fence language kforge asks for on a backend ("c", "cuda") and the file extension (".c", ".cu"). */
const char *kf_extract_language(enum kf_backend b);
const char *kf_extract_extension(enum kf_backend b);

#endif
