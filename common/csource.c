/* Comment and literal blanking for static checks (see csource.h). */
#include "common/csource.h"

#include <string.h>

#include "common/buf.h"

static bool starts_include(const char *src, size_t len, size_t i)
{
	size_t k = i + 1;
	while (k < len && (src[k] == ' ' || src[k] == '\t'))
		k++;
	return len - k >= 7 && !strncmp(src + k, "include", 7);
}

char *kf_csource_blank(const char *src, size_t len, bool blank_strings)
{
	char *out = kf_xmalloc(len + 1);
	bool in_include = false;
	size_t i = 0;
	while (i < len) {
		char c = src[i];
		if (c == '\n')
			in_include = false;
		else if (c == '#')
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
		if (c == '"' || c == '\'') {
			bool blank = blank_strings && !in_include;
			out[i] = c;
			for (i++; i < len && src[i] != c && src[i] != '\n'; i++) {
				if (src[i] == '\\' && i + 1 < len) {
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
	return out;
}
