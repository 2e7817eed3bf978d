/* Specification of kf_text_sanitize: whatever bytes come in, what goes out is valid UTF-8 that
 * a terminal shows as text and JSON can carry, with nothing valid lost. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/text.h"

/* The sanitised form of len bytes, as a string the caller frees. */
static char *clean(const char *in, size_t len)
{
	kf_buf b = KF_BUF_INIT;
	kf_text_sanitize(in, len, &b);
	return kf_buf_detach(&b);
}

static void expect(const char *in, size_t len, const char *want)
{
	char *got = clean(in, len);
	cr_assert_str_eq(got, want, "sanitising %zu bytes", len);
	free(got);
}

#define EXPECT(lit, want) expect(lit, sizeof lit - 1, want)

Test(text, keeps_plain_ascii_newlines_and_tabs)
{
	EXPECT("error: x\n\tat line 3 \\ \"q\"", "error: x\n\tat line 3 \\ \"q\"");
}

Test(text, keeps_well_formed_multibyte_characters)
{
	/* é, €, U+10FFFF at the top of the code space, and an emoji. */
	EXPECT("caf\xc3\xa9 \xe2\x82\xac \xf4\x8f\xbf\xbf \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf4\x8f\xbf\xbf \xf0\x9f\x98\x80");
}

Test(text, escapes_ansi_escape_sequences)
{
	EXPECT("\x1b[2J\x1b]0;owned\x07ok", "\\x1B[2J\\x1B]0;owned\\x07ok");
}

Test(text, escapes_carriage_return_backspace_del_and_nul)
{
	EXPECT("a\rb\bc\x7f" "d\0e", "a\\x0Db\\x08c\\x7Fd\\x00e");
}

Test(text, escapes_each_byte_of_an_encoded_c1_control)
{
	/* U+009B is a one-character CSI on terminals that honour C1; U+00A0 is ordinary text. */
	EXPECT("\xc2\x9b" "31m \xc2\x85 \xc2\xa0", "\\xC2\\x9B31m \\xC2\\x85 \xc2\xa0");
}

Test(text, escapes_invalid_bytes)
{
	EXPECT("\xff\xfe a \x80 b \xc0\xc1", "\\xFF\\xFE a \\x80 b \\xC0\\xC1");
}

Test(text, escapes_truncated_sequences_without_swallowing_what_follows)
{
	EXPECT("\xe2\x82" "A", "\\xE2\\x82A");
	EXPECT("\xf0\x9f\x98", "\\xF0\\x9F\\x98");
	EXPECT("x\xc3", "x\\xC3");
}

Test(text, escapes_overlong_encodings)
{
	/* '/' in two bytes, NUL in two bytes, U+20AC in four. */
	EXPECT("\xc0\xaf \xc0\x80 \xf0\x82\x82\xac", "\\xC0\\xAF \\xC0\\x80 \\xF0\\x82\\x82\\xAC");
	EXPECT("\xe0\x80\xaf", "\\xE0\\x80\\xAF");
}

Test(text, escapes_surrogates_and_code_points_above_the_unicode_range)
{
	EXPECT("\xed\xa0\x80 \xed\xbf\xbf", "\\xED\\xA0\\x80 \\xED\\xBF\\xBF");
	EXPECT("\xf4\x90\x80\x80 \xf5\x80\x80\x80", "\\xF4\\x90\\x80\\x80 \\xF5\\x80\\x80\\x80");
	EXPECT("\xed\x9f\xbf", "\xed\x9f\xbf"); /* U+D7FF, just below the surrogates, is kept */
}

Test(text, appends_to_what_the_buffer_already_holds)
{
	kf_buf b = KF_BUF_INIT;
	kf_buf_adds(&b, "log: ");
	kf_text_sanitize("\x1b", 1, &b);
	cr_assert_str_eq(b.data, "log: \\x1B");
	kf_buf_free(&b);
}

Test(text, sanitises_a_fixed_array_in_place)
{
	char s[32] = "bad \x1b[0m \xff end";
	kf_text_sanitize_str(s, sizeof s);
	cr_assert_str_eq(s, "bad \\x1B[0m \\xFF end");
}

Test(text, cuts_in_place_text_at_a_whole_escape_or_character)
{
	char s[8] = "ab\x1b" "cd";
	kf_text_sanitize_str(s, sizeof s); /* "ab\x1Bcd" is 8 characters, one too many */
	cr_assert_str_eq(s, "ab\\x1Bc");
	char t[6] = "ab\x1b" "c";
	kf_text_sanitize_str(t, sizeof t); /* the escape would end past the 5 bytes of room */
	cr_assert_str_eq(t, "ab");
	char e[6] = "a\xc3\xa9\xc3\xa9";
	kf_text_sanitize_str(e, sizeof e); /* room for 5 bytes: "a", "é", "é" is exactly 5 */
	cr_assert_str_eq(e, "a\xc3\xa9\xc3\xa9");
	char f[5] = "a\xc3\xa9\xc3";
	kf_text_sanitize_str(f, sizeof f); /* the truncated "é" would need 4 more bytes: dropped */
	cr_assert_str_eq(f, "a\xc3\xa9");
}

Test(text, output_of_any_byte_is_valid_utf8_without_controls)
{
	char all[256];
	for (int i = 0; i < 256; i++)
		all[i] = (char)i;
	char *got = clean(all, sizeof all);
	kf_buf again = KF_BUF_INIT;
	kf_text_sanitize(got, strlen(got), &again);
	cr_assert_str_eq(again.data, got, "sanitised text is a fixed point");
	for (const unsigned char *p = (const unsigned char *)got; *p; p++)
		cr_assert(*p >= 0x20 || *p == '\n' || *p == '\t', "control byte 0x%02x left", *p);
	kf_buf_free(&again);
	free(got);
}

Test(text, a_capped_copy_ends_on_a_whole_unit_and_says_how_much_it_covered)
{
	kf_buf b = KF_BUF_INIT;
	size_t covered = kf_text_sanitize_max("ok\x1b[1m", 6, 5, &b);
	cr_assert_str_eq(b.data, "ok"); /* the escape \x1B would need 4 bytes, only 3 are left */
	cr_assert_eq(covered, 2);
	kf_buf_reset(&b);
	cr_assert_eq(kf_text_sanitize_max("\xc3\xa9t\xc3\xa9", 5, 100, &b), 5);
	cr_assert_str_eq(b.data, "\xc3\xa9t\xc3\xa9");
	kf_buf_free(&b);
}
