/* kf_buf: a growable byte/string buffer (git's strbuf in spirit). Always NUL-terminated.
 * Allocation failure aborts: kforge cannot do anything useful without memory. */
#ifndef KF_BUF_H
#define KF_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct kf_buf {
	char *data;
	size_t len;
	size_t cap;
} kf_buf;

#define KF_BUF_INIT { NULL, 0, 0 }

void kf_buf_reserve(kf_buf *b, size_t extra);
void kf_buf_add(kf_buf *b, const void *data, size_t len);
void kf_buf_adds(kf_buf *b, const char *s);
void kf_buf_addf(kf_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kf_buf_vaddf(kf_buf *b, const char *fmt, va_list ap);
void kf_buf_reset(kf_buf *b);
/* Hands the buffer's string to the caller (never NULL) and leaves b empty. */
char *kf_buf_detach(kf_buf *b);
void kf_buf_free(kf_buf *b);
/* Allocation helpers that abort on failure. */
void *kf_xmalloc(size_t n);
void *kf_xcalloc(size_t n, size_t size);
void *kf_xrealloc(void *p, size_t n);
/* The array p (of *cap elements of size bytes) with room for element n: the capacity doubles when n
 * reaches it, so appending costs amortised constant time. */
void *kf_xgrow(void *p, int n, int *cap, size_t size);
char *kf_xstrdup(const char *s);

#endif
