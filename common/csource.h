/* Lexical views of C/C++/CUDA source for static checks: the same text with comments (and,
 * optionally, string and character literals) blanked out, keeping every newline so line
 * numbers still match. Not a parser: just enough that a check never fires on a comment. */
#ifndef KF_CSOURCE_H
#define KF_CSOURCE_H

#include <stdbool.h>
#include <stddef.h>

/* Returns a new NUL-terminated string of the same length as src. With blank_strings, literals
 * are blanked too, except on #include lines (whose quoted path is what a check wants to see). */
char *kf_csource_blank(const char *src, size_t len, bool blank_strings);

#endif
