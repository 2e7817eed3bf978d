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

/* Same length and same newline count as the source: line numbers of everything after a splice hold. */
static void expect_shape(const char *src, const char *out)
{
	cr_assert_eq(strlen(out), strlen(src));
	int a = 0, b = 0;
	for (const char *p = src; *p; p++)
		a += *p == '\n';
	for (const char *p = out; *p; p++)
		b += *p == '\n';
	cr_assert_eq(a, b, "%d newlines became %d", a, b);
}

Test(csource, an_identifier_split_by_a_line_splice_reads_whole)
{
	const char *src = "x = cub\\\nlasSgemm(h);\nint after;\n";
	char *out = blank(src, true);
	expect_shape(src, out);
	cr_assert_not_null(strstr(out, "cublasSgemm(h);"), "%s", out);
	/* "int after" is still on line 3. */
	cr_assert_eq(strstr(out, "int after") - out, strstr(src, "int after") - src);
	free(out);
}

Test(csource, a_splice_with_blanks_before_the_newline_is_a_splice)
{
	const char *src = "cub\\  \nlas();";
	char *out = blank(src, true);
	expect_shape(src, out);
	cr_assert_not_null(strstr(out, "cublas();"), "%s", out);
	free(out);
}

Test(csource, a_line_comment_continues_across_a_splice)
{
	const char *src = "// note \\\ncublasSgemm(h);\nint kept;\n";
	char *out = blank(src, false);
	expect_shape(src, out);
	cr_assert_null(strstr(out, "cublas"), "%s", out);
	cr_assert_not_null(strstr(out, "int kept;"));
	free(out);
}

Test(csource, a_string_continues_across_a_splice)
{
	const char *src = "s = \"abc\\\n cublas\"; int kept;";
	char *out = blank(src, true);
	expect_shape(src, out);
	cr_assert_null(strstr(out, "cublas"), "%s", out);
	cr_assert_not_null(strstr(out, "int kept;"), "%s", out);
	free(out);
}

Test(csource, a_quote_inside_a_raw_string_does_not_hide_the_code_after_it)
{
	const char *src = "s = R\"x( \" // )x\"; cublasSgemm(h);\nt = u8R\"(/*)\"; int kept;";
	char *out = blank(src, true);
	expect_shape(src, out);
	cr_assert_not_null(strstr(out, "cublasSgemm(h);"), "%s", out);
	cr_assert_not_null(strstr(out, "int kept;"), "%s", out);
	cr_assert_null(strstr(out, "//"), "the raw string's body is blanked: %s", out);
	free(out);
}

Test(csource, a_raw_string_body_is_kept_when_strings_are_kept)
{
	char *out = blank("asm(R\"(.incbin \"f\")\");", false);
	cr_assert_not_null(strstr(out, ".incbin \"f\""), "%s", out);
	free(out);
}

Test(csource, an_identifier_ending_in_r_is_not_a_raw_string)
{
	/* As a raw string it would run to the end and hide cublas; as FOOR and "(" it closes at once. */
	char *out = blank("FOOR\"(\" cublas", true);
	cr_assert_not_null(strstr(out, "cublas"), "%s", out);
	free(out);
}

Test(csource, a_digraph_include_keeps_its_path)
{
	char *out = blank("%:include \"cublas_v2.h\"\n", true);
	cr_assert_not_null(strstr(out, "cublas_v2.h"), "%s", out);
	free(out);
}
