/* Comment and literal blanking for static checks (see csource.h). */
#include "common/csource.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

/* The longest delimiter a raw string may have (C++ [lex.string]). */
#define KF_RAW_DELIM_MAX 16

/* Length of the line splice at src[i] (a backslash, blanks, a newline), or 0 if none starts there. */
static size_t splice_len(const char *src, size_t len, size_t i)
{
	if (src[i] != '\\')
		return 0;
	size_t k = i + 1;
	while (k < len && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r'))
		k++;
	return k < len && src[k] == '\n' ? k + 1 - i : 0;
}

/* Translation phase 2 without changing the length or the newline count: splices are removed,
 * and at the end of each logical line the bytes they took come back as blanks and newlines. */
static char *join_splices(const char *src, size_t len)
{
	char *out = kf_xmalloc(len + 1);
	size_t o = 0, pending_blanks = 0, pending_newlines = 0;
	for (size_t i = 0; i <= len;) {
		size_t n = i < len ? splice_len(src, len, i) : 0;
		if (n) {
			pending_blanks += n - 1;
			pending_newlines++;
			i += n;
			continue;
		}
		if (i == len || src[i] == '\n') {
			memset(out + o, ' ', pending_blanks);
			o += pending_blanks;
			memset(out + o, '\n', pending_newlines);
			o += pending_newlines;
			pending_blanks = pending_newlines = 0;
			if (i == len)
				break;
		}
		out[o++] = src[i++];
	}
	out[len] = '\0';
	return out;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether src[i] starts a directive named include: after # or the digraph %:, blanks, then the name. */
static bool starts_include(const char *src, size_t len, size_t i)
{
	size_t k = i + (src[i] == '%' ? 2 : 1);
	while (k < len && (src[k] == ' ' || src[k] == '\t'))
		k++;
	return len - k >= 7 && !strncmp(src + k, "include", 7);
}

/* A raw string's delimiter: up to 16 characters, none of them blank, a parenthesis or a backslash. */
static bool raw_delim_char(char c)
{
	return c && !strchr(" ()\\\t\v\f\r\n", c);
}

/* If a raw string literal's R is at src[i], returns the index just past its closing quote (len
 * when it never closes: the compiler reads it to the end too), else 0. *open is the index of
 * its opening quote. */
static size_t raw_string_end(const char *src, size_t len, size_t i, size_t *open)
{
	if (src[i] != 'R' || i + 1 >= len || src[i + 1] != '"')
		return 0;
	size_t d = i + 2, dlen = 0;
	while (d + dlen < len && dlen <= KF_RAW_DELIM_MAX && raw_delim_char(src[d + dlen]))
		dlen++;
	if (d + dlen >= len || dlen > KF_RAW_DELIM_MAX || src[d + dlen] != '(')
		return 0;
	*open = i + 1;
	for (size_t k = d + dlen + 1; k + dlen + 1 < len; k++)
		if (src[k] == ')' && !strncmp(src + k + 1, src + d, dlen) && src[k + 1 + dlen] == '"')
			return k + dlen + 2;
	return len;
}

/* raw_string_end for a literal starting at src[i], with or without an encoding prefix. */
static size_t raw_string_at(const char *src, size_t len, size_t i, size_t *open)
{
	static const char *const prefixes[] = { "u8", "u", "U", "L", "" };
	for (size_t p = 0; p < sizeof prefixes / sizeof prefixes[0]; p++) {
		size_t n = strlen(prefixes[p]);
		size_t end = i + n < len && !strncmp(src + i, prefixes[p], n) ? raw_string_end(src, len, i + n, open) : 0;
		if (end)
			return end;
	}
	return 0;
}

char *kf_csource_blank(const char *text, size_t len, bool blank_strings)
{
	char *src = join_splices(text, len);
	char *out = kf_xmalloc(len + 1);
	bool in_include = false;
	size_t i = 0;
	while (i < len) {
		char c = src[i];
		if (c == '\n')
			in_include = false;
		else if (c == '#' || (c == '%' && i + 1 < len && src[i + 1] == ':'))
			in_include = starts_include(src, len, i);
		if (c == '/' && i + 1 < len && src[i + 1] == '/') {
			while (i < len && src[i] != '\n')
				out[i++] = ' ';
			continue;
		}
		if (c == '/' && i + 1 < len && src[i + 1] == '*') {
			out[i] = out[i + 1] = ' ';
			i += 2;
			while (i < len && !(src[i] == '*' && i + 1 < len && src[i + 1] == '/')) {
				out[i] = src[i] == '\n' ? '\n' : ' ';
				i++;
			}
			if (i < len)
				out[i++] = ' ';
			if (i < len)
				out[i++] = ' ';
			continue;
		}
		size_t open;
		size_t raw_end = (i == 0 || !ident_char(src[i - 1])) ? raw_string_at(src, len, i, &open) : 0;
		if (raw_end) {
			bool blank = blank_strings && !in_include;
			for (; i < raw_end; i++) {
				bool body = i > open && i + 1 < raw_end;
				out[i] = blank && body && src[i] != '\n' ? ' ' : src[i];
			}
			continue;
		}
		if (c == '"' || c == '\'') {
			bool blank = blank_strings && !in_include;
			out[i] = c;
			for (i++; i < len && src[i] != c && src[i] != '\n'; i++) {
				if (src[i] == '\\' && i + 1 < len && src[i + 1] != '\n') {
					out[i] = blank ? ' ' : src[i];
					i++;
				}
				out[i] = blank ? ' ' : src[i];
			}
			if (i < len && src[i] == c)
				out[i++] = c;
			continue;
		}
		out[i++] = c;
	}
	out[len] = '\0';
	free(src);
	return out;
}
