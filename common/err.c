/* kf_err helpers: formatting error messages. */
#include "common/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kf_errf(kf_err *err, enum kf_code code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

int kf_err_prefix(kf_err *err, const char *fmt, ...)
{
	if (!err)
		return KF_EINTERNAL;
	char head[KF_ERR_MSG_MAX], old[KF_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	snprintf(err->msg, sizeof err->msg, "%s%s", head, old);
	return err->code;
}

int kf_errno(kf_err *err, enum kf_code code, const char *fmt, ...)
{
	int saved = errno;
	if (err) {
		char head[KF_ERR_MSG_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(head, sizeof head, fmt, ap);
		va_end(ap);
		snprintf(err->msg, sizeof err->msg, "%s: %s", head, strerror(saved));
		err->code = code;
	}
	return code;
}
