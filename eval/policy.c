/* Static policy checks (see policy.h). */
#include "eval/policy.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

/* Identifier prefixes of vendor math libraries (case-insensitive). */
static const char *const vendor_prefixes[] = { "cublas", "cudnn", "cblas_", "mkl_", "cusparse", "cutensor" };

/* Copies src with comments replaced by spaces; string and char literals are kept only for
 * #include lines (so an include of <cublas_v2.h> is still seen). */
static char *strip(const char *src, size_t len)
{
	char *out = kf_xmalloc(len + 1);
	size_t o = 0;
	bool in_include = false;
	for (size_t i = 0; i < len; i++) {
		char c = src[i];
		if (c == '\n')
			in_include = false;
		if (c == '#') {
			size_t k = i + 1;
			while (k < len && (src[k] == ' ' || src[k] == '\t'))
				k++;
			in_include = !strncmp(src + k, "include", 7);
		}
		if (c == '/' && i + 1 < len && src[i + 1] == '/') {
			while (i < len && src[i] != '\n')
				out[o++] = ' ', i++;
			if (i < len)
				out[o++] = '\n';
			continue;
		}
		if (c == '/' && i + 1 < len && src[i + 1] == '*') {
			out[o++] = ' ';
			i += 2;
			while (i + 1 < len && !(src[i] == '*' && src[i + 1] == '/'))
				out[o++] = src[i] == '\n' ? '\n' : ' ', i++;
			i++;
			continue;
		}
		if ((c == '"' || c == '\'') && !in_include) {
			char q = c;
			out[o++] = ' ';
			for (i++; i < len && src[i] != q; i++) {
				if (src[i] == '\\')
					i++;
			}
			continue;
		}
		out[o++] = c;
	}
	out[o] = '\0';
	return out;
}

bool kf_policy_violation(const struct kf_task *t, const char *src, size_t len, char *why, size_t why_len)
{
	if (t->vendor_libs_allowed)
		return false;
	char *s = strip(src, len);
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
