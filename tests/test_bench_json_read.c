/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JSON reader behind dpk-bench compare and report: values, escapes and positions of
 * valid documents, and for every kind of broken document an error that names the line,
 * the column and what was expected.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dpk_test.h"
#include "json_read.h"

static int parse(const char *text, struct dpk_jv *v, char *err, size_t errlen)
{
	return dpk_jv_parse(text, strlen(text), v, err, errlen);
}

/* A document and the words its error must hold. */
struct bad_doc {
	const char *text, *msg;
};

/* Each of the @p n documents is refused with -EINVAL and its message, leaving null. */
static void expect_refused(const struct bad_doc *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct dpk_jv v;
		char err[256] = "";

		EXPECT_EQ(-EINVAL, parse(t[i].text, &v, err, sizeof(err)));
		EXPECT_EQ(DPK_JV_NULL, v.type);
		if (!strstr(err, t[i].msg))
			dpk_test_fail(__FILE__, __LINE__, "case %zu: \"%s\" lacks \"%s\"", i, err,
			              t[i].msg);
	}
}

static void values_and_types(void)
{
	struct dpk_jv v;
	const struct dpk_jv *x;
	char err[256];

	ASSERT_EQ(0, parse("{\"a\": [1, -2.5e3, 0.125, true, false, null, \"s\", {}, []],"
	                   " \"b\": {\"c\": 7}}",
	                   &v, err, sizeof(err)));
	ASSERT_EQ(DPK_JV_OBJECT, v.type);
	x = dpk_jv_get(&v, "a");
	ASSERT_TRUE(x && x->type == DPK_JV_ARRAY && x->arr.n == 9);
	EXPECT_TRUE(x->arr.v[0].type == DPK_JV_NUMBER && x->arr.v[0].num == 1.0);
	EXPECT_TRUE(x->arr.v[1].num == -2500.0);
	EXPECT_TRUE(x->arr.v[2].num == 0.125);
	EXPECT_TRUE(x->arr.v[3].type == DPK_JV_BOOL && x->arr.v[3].b);
	EXPECT_TRUE(x->arr.v[4].type == DPK_JV_BOOL && !x->arr.v[4].b);
	EXPECT_EQ(DPK_JV_NULL, x->arr.v[5].type);
	EXPECT_STREQ(x->arr.v[6].str.s, "s");
	EXPECT_TRUE(x->arr.v[7].type == DPK_JV_OBJECT && x->arr.v[7].obj.n == 0);
	EXPECT_TRUE(x->arr.v[8].type == DPK_JV_ARRAY && x->arr.v[8].arr.n == 0);
	x = dpk_jv_get(dpk_jv_get(&v, "b"), "c");
	ASSERT_TRUE(x && x->num == 7.0);
	EXPECT_NULL(dpk_jv_get(&v, "missing"));
	EXPECT_NULL(dpk_jv_get(x, "c")); /* not an object */
	dpk_jv_free(&v);
	EXPECT_EQ(DPK_JV_NULL, v.type);
	EXPECT_STREQ(dpk_jv_type_name(DPK_JV_ARRAY), "an array");
}

static void strings_and_escapes(void)
{
	struct dpk_jv v;
	char err[256];

	ASSERT_EQ(0, parse("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t \\u00e9 \\u20ac \\ud83d\\ude00\"",
	                   &v, err, sizeof(err)));
	ASSERT_EQ(DPK_JV_STRING, v.type);
	EXPECT_STREQ(v.str.s, "q\" b\\ s/ \b\f\n\r\t \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	dpk_jv_free(&v);
	/* Raw UTF-8 passes through. */
	ASSERT_EQ(0, parse("\"\xce\xbc"
	                   "s\"",
	                   &v, err, sizeof(err)));
	EXPECT_STREQ(v.str.s, "\xce\xbc"
	                      "s");
	dpk_jv_free(&v);
}

/* A string is whole and in well-formed UTF-8, or the document is refused where it goes
 * wrong: a lone surrogate used to become U+FFFD, \u0000 to cut the string for every
 * reader of it as a C string, and invalid UTF-8 to pass through to the terminal and the
 * HTML page. */
static void strings_are_whole_utf8(void)
{
	static const struct bad_doc bad[] = {
	        {"[\"a\\ud800b\"]", "line 1, column 4: lone surrogate \\ud800"},
	        {"[\"\\udc00\"]", "line 1, column 3: lone surrogate \\udc00"},
	        {"[\"\\ud800\\u0041\"]", "lone surrogate \\ud800"},
	        {"[\"\\ud800\"]", "lone surrogate"},
	        {"{\"cpu\": \"AMD\\u0000EPYC\"}", "line 1, column 13: \\u0000 in a string"},
	        {"{\"a\\u0000b\": 1}", "\\u0000 in a string"},
	        {"[\"\xff\"]", "line 1, column 3: invalid UTF-8 (byte 0xff)"},
	        {"[\"ab\x80\"]", "line 1, column 5: invalid UTF-8 (byte 0x80)"},
	        {"[\"\xc0\xaf\"]", "invalid UTF-8 (byte 0xc0)"},         /* overlong '/' */
	        {"[\"\xed\xa0\x80\"]", "invalid UTF-8 (byte 0xed)"},     /* a surrogate */
	        {"[\"\xf4\x90\x80\x80\"]", "invalid UTF-8 (byte 0xf4)"}, /* past U+10FFFF */
	        {"[\"\xe2\x82\"]", "invalid UTF-8 (byte 0xe2)"},         /* cut short */
	        {"[\"\xce\"]", "invalid UTF-8"},
	};
	struct dpk_jv v;
	char err[256];

	expect_refused(bad, sizeof(bad) / sizeof(bad[0]));
	/* Every well-formed sequence, one to four bytes, raw and escaped, is kept. */
	ASSERT_EQ(0,
	          parse("\"\\u0001 \x7f \xc2\x80 \xdf\xbf \xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 "
	                "\xf0\x90\x80\x80 \xf4\x8f\xbf\xbf \\udbff\\udfff\"",
	                &v, err, sizeof(err)));
	EXPECT_STREQ(v.str.s, "\x01 \x7f \xc2\x80 \xdf\xbf \xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 "
	                      "\xf0\x90\x80\x80 \xf4\x8f\xbf\xbf \xf4\x8f\xbf\xbf");
	dpk_jv_free(&v);
}

/* The values a document may hold are counted as they are parsed; one more is refused. */
static void values_are_counted(void)
{
	struct dpk_jv v;
	char err[256];
	const char *ten = "[1,2,3,4,5,6,7,8,9]", *nested = "[[0],[0],[0],[0],{\"a\":[]}]";

	ASSERT_EQ(0, dpk_jv_parse_max(ten, strlen(ten), 10, &v, err, sizeof(err)));
	EXPECT_EQ(9, v.arr.n);
	dpk_jv_free(&v);
	EXPECT_EQ(-EFBIG, dpk_jv_parse_max(ten, strlen(ten), 9, &v, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "line 1, column 18: more than 9 values") != NULL);
	EXPECT_EQ(DPK_JV_NULL, v.type);
	/* Containers are values too: 1 + 4 * 2 + 2 = 11. */
	ASSERT_EQ(0, dpk_jv_parse_max(nested, strlen(nested), 11, &v, err, sizeof(err)));
	dpk_jv_free(&v);
	EXPECT_EQ(-EFBIG, dpk_jv_parse_max(nested, strlen(nested), 10, &v, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "more than 10 values") != NULL);
}

/*
 * A file holding more values than a document may is refused while it is read, after the
 * bytes that hold the values too many: a 200 MB array of numbers took 3.4 GiB and 12 s to
 * be parsed whole.
 */
static void huge_arrays_are_refused_while_read(void)
{
	char path[] = "/tmp/dpk_json_huge_XXXXXX", err[256];
	static char chunk[1 << 16];
	const size_t per = sizeof(chunk) / 2, n = DPK_JV_VALUES_MAX + (size_t)per;
	struct dpk_jv v;
	int fd = mkstemp(path);
	FILE *f;

	ASSERT_GE(fd, 0);
	f = fdopen(fd, "w");
	ASSERT_NOT_NULL(f);
	for (size_t i = 0; i < sizeof(chunk); i += 2)
		memcpy(chunk + i, "0,", 2);
	fputc('[', f);
	for (size_t i = 0; i < n; i += per)
		fwrite(chunk, 1, sizeof(chunk), f);
	fputs("0]", f);
	ASSERT_EQ(0, fclose(f));
	EXPECT_EQ(-EFBIG, dpk_jv_parse_file(path, &v, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "too large: more than 16777216 values") != NULL);
	EXPECT_EQ(DPK_JV_NULL, v.type);
	unlink(path);
}

static void positions_count_lines_and_characters(void)
{
	struct dpk_jv v;
	const struct dpk_jv *x;
	char err[256];

	/* "é" is two bytes but one column. */
	ASSERT_EQ(0, parse("{\n  \"\xc3\xa9\": 1,\n\t\"b\": [true]\n}", &v, err, sizeof(err)));
	x = dpk_jv_get(&v, "\xc3\xa9");
	ASSERT_NOT_NULL(x);
	EXPECT_EQ(2, x->line);
	EXPECT_EQ(8, x->col);
	x = dpk_jv_get(&v, "b");
	EXPECT_EQ(3, x->line);
	EXPECT_EQ(7, x->col);
	EXPECT_EQ(3, x->arr.v[0].line);
	EXPECT_EQ(8, x->arr.v[0].col);
	dpk_jv_free(&v);
}

static void duplicate_members_last_wins_and_bom_is_skipped(void)
{
	struct dpk_jv v;
	char err[256];

	ASSERT_EQ(0, parse("\xef\xbb\xbf {\"a\": 1, \"a\": 2} \n", &v, err, sizeof(err)));
	EXPECT_TRUE(dpk_jv_get(&v, "a")->num == 2.0);
	EXPECT_EQ(2, v.obj.n);
	dpk_jv_free(&v);
}

static void nesting_is_bounded(void)
{
	char deep[2 * (DPK_JV_DEPTH_MAX + 2) + 1], err[256];
	struct dpk_jv v;
	size_t d;

	/* DPK_JV_DEPTH_MAX + 1 nested arrays parse; one more is refused, not a crash. */
	d = DPK_JV_DEPTH_MAX + 1;
	memset(deep, '[', d);
	memset(deep + d, ']', d);
	deep[2 * d] = '\0';
	ASSERT_EQ(0, parse(deep, &v, err, sizeof(err)));
	dpk_jv_free(&v);
	d++;
	memset(deep, '[', d);
	memset(deep + d, ']', d);
	deep[2 * d] = '\0';
	ASSERT_EQ(-EINVAL, parse(deep, &v, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "nested deeper than") != NULL);
	EXPECT_EQ(DPK_JV_NULL, v.type);
}

static void errors_say_where_and_what(void)
{
	static const struct bad_doc t[] = {
	        {"", "the file is empty"},
	        {"  \n ", "the file is empty"},
	        {"{\"a\": 1", "line 1, column 8: expected ',' or '}' after an object member, found "
	                      "the end of the file (the file ends early; is it truncated?)"},
	        {"{\"a\": 1,\n \"b\" 2}", "line 2, column 6: expected ':' after the member name "
	                                  "\"b\", found '2'"},
	        {"{\"a\": 1 \"b\": 2}", "line 1, column 9: expected ',' or '}'"},
	        {"[1, 2,]", "line 1, column 7: expected a value after ',', found ']' (trailing "
	                    "comma)"},
	        {"{\"a\": 1,}", "line 1, column 9: expected a member name after ',', found '}'"},
	        {"{a: 1}", "line 1, column 2: expected a member name in double quotes, found 'a'"},
	        {"[1 2]",
	         "line 1, column 4: expected ',' or ']' after an array element, found '2'"},
	        {"[01]", "line 1, column 2: a number may not start with 0"},
	        {"[1.]", "line 1, column 4: expected a digit after the decimal point"},
	        {"[1e+]", "line 1, column 5: expected a digit in the exponent"},
	        {"[-]", "line 1, column 3: expected a digit"},
	        {"[1e999]", "out of range"},
	        {"[NaN]", "NaN and Infinity are not JSON"},
	        {"[tru]", "line 1, column 2: expected a value"},
	        {"\"abc", "line 1, column 1: unterminated string"},
	        {"[\"a\nb\"]", "line 1, column 4: control character U+000A in a string"},
	        {"[\"\\x\"]", "line 1, column 3: unknown escape '\\x'"},
	        {"[\"\\u12g4\"]", "line 1, column 3: bad \\u escape"},
	        {"{} {}", "line 1, column 4: unexpected '{' after the end of the JSON value"},
	        {"[1]\n\n  x", "line 3, column 3: unexpected 'x'"},
	        {"\x01", "found byte 0x01"},
	};

	expect_refused(t, sizeof(t) / sizeof(t[0]));
}

static void every_prefix_of_a_document_fails_cleanly(void)
{
	static const char doc[] = "{\"schema\": \"dpkit-bench\", \"n\": [1.5e-3, -2, true, "
	                          "null, {\"k\": \"v\\u00e9\\n\"}], \"x\": false}";
	struct dpk_jv v;
	char err[256];

	/* Every truncation is an error with a position, never a crash or a leak (ASan). */
	for (size_t len = 0; len < sizeof(doc) - 1; len++) {
		int rc = dpk_jv_parse(doc, len, &v, err, sizeof(err));
		EXPECT_EQ(-EINVAL, rc);
		if (len > 0 && !strstr(err, "line 1, column"))
			dpk_test_fail(__FILE__, __LINE__, "prefix %zu: \"%s\"", len, err);
	}
	ASSERT_EQ(0, dpk_jv_parse(doc, sizeof(doc) - 1, &v, err, sizeof(err)));
	dpk_jv_free(&v);
}

static void files_are_read_whole(void)
{
	char path[] = "/tmp/dpk_json_read_XXXXXX", err[256];
	struct dpk_jv v;
	int fd = mkstemp(path);
	FILE *f;

	ASSERT_GE(fd, 0);
	f = fdopen(fd, "w");
	ASSERT_NOT_NULL(f);
	fputs("[", f);
	for (int i = 0; i < 100000; i++)
		fprintf(f, "%s%d.25", i ? "," : "", i);
	fputs("]\n", f);
	fclose(f);
	ASSERT_EQ(0, dpk_jv_parse_file(path, &v, err, sizeof(err)));
	ASSERT_EQ(100000, v.arr.n);
	EXPECT_TRUE(v.arr.v[99999].num == 99999.25);
	dpk_jv_free(&v);
	unlink(path);
	EXPECT_EQ(-ENOENT, dpk_jv_parse_file(path, &v, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "No such file") != NULL);
	EXPECT_EQ(-EISDIR, dpk_jv_parse_file("/tmp", &v, err, sizeof(err)));
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(values_and_types),
        DPK_TEST(strings_and_escapes),
        DPK_TEST(strings_are_whole_utf8),
        DPK_TEST(values_are_counted),
        DPK_TEST(huge_arrays_are_refused_while_read),
        DPK_TEST(positions_count_lines_and_characters),
        DPK_TEST(duplicate_members_last_wins_and_bom_is_skipped),
        DPK_TEST(nesting_is_bounded),
        DPK_TEST(errors_say_where_and_what),
        DPK_TEST(every_prefix_of_a_document_fails_cleanly),
        DPK_TEST(files_are_read_whole),
};

DPK_TEST_MAIN(cases)
