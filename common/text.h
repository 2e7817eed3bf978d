/* Making untrusted text safe to store, print and put in JSON: valid UTF-8 with no control
 * characters but newline and tab. Candidates, compilers and runners write whatever bytes they
 * like (ANSI escapes, invalid UTF-8); everything kforge shows of theirs goes through here. */
#ifndef KF_TEXT_H
#define KF_TEXT_H

#include <stddef.h>

#include "common/buf.h"

/* Appends in[0..len) to out: well-formed UTF-8 sequences are kept, \n and \t are kept, and every
 * other byte is written as the four characters \xNN (upper-case hex): C0 controls, DEL, each
 * byte of an encoded C1 control (U+0080..U+009F), NUL, and every byte that does not start a
 * well-formed sequence (stray continuation bytes, truncated sequences, overlong encodings,
 * surrogates, code points above U+10FFFF). The output is never shorter than the input and at
 * most four times as long. */
void kf_text_sanitize(const char *in, size_t len, kf_buf *out);

/* The same, appending at most max_out bytes: the text is cut at the last whole character or
 * escape that fits, so what is appended is still valid UTF-8. Returns how many input bytes it
 * covered (len when nothing was cut). */
size_t kf_text_sanitize_max(const char *in, size_t len, size_t max_out, kf_buf *out);

/* The same for a NUL-terminated string in a fixed array of cap bytes, in place. When the
 * escaped text does not fit, it is cut at the last whole character or escape that does, so the
 * result is still valid UTF-8 and NUL-terminated. */
void kf_text_sanitize_str(char *s, size_t cap);

#endif
