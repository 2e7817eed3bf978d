/* Source distance for diverse parents (see diversity.h). */
#include "agent/diversity.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL
#define GRAM 3

/* Token hashes of a source: identifiers and numbers whole, every other character alone; comments,
 * whitespace and string contents' layout never change a token. */
static uint64_t *tokens(const char *s, size_t *n_out)
{
	int cap = 0, n = 0;
	uint64_t *out = NULL;
	for (const char *p = s; *p;) {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			p = end ? end + 2 : p + strlen(p);
			continue;
		}
		const char *start = p;
		if (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
				p++;
		else
			p++;
		uint64_t h = FNV_OFFSET;
		for (const char *q = start; q < p; q++)
			h = (h ^ (unsigned char)*q) * FNV_PRIME;
		out = kf_xgrow(out, n, &cap, sizeof *out);
		out[n++] = h;
	}
	*n_out = (size_t)n;
	return out;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The sorted, distinct trigram hashes of a source. */
static uint64_t *grams(const char *s, size_t *n)
{
	size_t nt;
	uint64_t *t = tokens(s, &nt);
	size_t ng = nt >= GRAM ? nt - GRAM + 1 : (nt ? 1 : 0);
	uint64_t *g = kf_xmalloc((ng ? ng : 1) * sizeof *g);
	for (size_t i = 0; i < ng; i++) {
		uint64_t h = FNV_OFFSET;
		for (size_t k = 0; k < GRAM && i + k < nt; k++)
			h = (h ^ t[i + k]) * FNV_PRIME;
		g[i] = h;
	}
	free(t);
	qsort(g, ng, sizeof *g, cmp_u64);
	size_t m = 0;
	for (size_t i = 0; i < ng; i++)
		if (!m || g[m - 1] != g[i])
			g[m++] = g[i];
	*n = m;
	return g;
}

double kf_source_distance(const char *a, const char *b)
{
	size_t na, nb;
	uint64_t *ga = grams(a ? a : "", &na), *gb = grams(b ? b : "", &nb);
	size_t i = 0, j = 0, common = 0;
	while (i < na && j < nb) {
		if (ga[i] == gb[j]) {
			common++;
			i++;
			j++;
		} else if (ga[i] < gb[j]) {
			i++;
		} else {
			j++;
		}
	}
	free(ga);
	free(gb);
	size_t all = na + nb - common;
	return all ? 1.0 - (double)common / (double)all : 0.0;
}
