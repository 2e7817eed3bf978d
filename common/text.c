/* UTF-8 validation and escaping of untrusted text (see text.h). */
#include "common/text.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The longest text one input byte or sequence turns into: a \xNN escape per byte of a C1
 * control's two-byte sequence. */
#define KF_TEXT_UNIT_MAX 8

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0 if p does not start one
 * (Unicode table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *p, size_t left)
{
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0; /* below: overlong */
		else if (c == 0xed)
			hi = 0x9f; /* above: surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90; /* below: overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* above: beyond U+10FFFF */
	} else {
		return 0;
	}
	if (left < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

static size_t escape_bytes(const unsigned char *p, size_t n, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		out[4 * i] = '\\';
		out[4 * i + 1] = 'x';
		out[4 * i + 2] = hex[p[i] >> 4];
		out[4 * i + 3] = hex[p[i] & 15];
	}
	return 4 * n;
}

/* Turns the character (or stray byte) at p into its safe text in unit; returns how many input
 * bytes it consumed and sets *unit_len. */
static size_t next_unit(const unsigned char *p, size_t left, char *unit, size_t *unit_len)
{
	size_t n = utf8_len(p, left);
	if (n == 0) {
		*unit_len = escape_bytes(p, 1, unit);
		return 1;
	}
	bool control = (n == 1 && (p[0] < 0x20 || p[0] == 0x7f) && p[0] != '\n' && p[0] != '\t') ||
		       (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f);
	if (control) {
		*unit_len = escape_bytes(p, n, unit);
		return n;
	}
	memcpy(unit, p, n);
	*unit_len = n;
	return n;
}

size_t kf_text_sanitize_max(const char *in, size_t len, size_t max_out, kf_buf *out)
{
	const unsigned char *p = (const unsigned char *)in;
	char unit[KF_TEXT_UNIT_MAX];
	size_t used = 0, i = 0;
	kf_buf_reserve(out, len < max_out ? len : max_out);
	while (i < len) {
		size_t unit_len;
		size_t n = next_unit(p + i, len - i, unit, &unit_len);
		if (unit_len > max_out - used)
			break;
		kf_buf_add(out, unit, unit_len);
		used += unit_len;
		i += n;
	}
	return i;
}

void kf_text_sanitize(const char *in, size_t len, kf_buf *out)
{
	kf_text_sanitize_max(in, len, SIZE_MAX, out);
}

void kf_text_sanitize_str(char *s, size_t cap)
{
	if (cap == 0)
		return;
	size_t len = strnlen(s, cap - 1);
	kf_buf clean = KF_BUF_INIT;
	kf_text_sanitize_max(s, len, cap - 1, &clean);
	memcpy(s, clean.data ? clean.data : "", clean.len + 1);
	kf_buf_free(&clean);
}
