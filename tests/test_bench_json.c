/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JSON writer: exact text in pretty and compact form, escaping and UTF-8 repair, and
 * misuse reported by dpk_json_finish(). Documents are also parsed back by python3's json
 * module when it is installed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dpk_test.h"
#include "json.h"

#define TEXT_MAX 8192

/* A document written by @p fn to a temporary file; the text and the file's path. */
struct doc {
	char path[64];
	char text[TEXT_MAX];
	int rc; /* dpk_json_finish() */
};

static void write_doc(struct doc *d, void (*fn)(struct dpk_json *), bool pretty)
{
	struct dpk_json j;
	size_t n;
	FILE *f;
	int fd;

	snprintf(d->path, sizeof(d->path), "/tmp/dpk_json_test_XXXXXX");
	fd = mkstemp(d->path);
	ASSERT_TRUE(fd >= 0);
	f = fdopen(fd, "w+");
	ASSERT_NOT_NULL(f);
	dpk_json_init(&j, f, pretty);
	fn(&j);
	d->rc = dpk_json_finish(&j);
	rewind(f);
	n = fread(d->text, 1, sizeof(d->text) - 1, f);
	d->text[n] = '\0';
	fclose(f);
}

static void drop_doc(struct doc *d)
{
	unlink(d->path);
}

/* Every value type, nesting, empty containers. */
static void all_types(struct dpk_json *j)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "name", "ring \"sp/sc\"");
	dpk_json_int(j, "neg", -42);
	dpk_json_int(j, "min", INT64_MIN);
	dpk_json_uint(j, "max", UINT64_MAX);
	dpk_json_double(j, "pi", 3.25);
	dpk_json_double(j, "tenth", 0.1);
	dpk_json_double(j, "big", 1e300);
	dpk_json_double(j, "nan", NAN);
	dpk_json_double(j, "inf", -INFINITY);
	dpk_json_bool(j, "yes", true);
	dpk_json_bool(j, "no", false);
	dpk_json_null(j, "nothing");
	dpk_json_string(j, "absent", NULL);
	dpk_json_array_begin(j, "list");
	dpk_json_int(j, NULL, 1);
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "k", "v");
	dpk_json_object_end(j);
	dpk_json_array_begin(j, NULL);
	dpk_json_array_end(j);
	dpk_json_object_begin(j, NULL);
	dpk_json_object_end(j);
	dpk_json_double(j, NULL, -2.5);
	dpk_json_array_end(j);
	dpk_json_object_begin(j, "empty");
	dpk_json_object_end(j);
	dpk_json_object_end(j);
}

static const char all_types_pretty[] = "{\n"
                                       "  \"name\": \"ring \\\"sp/sc\\\"\",\n"
                                       "  \"neg\": -42,\n"
                                       "  \"min\": -9223372036854775808,\n"
                                       "  \"max\": 18446744073709551615,\n"
                                       "  \"pi\": 3.25,\n"
                                       "  \"tenth\": 0.10000000000000001,\n"
                                       "  \"big\": 1.0000000000000001e+300,\n"
                                       "  \"nan\": null,\n"
                                       "  \"inf\": null,\n"
                                       "  \"yes\": true,\n"
                                       "  \"no\": false,\n"
                                       "  \"nothing\": null,\n"
                                       "  \"absent\": null,\n"
                                       "  \"list\": [\n"
                                       "    1,\n"
                                       "    {\n"
                                       "      \"k\": \"v\"\n"
                                       "    },\n"
                                       "    [],\n"
                                       "    {},\n"
                                       "    -2.5\n"
                                       "  ],\n"
                                       "  \"empty\": {}\n"
                                       "}\n";

static const char all_types_compact[] =
        "{\"name\":\"ring \\\"sp/sc\\\"\",\"neg\":-42,\"min\":-9223372036854775808,"
        "\"max\":18446744073709551615,\"pi\":3.25,\"tenth\":0.10000000000000001,"
        "\"big\":1.0000000000000001e+300,\"nan\":null,\"inf\":null,\"yes\":true,\"no\":false,"
        "\"nothing\":null,\"absent\":null,\"list\":[1,{\"k\":\"v\"},[],{},-2.5],\"empty\":{}}\n";

/* What python3 prints for the same document re-serialised compactly: it reads the 17-digit
 * doubles back as the shortest numbers that round-trip. */
static const char all_types_python[] =
        "{\"name\":\"ring \\\"sp/sc\\\"\",\"neg\":-42,\"min\":-9223372036854775808,"
        "\"max\":18446744073709551615,\"pi\":3.25,\"tenth\":0.1,\"big\":1e+300,\"nan\":null,"
        "\"inf\":null,\"yes\":true,\"no\":false,\"nothing\":null,\"absent\":null,"
        "\"list\":[1,{\"k\":\"v\"},[],{},-2.5],\"empty\":{}}\n";

/* Control characters, quotes, valid multi-byte UTF-8 and ill-formed sequences. */
static void tricky(struct dpk_json *j)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "ctl", "a\tb\nc\rd\be\ff\x01g\x1fh\x7f");
	dpk_json_string(j, "q\"k\\", "\"/\\");
	dpk_json_string(j, "utf8", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	dpk_json_array_begin(j, "bad");
	dpk_json_string(j, NULL, "\xff");             /* never a lead byte */
	dpk_json_string(j, NULL, "x\xc3");            /* cut at the end */
	dpk_json_string(j, NULL, "\xe2\x82x");        /* cut inside: one U+FFFD */
	dpk_json_string(j, NULL, "\xc0\xaf");         /* overlong '/': two */
	dpk_json_string(j, NULL, "\xed\xa0\x80");     /* a surrogate: three */
	dpk_json_string(j, NULL, "\xf4\x90\x80\x80"); /* past U+10FFFF: four */
	dpk_json_string(j, NULL, "\xf0\x9f\x98");     /* 4-byte form cut at the end */
	dpk_json_string(j, NULL, "\x80ok");           /* stray continuation */
	dpk_json_array_end(j);
	dpk_json_object_end(j);
}

static const char tricky_compact[] =
        "{\"ctl\":\"a\\tb\\nc\\rd\\be\\ff\\u0001g\\u001fh\\u007f\","
        "\"q\\\"k\\\\\":\"\\\"/\\\\\","
        "\"utf8\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\","
        "\"bad\":[\"\\ufffd\",\"x\\ufffd\",\"\\ufffdx\",\"\\ufffd\\ufffd\","
        "\"\\ufffd\\ufffd\\ufffd\",\"\\ufffd\\ufffd\\ufffd\\ufffd\",\"\\ufffd\",\"\\ufffdok\"]}\n";

static const char tricky_python[] =
        "{\"ctl\":\"a\\tb\\nc\\rd\\be\\ff\\u0001g\\u001fh\\u007f\","
        "\"q\\\"k\\\\\":\"\\\"/\\\\\","
        "\"utf8\":\"\\u00e9\\u20ac\\ud83d\\ude00\","
        "\"bad\":[\"\\ufffd\",\"x\\ufffd\",\"\\ufffdx\",\"\\ufffd\\ufffd\","
        "\"\\ufffd\\ufffd\\ufffd\",\"\\ufffd\\ufffd\\ufffd\\ufffd\",\"\\ufffd\",\"\\ufffdok\"]}\n";

static void bad_key_object(struct dpk_json *j)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "\xfe\"", "\xe2\x82");
	dpk_json_object_end(j);
}

static void top_level_scalar(struct dpk_json *j)
{
	dpk_json_double(j, NULL, 1.5);
}

static void top_level_array(struct dpk_json *j)
{
	dpk_json_array_begin(j, NULL);
	dpk_json_uint(j, NULL, 7);
	dpk_json_string(j, NULL, "x");
	dpk_json_array_end(j);
}

/* A series of numbers: one line even when pretty, its digits as asked, null for NaN. */
static void number_series(struct dpk_json *j)
{
	const double v[4] = {57.51953125, 1e-7, NAN, -123456789.0};

	dpk_json_object_begin(j, NULL);
	dpk_json_numbers(j, "raw", v, 4, 6);
	dpk_json_numbers(j, "none", v, 0, 6);
	dpk_json_object_end(j);
}

/* A digit count out of 1..17 is misuse. */
static void number_series_bad_digits(struct dpk_json *j)
{
	const double v[1] = {1.0};

	dpk_json_array_begin(j, NULL);
	dpk_json_numbers(j, NULL, v, 1, 0);
	dpk_json_array_end(j);
}

/* Case tables: document, pretty or not, expected text. */
struct text_case {
	const char *name;
	void (*fn)(struct dpk_json *);
	bool pretty;
	const char *want;
};

static const struct text_case text_cases[] = {
        {"all types, pretty", all_types, true, all_types_pretty},
        {"all types, compact", all_types, false, all_types_compact},
        {"tricky strings", tricky, false, tricky_compact},
        {"bad key", bad_key_object, false, "{\"\\ufffd\\\"\":\"\\ufffd\"}\n"},
        {"top-level scalar", top_level_scalar, true, "1.5\n"},
        {"top-level array, pretty", top_level_array, true, "[\n  7,\n  \"x\"\n]\n"},
        {"top-level array, compact", top_level_array, false, "[7,\"x\"]\n"},
        {"number series, pretty", number_series, true,
         "{\n  \"raw\": [57.5195,1e-07,null,-1.23457e+08],\n  \"none\": []\n}\n"},
};

static void documents_have_exact_text(void)
{
	for (size_t i = 0; i < sizeof(text_cases) / sizeof(text_cases[0]); i++) {
		const struct text_case *tc = &text_cases[i];
		struct doc d;

		dpk_test_note("%s", tc->name);
		write_doc(&d, tc->fn, tc->pretty);
		drop_doc(&d);
		ASSERT_EQ(0, d.rc);
		ASSERT_STREQ(tc->want, d.text);
	}
}

/* True when python3 runs. */
static bool have_python(void)
{
	int st = system("python3 -c pass >/dev/null 2>&1");

	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Parse @p path with python3's json module (NaN and Infinity refused) and print it back
 * compactly; the output goes to @p out. Returns python's exit status. */
static int python_reserialise(const char *path, char *out, size_t len)
{
	char cmd[512];
	size_t n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd),
	         "python3 -c 'import json,sys\n"
	         "def bad(c): sys.exit(\"non-standard constant \" + c)\n"
	         "v = json.load(open(sys.argv[1], encoding=\"utf-8\"), parse_constant=bad)\n"
	         "print(json.dumps(v, separators=(\",\", \":\"), ensure_ascii=True))' %s",
	         path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct python_case {
	const char *name;
	void (*fn)(struct dpk_json *);
	const char *want;
};

static const struct python_case python_cases[] = {
        {"all types", all_types, all_types_python},
        {"tricky strings", tricky, tricky_python},
        {"top-level array", top_level_array, "[7,\"x\"]\n"},
};

static void documents_parse_in_python(void)
{
	if (!have_python())
		DPK_SKIP("python3 is not installed");
	for (size_t i = 0; i < sizeof(python_cases) / sizeof(python_cases[0]); i++) {
		const struct python_case *pc = &python_cases[i];

		for (int pretty = 0; pretty <= 1; pretty++) {
			char got[TEXT_MAX];
			struct doc d;
			int st;

			dpk_test_note("%s, %s", pc->name, pretty ? "pretty" : "compact");
			write_doc(&d, pc->fn, pretty);
			ASSERT_EQ(0, d.rc);
			st = python_reserialise(d.path, got, sizeof(got));
			drop_doc(&d);
			ASSERT_EQ(0, st);
			ASSERT_STREQ(pc->want, got);
		}
	}
}

/* Misuse: each document breaks one rule; finish must say -EIO. */
static void end_without_begin(struct dpk_json *j)
{
	dpk_json_object_end(j);
}

static void array_end_closes_object(struct dpk_json *j)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_array_end(j);
}

static void object_end_closes_array(struct dpk_json *j)
{
	dpk_json_array_begin(j, NULL);
	dpk_json_object_end(j);
}

static void key_in_array(struct dpk_json *j)
{
	dpk_json_array_begin(j, NULL);
	dpk_json_int(j, "k", 1);
	dpk_json_array_end(j);
}

static void no_key_in_object(struct dpk_json *j)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_int(j, NULL, 1);
	dpk_json_object_end(j);
}

static void container_without_key_in_object(struct dpk_json *j)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_array_begin(j, NULL);
	dpk_json_array_end(j);
	dpk_json_object_end(j);
}

static void key_at_top_level(struct dpk_json *j)
{
	dpk_json_bool(j, "k", true);
}

static void two_top_level_values(struct dpk_json *j)
{
	dpk_json_int(j, NULL, 1);
	dpk_json_int(j, NULL, 2);
}

static void left_open(struct dpk_json *j)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_array_begin(j, "a");
	dpk_json_array_end(j);
}

static void nothing_written(struct dpk_json *j)
{
	(void)j;
}

static void nest(struct dpk_json *j, int levels)
{
	for (int i = 0; i < levels; i++)
		dpk_json_array_begin(j, NULL);
	for (int i = 0; i < levels; i++)
		dpk_json_array_end(j);
}

static void too_deep(struct dpk_json *j)
{
	nest(j, DPK_JSON_DEPTH_MAX);
}

static void deepest(struct dpk_json *j)
{
	nest(j, DPK_JSON_DEPTH_MAX - 1);
}

struct misuse_case {
	const char *name;
	void (*fn)(struct dpk_json *);
	const char *written; /* what reached the file before the misuse */
};

static const struct misuse_case misuse_cases[] = {
        {"end without begin", end_without_begin, ""},
        {"array end closes object", array_end_closes_object, "{"},
        {"object end closes array", object_end_closes_array, "["},
        {"key in array", key_in_array, "["},
        {"no key in object", no_key_in_object, "{"},
        {"container without key in object", container_without_key_in_object, "{"},
        {"key at top level", key_at_top_level, ""},
        {"two top-level values", two_top_level_values, "1"},
        {"left open", left_open, "{\"a\":[]"},
        {"nothing written", nothing_written, ""},
        {"too deep", too_deep, NULL},
        {"digits out of range", number_series_bad_digits, "["},
};

static void misuse_returns_eio(void)
{
	for (size_t i = 0; i < sizeof(misuse_cases) / sizeof(misuse_cases[0]); i++) {
		const struct misuse_case *mc = &misuse_cases[i];
		struct doc d;

		dpk_test_note("%s", mc->name);
		write_doc(&d, mc->fn, false);
		drop_doc(&d);
		ASSERT_EQ(-EIO, d.rc);
		if (mc->written)
			ASSERT_STREQ(mc->written, d.text); /* nothing after the misuse */
	}
}

static void deepest_nesting_is_allowed(void)
{
	struct doc d;
	char want[2 * DPK_JSON_DEPTH_MAX + 2];
	int k = 0;

	write_doc(&d, deepest, false);
	drop_doc(&d);
	ASSERT_EQ(0, d.rc);
	for (int i = 0; i < DPK_JSON_DEPTH_MAX - 1; i++)
		want[k++] = '[';
	for (int i = 0; i < DPK_JSON_DEPTH_MAX - 1; i++)
		want[k++] = ']';
	want[k++] = '\n';
	want[k] = '\0';
	ASSERT_STREQ(want, d.text);
}

static void write_errors_return_eio(void)
{
	struct dpk_json j;
	FILE *f;

	/* A stream open for reading only: every write fails. */
	f = fopen("/dev/null", "r");
	ASSERT_NOT_NULL(f);
	dpk_json_init(&j, f, true);
	dpk_json_object_begin(&j, NULL);
	dpk_json_object_end(&j);
	ASSERT_EQ(-EIO, dpk_json_finish(&j));
	fclose(f);

	/* No stream at all. */
	dpk_json_init(&j, NULL, false);
	dpk_json_int(&j, NULL, 1);
	ASSERT_EQ(-EIO, dpk_json_finish(&j));

	/* A device that is always full: the buffered text fails at the flush. */
	f = fopen("/dev/full", "w");
	if (!f)
		DPK_SKIP("no /dev/full");
	dpk_json_init(&j, f, false);
	dpk_json_string(&j, NULL, "fills the buffer, fails on flush");
	ASSERT_EQ(-EIO, dpk_json_finish(&j));
	fclose(f);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(documents_have_exact_text), DPK_TEST(documents_parse_in_python),
        DPK_TEST(misuse_returns_eio),        DPK_TEST(deepest_nesting_is_allowed),
        DPK_TEST(write_errors_return_eio),
};

DPK_TEST_MAIN(cases)
