/* kf_err: the one error type that flows up through every kforge module.
 * A code (what kind of failure, mapped to the CLI exit code) and a human message
 * that names what failed and why. Owns nothing else. */
#ifndef KF_ERR_H
#define KF_ERR_H

#include <stddef.h>

enum kf_code {
	KF_OK = 0,
	KF_EREJECT = 1,   /* the candidate was judged and rejected (exit 1) */
	KF_EINPUT = 2,    /* bad usage or bad input file (exit 2) */
	KF_EINTERNAL = 3, /* kforge's own fault or the environment (exit 3) */
};

#define KF_ERR_MSG_MAX 1024

typedef struct kf_err {
	enum kf_code code;
	char msg[KF_ERR_MSG_MAX];
} kf_err;

/* Sets err (if non-NULL) and returns code, so callers can `return kf_errf(...)`. */
int kf_errf(kf_err *err, enum kf_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefixes the existing message with more context ("loading task x: " + msg). */
int kf_err_prefix(kf_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like kf_errf with the text of errno appended. */
int kf_errno(kf_err *err, enum kf_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
