/* Lexical views of C/C++/CUDA source for static checks: the same text with comments (and,
 * optionally, string and character literals) blanked out, keeping every newline so line
 * numbers still match. Not a parser: just enough that a check never fires on a comment, and
 * that code cannot hide from a check where the compiler sees it. Line splices (backslash,
 * optional blanks, newline) are joined first, as the compiler's translation phase 2 does, so a
 * split identifier reads whole and a comment or literal continues where the compiler's does;
 * raw string literals (R"d(...)d") end where the compiler ends them; %: is read as #. */
#ifndef KF_CSOURCE_H
#define KF_CSOURCE_H

#include <stdbool.h>
#include <stddef.h>

/* Returns a new NUL-terminated string of the same length as src, with as many newlines; each
 * logical line (physical lines joined by splices) starts at the physical line it starts on in
 * src, and the newlines the splices took are put back at its end. With blank_strings, literals
 * are blanked too, except on #include lines (whose quoted path is what a check wants to see). */
char *kf_csource_blank(const char *src, size_t len, bool blank_strings);

#endif
