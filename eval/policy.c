/* Static policy checks (see policy.h). */
#include "eval/policy.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/csource.h"

/* Identifier prefixes of vendor math libraries (case-insensitive). */
static const char *const vendor_prefixes[] = { "cublas", "cudnn", "cblas_", "mkl_", "cusparse", "cutensor" };

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
		for (size_t i = 0; i < sizeof vendor_prefixes / sizeof vendor_prefixes[0]; i++) {
			size_t n = strlen(vendor_prefixes[i]);
			if (!strncasecmp(p, vendor_prefixes[i], n)) {
				size_t idlen = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
				snprintf(why, why_len, "line %d uses '%.*s': task %s forbids vendor libraries", line,
					 (int)(idlen < 64 ? idlen : 64), p, t->name);
				bad = true;
				break;
			}
		}
	}
	free(s);
	return bad;
}
