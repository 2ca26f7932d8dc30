/* SPDX-License-Identifier: BSD-3-Clause */
/* json.c - the streaming JSON writer behind json.h. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json.h"

static_assert(DPK_JSON_DEPTH_MAX <= 32, "one bit of dpk_json.object per depth");

void dpk_json_init(struct dpk_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true; /* the top-level value is not written yet */
	j->error = f == NULL;
}

static void put(struct dpk_json *j, const char *s)
{
	if (!j->error && fputs(s, j->f) == EOF)
		j->error = true;
}

static void put_char(struct dpk_json *j, char c)
{
	if (!j->error && fputc(c, j->f) == EOF)
		j->error = true;
}

static void newline_indent(struct dpk_json *j, int depth)
{
	if (!j->pretty)
		return;
	put_char(j, '\n');
	for (int i = 0; i < depth; i++)
		put(j, "  ");
}

/* Bytes a well-formed UTF-8 sequence starting with @p b has, and the range its second byte
 * must lie in (which excludes overlong forms, surrogates and code points past U+10FFFF).
 * 0 for a byte that cannot start a sequence. */
static int utf8_len(unsigned char b, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (b >= 0xc2 && b <= 0xdf)
		return 2;
	if (b >= 0xe0 && b <= 0xef) {
		if (b == 0xe0)
			*lo = 0xa0;
		else if (b == 0xed)
			*hi = 0x9f;
		return 3;
	}
	if (b >= 0xf0 && b <= 0xf4) {
		if (b == 0xf0)
			*lo = 0x90;
		else if (b == 0xf4)
			*hi = 0x8f;
		return 4;
	}
	return 0;
}

size_t dpk_utf8_seq(const char *s, size_t n, size_t *skip)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo, hi;
	int len = n ? utf8_len(p[0], &lo, &hi) : 0;
	size_t k;

	if (n && p[0] < 0x80)
		return *skip = 1;
	for (k = 1; len && k < (size_t)len && k < n; k++)
		if (k == 1 ? p[k] < lo || p[k] > hi : p[k] < 0x80 || p[k] > 0xbf)
			break;
	*skip = n ? k : 0;
	return len && k == (size_t)len ? k : 0;
}

bool dpk_utf8_control(const char *s, size_t len)
{
	const unsigned char b = (unsigned char)s[0];

	return (len == 1 && (b < 0x20 || b == 0x7f)) ||
	       (len == 2 && b == 0xc2 && (unsigned char)s[1] < 0xa0);
}

void dpk_utf8_cut(char *s)
{
	size_t n = strlen(s), i = 0, skip;

	while (i < n && (dpk_utf8_seq(s + i, n - i, &skip) || i + skip < n))
		i += skip;
	s[i] = '\0';
}

/*
 * A quoted, escaped string. Each ill-formed UTF-8 sequence (the longest prefix of a valid
 * sequence, or one stray byte) becomes one U+FFFD, as the Unicode standard recommends, so
 * the output is always valid JSON in valid UTF-8.
 */
static void put_string(struct dpk_json *j, const char *str)
{
	size_t n = strlen(str), skip;
	char esc[8];

	put_char(j, '"');
	while (n && !j->error) {
		unsigned char b = (unsigned char)*str;

		if (b < 0x80) {
			switch (b) {
			case '"':
				put(j, "\\\"");
				break;
			case '\\':
				put(j, "\\\\");
				break;
			case '\b':
				put(j, "\\b");
				break;
			case '\f':
				put(j, "\\f");
				break;
			case '\n':
				put(j, "\\n");
				break;
			case '\r':
				put(j, "\\r");
				break;
			case '\t':
				put(j, "\\t");
				break;
			default:
				if (b < 0x20 || b == 0x7f) {
					snprintf(esc, sizeof(esc), "\\u%04x", b);
					put(j, esc);
				} else {
					put_char(j, (char)b);
				}
			}
			str++;
			n--;
			continue;
		}
		if (dpk_utf8_seq(str, n, &skip) == 0)
			put(j, "\\ufffd");
		else if (fwrite(str, 1, skip, j->f) != skip)
			j->error = true;
		str += skip;
		n -= skip;
	}
	put_char(j, '"');
}

/* Everything before a value: checks the key against the container, writes the comma, the
 * indentation and the key. False (with error set) on misuse. */
static bool prefix(struct dpk_json *j, const char *key)
{
	int d;

	if (j->error)
		return false;
	d = j->depth;
	if (d == 0) {
		if (key || !j->first[0]) {
			j->error = true;
			return false;
		}
		j->first[0] = false;
		return true;
	}
	if ((key != NULL) != ((j->object >> d) & 1)) {
		j->error = true;
		return false;
	}
	if (!j->first[d])
		put_char(j, ',');
	j->first[d] = false;
	newline_indent(j, d);
	if (key) {
		put_string(j, key);
		put(j, j->pretty ? ": " : ":");
	}
	return !j->error;
}

static void begin(struct dpk_json *j, const char *key, bool object)
{
	if (j->error)
		return;
	if (j->depth + 1 >= DPK_JSON_DEPTH_MAX) {
		j->error = true;
		return;
	}
	if (!prefix(j, key))
		return;
	put_char(j, object ? '{' : '[');
	j->depth++;
	j->first[j->depth] = true;
	if (object)
		j->object |= UINT32_C(1) << j->depth;
	else
		j->object &= ~(UINT32_C(1) << j->depth);
}

static void end(struct dpk_json *j, bool object)
{
	int d = j->depth;

	if (j->error)
		return;
	if (d == 0 || ((j->object >> d) & 1) != object) {
		j->error = true;
		return;
	}
	if (!j->first[d])
		newline_indent(j, d - 1);
	put_char(j, object ? '}' : ']');
	j->depth--;
}

void dpk_json_object_begin(struct dpk_json *j, const char *key)
{
	begin(j, key, true);
}

void dpk_json_object_end(struct dpk_json *j)
{
	end(j, true);
}

void dpk_json_array_begin(struct dpk_json *j, const char *key)
{
	begin(j, key, false);
}

void dpk_json_array_end(struct dpk_json *j)
{
	end(j, false);
}

void dpk_json_string(struct dpk_json *j, const char *key, const char *value)
{
	if (!prefix(j, key))
		return;
	if (value)
		put_string(j, value);
	else
		put(j, "null");
}

void dpk_json_int(struct dpk_json *j, const char *key, int64_t value)
{
	char buf[32];

	if (!prefix(j, key))
		return;
	snprintf(buf, sizeof(buf), "%" PRId64, value);
	put(j, buf);
}

void dpk_json_uint(struct dpk_json *j, const char *key, uint64_t value)
{
	char buf[32];

	if (!prefix(j, key))
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	put(j, buf);
}

/* @p value to @p digits significant digits, or null. */
static void put_number(struct dpk_json *j, double value, int digits)
{
	char buf[40];

	if (!isfinite(value)) {
		put(j, "null");
		return;
	}
	snprintf(buf, sizeof(buf), "%.*g", digits, value);
	/* A locale with a decimal comma must not leak into JSON. */
	for (char *c = buf; *c; c++)
		if (!(*c >= '0' && *c <= '9') && *c != '-' && *c != '+' && *c != 'e')
			*c = '.';
	put(j, buf);
}

void dpk_json_double(struct dpk_json *j, const char *key, double value)
{
	if (prefix(j, key))
		put_number(j, value, 17);
}

void dpk_json_numbers(struct dpk_json *j, const char *key, const double *v, size_t n, int digits)
{
	if (digits < 1 || digits > 17)
		j->error = true;
	if (!prefix(j, key))
		return;
	put_char(j, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			put_char(j, ',');
		put_number(j, v[i], digits);
	}
	put_char(j, ']');
}

void dpk_json_bool(struct dpk_json *j, const char *key, bool value)
{
	if (prefix(j, key))
		put(j, value ? "true" : "false");
}

void dpk_json_null(struct dpk_json *j, const char *key)
{
	if (prefix(j, key))
		put(j, "null");
}

int dpk_json_finish(struct dpk_json *j)
{
	if (j->depth != 0 || j->first[0])
		j->error = true;
	put_char(j, '\n');
	if (j->f && (fflush(j->f) == EOF || ferror(j->f)))
		j->error = true;
	return j->error ? -EIO : 0;
}
