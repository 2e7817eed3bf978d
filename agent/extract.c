/* Fenced-block extraction (see extract.h). Fences follow CommonMark: a line of three or more
 * backticks or tildes, indented at most three spaces, opens a block whose info string names the
 * language (and sometimes a file); a line of the same character, at least as long, closes it. */
#include "agent/extract.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"

#define FENCE_MIN 3
#define FENCE_MAX_INDENT 3
#define LANG_MAX 32
#define FILE_NAME_MAX 128
#define ENTRY_POINT "kf_launch"

static const char *const outcome_names[] = {
	[KF_EXTRACT_CODE] = "code",
	[KF_EXTRACT_NO_CODE] = "no_code",
	[KF_EXTRACT_EMPTY_BLOCK] = "empty_block",
	[KF_EXTRACT_CONFLICTING_FILES] = "conflicting_files",
	[KF_EXTRACT_UNTERMINATED_BLOCK] = "unterminated_block",
	[KF_EXTRACT_WRONG_LANGUAGE] = "wrong_language",
};

/* Fence languages accepted per backend; the first is the one prompts ask for. */
static const char *const languages[KF_BACKEND_COUNT][8] = {
	[KF_BACKEND_CPU] = { "c", "c99", "c11", "c17", "c18", "gnu17", NULL },
	[KF_BACKEND_CUDA] = { "cuda", "cu", "c++", "cpp", "cxx", "cc", NULL },
};
static const char *const extensions[KF_BACKEND_COUNT] = { ".c", ".cu" };
static const char *const source_suffixes[] = { ".c", ".h", ".cu", ".cuh", ".cpp", ".hpp", ".cc", ".cxx" };

const char *kf_extract_outcome_name(enum kf_extract_outcome o) { return outcome_names[o]; }
const char *kf_extract_language(enum kf_backend b) { return languages[b][0]; }
const char *kf_extract_extension(enum kf_backend b) { return extensions[b]; }

struct block {
	char lang[LANG_MAX];
	char file[FILE_NAME_MAX];
	const char *start; /* first content byte */
	size_t len;
	bool closed;
};

struct blocks {
	struct block *v;
	int n, cap;
};

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

static bool looks_like_file_name(const char *s, size_t n)
{
	if (n == 0 || n >= FILE_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (isspace((unsigned char)s[i]))
			return false;
	for (size_t i = 0; i < sizeof source_suffixes / sizeof source_suffixes[0]; i++) {
		size_t k = strlen(source_suffixes[i]);
		if (n > k && !strncasecmp(s + n - k, source_suffixes[i], k))
			return true;
	}
	return false;
}

static void set_file(struct block *b, const char *s, size_t n)
{
	while (n && (*s == '"' || *s == '\'')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == '"' || s[n - 1] == '\''))
		n--;
	if (looks_like_file_name(s, n))
		snprintf(b->file, sizeof b->file, "%.*s", (int)n, s);
}

/* Info string: "c", "c kernel.c", "c title=\"kernel.c\"", "c:kernel.c", "{.c}". */
static void parse_info(struct block *b, const char *s, size_t n)
{
	while (n && (isspace((unsigned char)*s) || *s == '{' || *s == '.')) {
		s++;
		n--;
	}
	size_t w = 0;
	while (w < n && !isspace((unsigned char)s[w]) && s[w] != ':' && s[w] != '}' && s[w] != ',')
		w++;
	snprintf(b->lang, sizeof b->lang, "%.*s", (int)(w < LANG_MAX ? w : LANG_MAX - 1), s);
	for (char *p = b->lang; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	s += w;
	n -= w;
	while (n && (isspace((unsigned char)*s) || *s == ':' || *s == ',')) {
		s++;
		n--;
	}
	static const char *const keys[] = { "title=", "file=", "filename=" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (n > strlen(keys[i]) && !strncmp(s, keys[i], strlen(keys[i]))) {
			s += strlen(keys[i]);
			n -= strlen(keys[i]);
		}
	size_t e = 0;
	while (e < n && !isspace((unsigned char)s[e]) && s[e] != '}')
		e++;
	set_file(b, s, e);
}

/* A first line such as "// file: kernel.c", "/ * kernel.cu * /" or "// kernel.c" names the file. */
static void file_from_first_line(struct block *b)
{
	if (b->file[0])
		return;
	const char *s = b->start, *end = b->start + b->len;
	while (s < end && isspace((unsigned char)*s))
		s++;
	const char *eol = memchr(s, '\n', (size_t)(end - s));
	size_t n = eol ? (size_t)(eol - s) : (size_t)(end - s);
	if (n < 2 || !(s[0] == '/' && (s[1] == '/' || s[1] == '*')))
		return;
	s += 2;
	n -= 2;
	if (n >= 2 && s[n - 2] == '*' && s[n - 1] == '/')
		n -= 2;
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	static const char *const keys[] = { "file:", "filename:", "File:", "Filename:" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (n > strlen(keys[i]) && !strncmp(s, keys[i], strlen(keys[i]))) {
			s += strlen(keys[i]);
			n -= strlen(keys[i]);
			while (n && isspace((unsigned char)*s)) {
				s++;
				n--;
			}
		}
	set_file(b, s, n);
}

/* Length of the fence run that opens line `s` (0 when the line is not a fence), and its char. */
static size_t fence_at(const char *s, const char *end, char *ch, const char **after)
{
	int indent = 0;
	while (s < end && *s == ' ' && indent <= FENCE_MAX_INDENT) {
		s++;
		indent++;
	}
	if (indent > FENCE_MAX_INDENT || s >= end || (*s != '`' && *s != '~'))
		return 0;
	char c = *s;
	size_t n = 0;
	while (s + n < end && s[n] == c)
		n++;
	if (n < FENCE_MIN)
		return 0;
	*ch = c;
	*after = s + n;
	return n;
}

static void scan(const char *text, struct blocks *out)
{
	const char *p = text, *end = text + strlen(text);
	struct block *open = NULL;
	char open_ch = 0;
	size_t open_len = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = eol ? eol : end;
		const char *next = eol ? eol + 1 : end;
		char ch = 0;
		const char *after = line_end;
		size_t n = fence_at(p, line_end, &ch, &after);
		if (open) {
			if (n >= open_len && ch == open_ch && blank(after, (size_t)(line_end - after))) {
				open->len = (size_t)(p - open->start);
				open->closed = true;
				open = NULL;
			}
		} else if (n && !(ch == '`' && memchr(after, '`', (size_t)(line_end - after)))) {
			out->v = kf_xgrow(out->v, out->n, &out->cap, sizeof *out->v);
			open = &out->v[out->n++];
			memset(open, 0, sizeof *open);
			parse_info(open, after, (size_t)(line_end - after));
			open->start = next;
			open_ch = ch;
			open_len = n;
		}
		p = next;
	}
	if (open)
		open->len = (size_t)(end - open->start);
}

static bool right_language(const char *lang, enum kf_backend b)
{
	for (int i = 0; languages[b][i]; i++)
		if (!strcmp(lang, languages[b][i]))
			return true;
	return false;
}

static bool mentions_entry_point(const struct block *b)
{
	size_t k = strlen(ENTRY_POINT);
	for (size_t i = 0; i + k <= b->len; i++)
		if (!memcmp(b->start + i, ENTRY_POINT, k))
			return true;
	return false;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Past blanks and comments, from p up to end. */
static const char *skip_blank(const char *p, const char *end)
{
	for (;;) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
			const char *close = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);
			p = close ? close + 2 : end;
		} else if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			p = eol ? eol : end;
		} else {
			return p;
		}
	}
}

/* Past a string or character literal that starts at p (its quote), up to end. */
static const char *skip_literal(const char *p, const char *end)
{
	char quote = *p++;
	while (p < end && *p != quote && *p != '\n')
		p += *p == '\\' && p + 1 < end ? 2 : 1;
	return p < end ? p + 1 : end;
}

/* "kf_launch(...)" at p is followed by a function body "{", not by ";" (a declaration) or anything
 * else (a call in an example of use). */
static bool body_follows(const char *p, const char *end)
{
	const char *q = skip_blank(p + strlen(ENTRY_POINT), end);
	if (q >= end || *q != '(')
		return false;
	for (int depth = 0; q < end; q++) {
		depth += (*q == '(') - (*q == ')');
		if (depth == 0)
			break;
	}
	q = q < end ? skip_blank(q + 1, end) : end;
	return q < end && *q == '{';
}

/* The block defines the entry point in its code (comments and literals do not count). */
static bool defines_entry_point(const struct block *b)
{
	size_t k = strlen(ENTRY_POINT);
	const char *p = b->start, *end = b->start + b->len;
	while (p < end) {
		const char *next = skip_blank(p, end);
		if (next != p) {
			p = next;
		} else if (*p == '"' || *p == '\'') {
			p = skip_literal(p, end);
		} else if (ident_char(*p)) {
			const char *w = p;
			while (p < end && ident_char(*p))
				p++;
			if ((size_t)(p - w) == k && !memcmp(w, ENTRY_POINT, k) && body_follows(w, end))
				return true;
		} else {
			p++;
		}
	}
	return false;
}

/* Picks the candidate block among the closed, non-empty ones in `want`: the last that defines the
 * entry point, else the last that mentions it, else the last. */
static void choose(const struct blocks *bs, const bool *want, struct kf_extract *out)
{
	int chosen = -1, with_entry = -1, with_definition = -1, non_empty = 0;
	const char *first_file = NULL;
	for (int i = 0; i < bs->n; i++) {
		const struct block *b = &bs->v[i];
		if (!want[i] || blank(b->start, b->len))
			continue;
		non_empty++;
		chosen = i;
		if (mentions_entry_point(b))
			with_entry = i;
		if (defines_entry_point(b))
			with_definition = i;
		if (!b->file[0])
			continue;
		if (!first_file) {
			first_file = b->file;
		} else if (strcmp(first_file, b->file)) {
			out->outcome = KF_EXTRACT_CONFLICTING_FILES;
			snprintf(out->detail, sizeof out->detail,
				 "the reply splits the kernel into several files (%s, %s): a candidate is one file",
				 first_file, b->file);
			return;
		}
	}
	if (!non_empty) {
		out->outcome = KF_EXTRACT_EMPTY_BLOCK;
		snprintf(out->detail, sizeof out->detail, "the reply's code block is empty");
		return;
	}
	if (with_definition >= 0)
		chosen = with_definition;
	else if (with_entry >= 0)
		chosen = with_entry;
	const struct block *b = &bs->v[chosen];
	out->outcome = KF_EXTRACT_CODE;
	kf_buf code = KF_BUF_INIT;
	kf_buf_add(&code, b->start, b->len);
	out->code = kf_buf_detach(&code);
	snprintf(out->detail, sizeof out->detail, "block %d of %d (%zu bytes)", chosen + 1, bs->n, b->len);
}

void kf_extract_code(const char *reply, enum kf_backend b, struct kf_extract *out)
{
	memset(out, 0, sizeof *out);
	struct blocks bs = { 0 };
	scan(reply ? reply : "", &bs);
	bool *right = kf_xcalloc((size_t)bs.n + 1, sizeof *right);
	bool *untagged = kf_xcalloc((size_t)bs.n + 1, sizeof *untagged);
	int n_right = 0, n_untagged = 0, n_other = 0;
	for (int i = 0; i < bs.n; i++) {
		const struct block *blk = &bs.v[i];
		bool ours = right_language(blk->lang, b) || !blk->lang[0];
		if (!blk->closed && ours && i == bs.n - 1) {
			out->outcome = KF_EXTRACT_UNTERMINATED_BLOCK;
			snprintf(out->detail, sizeof out->detail,
				 "the last code block has no closing fence (the reply was cut off?)");
			goto out;
		}
		if (!blk->closed)
			continue;
		file_from_first_line(&bs.v[i]);
		if (right_language(blk->lang, b)) {
			right[i] = true;
			n_right++;
		} else if (!blk->lang[0]) {
			untagged[i] = true;
			n_untagged++;
		} else {
			n_other++;
		}
	}
	if (n_right)
		choose(&bs, right, out);
	else if (n_untagged)
		choose(&bs, untagged, out);
	else if (n_other) {
		out->outcome = KF_EXTRACT_WRONG_LANGUAGE;
		snprintf(out->detail, sizeof out->detail, "the reply has code, but no block in %s",
			 kf_extract_language(b));
	} else {
		out->outcome = KF_EXTRACT_NO_CODE;
		snprintf(out->detail, sizeof out->detail, "the reply has no fenced code block");
	}
out:
	free(right);
	free(untagged);
	free(bs.v);
}

void kf_extract_free(struct kf_extract *x)
{
	free(x->code);
	x->code = NULL;
}
