/* Specification of the comment/literal blanking that static checks rely on. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/csource.h"

static char *blank(const char *s, bool strings) { return kf_csource_blank(s, strlen(s), strings); }

Test(csource, blanks_line_and_block_comments_but_keeps_newlines)
{
	char *out = blank("a // .incbin x\nb /* cublas\n */ c", false);
	cr_assert_null(strstr(out, "incbin"));
	cr_assert_null(strstr(out, "cublas"));
	cr_assert_eq(strlen(out), strlen("a // .incbin x\nb /* cublas\n */ c"));
	cr_assert_eq(out[14], '\n');
	cr_assert_not_null(strstr(out, "c"));
	free(out);
}

Test(csource, keeps_string_literals_unless_asked_to_blank_them)
{
	char *kept = blank("asm(\".incbin \\\"f\\\"\");", false);
	char *gone = blank("asm(\".incbin \\\"f\\\"\");", true);
	cr_assert_not_null(strstr(kept, ".incbin"));
	cr_assert_null(strstr(gone, ".incbin"));
	free(kept);
	free(gone);
}

Test(csource, keeps_the_path_of_an_include_line_even_when_blanking_strings)
{
	char *out = blank("#include \"cublas_v2.h\"\nconst char *s = \"cublas\";", true);
	cr_assert_not_null(strstr(out, "cublas_v2.h"));
	cr_assert_null(strstr(out + strlen("#include \"cublas_v2.h\"\n"), "cublas"));
	free(out);
}

Test(csource, a_comment_marker_inside_a_string_is_not_a_comment)
{
	char *out = blank("s = \"// not a comment\"; x /* y */", false);
	cr_assert_not_null(strstr(out, "// not a comment"));
	cr_assert_null(strstr(out, " y "));
	free(out);
}

Test(csource, survives_an_unterminated_comment_or_string)
{
	char *a = blank("x /* never closed", false);
	char *b = blank("x = \"never closed", true);
	cr_assert_eq(strlen(a), strlen("x /* never closed"));
	cr_assert_eq(strlen(b), strlen("x = \"never closed"));
	free(a);
	free(b);
}
