/* Static policy checks (see policy.h). */
#include "eval/judge/policy.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/csource.h"

/* Identifier prefixes of vendor math libraries (case-insensitive). */
static const char *const vendor_prefixes[] = { "cublas", "cudnn", "cblas_", "mkl_", "cusparse", "cutensor", "nccl" };
/* Identifiers that share a prefix but belong to the CUDA driver itself, which every kernel may use:
 * the tensor-memory-accelerator descriptor (CUtensorMap, cuTensorMapEncodeTiled) is not cuTENSOR. */
static const char *const driver_prefixes[] = { "cutensormap" };

static bool has_prefix(const char *p, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncasecmp(p, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

bool kf_policy_violation(const struct kf_task *t, const char *src, size_t len, char *why, size_t why_len)
{
	if (t->vendor_libs_allowed)
		return false;
	char *s = kf_csource_blank(src, len, true);
	bool bad = false;
	int line = 1;
	for (char *p = s; *p && !bad; p++) {
		if (*p == '\n')
			line++;
		if (!(isalpha((unsigned char)*p) || *p == '_') || (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			continue;
		if (has_prefix(p, vendor_prefixes, sizeof vendor_prefixes / sizeof vendor_prefixes[0]) &&
		    !has_prefix(p, driver_prefixes, sizeof driver_prefixes / sizeof driver_prefixes[0])) {
			size_t idlen = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			snprintf(why, why_len, "line %d uses '%.*s': task %s forbids vendor libraries", line,
				 (int)(idlen < 64 ? idlen : 64), p, t->name);
			bad = true;
		}
	}
	free(s);
	return bad;
}
