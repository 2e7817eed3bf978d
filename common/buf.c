/* kf_buf implementation and the aborting allocation helpers. */
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die_oom(size_t n)
{
	fprintf(stderr, "kforge: out of memory allocating %zu bytes\n", n);
	abort();
}

void *kf_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom(n);
	return p;
}

void *kf_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die_oom(n * size);
	return p;
}

void *kf_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom(n);
	return q;
}

#define KF_GROW_MIN 16 /* elements in an array's first allocation */

void *kf_xgrow(void *p, int n, int *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : KF_GROW_MIN;
	return kf_xrealloc(p, (size_t)*cap * size);
}

char *kf_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = kf_xmalloc(n);
	memcpy(d, s, n);
	return d;
}

void kf_buf_reserve(kf_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->data = kf_xrealloc(b->data, cap);
	b->cap = cap;
}

void kf_buf_add(kf_buf *b, const void *data, size_t len)
{
	kf_buf_reserve(b, len);
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void kf_buf_adds(kf_buf *b, const char *s)
{
	kf_buf_add(b, s, strlen(s));
}

void kf_buf_vaddf(kf_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	kf_buf_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void kf_buf_addf(kf_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kf_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void kf_buf_reset(kf_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

char *kf_buf_detach(kf_buf *b)
{
	char *s = b->data ? b->data : kf_xstrdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}

void kf_buf_free(kf_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
