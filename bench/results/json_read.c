/* SPDX-License-Identifier: BSD-3-Clause */
/* A recursive-descent JSON reader with positions in every value and in every error. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_read.h"

struct parser {
	const unsigned char *p, *end;
	unsigned line, col;
	char *err;
	size_t errlen;
	int rc;                    /* first error: -EINVAL, -EFBIG or -ENOMEM */
	size_t values, max_values; /* values begun so far, and the most allowed */
};

const char *dpk_jv_type_name(enum dpk_jv_type t)
{
	switch (t) {
	case DPK_JV_NULL:
		return "null";
	case DPK_JV_BOOL:
		return "a boolean";
	case DPK_JV_NUMBER:
		return "a number";
	case DPK_JV_STRING:
		return "a string";
	case DPK_JV_ARRAY:
		return "an array";
	case DPK_JV_OBJECT:
		return "an object";
	}
	return "?";
}

/* Describe what is at the cursor for "found ..." in messages. */
static void describe_here(const struct parser *ps, char *buf, size_t len)
{
	unsigned char c;

	if (ps->p >= ps->end) {
		snprintf(buf, len, "the end of the file");
		return;
	}
	c = *ps->p;
	if (c == '"')
		snprintf(buf, len, "a string");
	else if (c >= 0x21 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		snprintf(buf, len, "white space");
	else
		snprintf(buf, len, "byte 0x%02x", c);
}

static void fail_at(struct parser *ps, unsigned line, unsigned col, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static void fail_at(struct parser *ps, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (ps->rc)
		return;
	ps->rc = -EINVAL;
	if (!ps->err || !ps->errlen)
		return;
	w = snprintf(ps->err, ps->errlen, "line %u, column %u: ", line, col);
	if (w < 0 || (size_t)w >= ps->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(ps->err + w, ps->errlen - (size_t)w, fmt, ap);
	va_end(ap);
	dpk_utf8_cut(ps->err);
}

/* "expected X, found Y" at the cursor, with a hint when the input ran out. */
static void expected(struct parser *ps, const char *what)
{
	char found[32];

	describe_here(ps, found, sizeof(found));
	if (ps->p >= ps->end)
		fail_at(ps, ps->line, ps->col,
		        "expected %s, found %s (the file ends early; is it "
		        "truncated?)",
		        what, found);
	else
		fail_at(ps, ps->line, ps->col, "expected %s, found %s", what, found);
}

/* One value more than the document may hold: refused before it costs memory. */
static void too_many(struct parser *ps)
{
	if (ps->rc)
		return;
	fail_at(ps, ps->line, ps->col, "more than %zu values, the most a document may hold",
	        ps->max_values);
	ps->rc = -EFBIG;
}

static void nomem(struct parser *ps)
{
	if (ps->rc)
		return;
	ps->rc = -ENOMEM;
	if (ps->err && ps->errlen)
		snprintf(ps->err, ps->errlen, "out of memory");
}

/* Advance one byte, keeping line and column (a column counts UTF-8 sequences). */
static void advance(struct parser *ps)
{
	unsigned char c = *ps->p++;

	if (c == '\n') {
		ps->line++;
		ps->col = 1;
	} else if ((c & 0xc0) != 0x80) {
		ps->col++;
	}
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		advance(ps);
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return false;
	for (size_t i = 0; i < n; i++)
		advance(ps);
	return true;
}

static int hex4(const unsigned char *s, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		unsigned char c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Find the closing quote of the string at the cursor, to size its copy and to report an
 * unterminated string where it starts. NULL (and an error) when there is none. */
static const unsigned char *string_end(struct parser *ps)
{
	const unsigned char *q = ps->p + 1;

	while (q < ps->end && *q != '"') {
		if (*q == '\\' && q + 1 < ps->end)
			q++;
		q++;
	}
	if (q < ps->end)
		return q;
	fail_at(ps, ps->line, ps->col,
	        "unterminated string (no closing '\"' before the end of the file; is it "
	        "truncated?)");
	return NULL;
}

/* The \u escape at the cursor (on its 'u'), a surrogate pair joined, into *o. A lone
 * surrogate is refused: it is no character, and no UTF-8 can hold it. So is U+0000, which
 * would cut the C string every reader of the tree takes. */
static int unicode_escape(struct parser *ps, unsigned eline, unsigned ecol, char **o)
{
	unsigned cp, lo;

	if (ps->end - ps->p < 5 || hex4(ps->p + 1, &cp)) {
		fail_at(ps, eline, ecol, "bad \\u escape (four hex digits expected)");
		return -1;
	}
	for (int i = 0; i < 4; i++)
		advance(ps);
	if (cp >= 0xd800 && cp < 0xdc00 && ps->end - ps->p >= 7 && ps->p[1] == '\\' &&
	    ps->p[2] == 'u' && hex4(ps->p + 3, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		for (int i = 0; i < 6; i++)
			advance(ps);
	} else if (cp >= 0xd800 && cp < 0xe000) {
		fail_at(ps, eline, ecol,
		        "lone surrogate \\u%04x in a string (a high surrogate must be followed by "
		        "a low one)",
		        cp);
		return -1;
	} else if (cp == 0) {
		fail_at(ps, eline, ecol, "\\u0000 in a string (U+0000 is not allowed)");
		return -1;
	}
	*o += put_utf8(*o, cp);
	return 0;
}

/* The escape at the cursor (on its backslash) into *o, and the cursor past it. */
static int escape(struct parser *ps, char **o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	unsigned eline = ps->line, ecol = ps->col;
	const char *k = NULL;
	unsigned char c;

	advance(ps);
	c = *ps->p;
	if (c == 'u') {
		if (unicode_escape(ps, eline, ecol, o))
			return -1;
	} else if (c && (k = strchr(from, c)) != NULL) {
		*(*o)++ = to[k - from];
	} else {
		fail_at(ps, eline, ecol, "unknown escape '\\%c' in a string",
		        c >= 0x21 && c < 0x7f ? c : '?');
		return -1;
	}
	advance(ps);
	return 0;
}

/* The raw character at the cursor into *o: printable ASCII or well-formed UTF-8. */
static int raw_char(struct parser *ps, char **o)
{
	size_t skip, len;

	if (*ps->p < 0x20) {
		fail_at(ps, ps->line, ps->col,
		        "control character U+%04X in a string (it must be escaped)", *ps->p);
		return -1;
	}
	len = dpk_utf8_seq((const char *)ps->p, (size_t)(ps->end - ps->p), &skip);
	if (len == 0) {
		fail_at(ps, ps->line, ps->col,
		        "invalid UTF-8 (byte 0x%02x) in a string; the file must be UTF-8", *ps->p);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		*(*o)++ = (char)*ps->p;
		advance(ps);
	}
	return 0;
}

/*
 * Parse a string at the cursor (on its opening quote). The decoded text is never longer
 * than the source, so one allocation of the source length suffices.
 */
static char *parse_string(struct parser *ps, size_t *len_out)
{
	const unsigned char *q = string_end(ps);
	char *out, *o;

	if (!q)
		return NULL;
	out = malloc((size_t)(q - ps->p));
	if (!out) {
		nomem(ps);
		return NULL;
	}
	o = out;
	advance(ps); /* the opening quote */
	while (*ps->p != '"') {
		if (*ps->p != '\\' ? raw_char(ps, &o) : escape(ps, &o)) {
			free(out);
			return NULL;
		}
	}
	advance(ps); /* the closing quote */
	*o = '\0';
	*len_out = (size_t)(o - out);
	return out;
}

static bool is_digit(const struct parser *ps, const unsigned char *q)
{
	return q < ps->end && *q >= '0' && *q <= '9';
}

/* A number by the JSON grammar, then strtod on a bounded copy. */
static int parse_number(struct parser *ps, struct dpk_jv *v)
{
	const unsigned char *q = ps->p;
	char buf[64], *endp;
	size_t n;

	if (q < ps->end && *q == '-')
		q++;
	if (!is_digit(ps, q)) {
		while (ps->p < q)
			advance(ps);
		expected(ps, "a digit");
		return -1;
	}
	if (*q == '0' && is_digit(ps, q + 1)) {
		fail_at(ps, ps->line, ps->col, "a number may not start with 0 (leading zeros)");
		return -1;
	}
	while (is_digit(ps, q))
		q++;
	if (q < ps->end && *q == '.') {
		q++;
		if (!is_digit(ps, q)) {
			while (ps->p < q)
				advance(ps);
			expected(ps, "a digit after the decimal point");
			return -1;
		}
		while (is_digit(ps, q))
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (!is_digit(ps, q)) {
			while (ps->p < q)
				advance(ps);
			expected(ps, "a digit in the exponent");
			return -1;
		}
		while (is_digit(ps, q))
			q++;
	}
	n = (size_t)(q - ps->p);
	if (n >= sizeof(buf)) {
		fail_at(ps, ps->line, ps->col, "number too long (%zu characters)", n);
		return -1;
	}
	memcpy(buf, ps->p, n);
	buf[n] = '\0';
	v->type = DPK_JV_NUMBER;
	v->num = strtod(buf, &endp);
	if (!isfinite(v->num)) {
		fail_at(ps, ps->line, ps->col, "number %s is out of range", buf);
		return -1;
	}
	while (ps->p < q)
		advance(ps);
	return 0;
}

/* The start of name @p s for a message, in @p out: whole UTF-8 sequences, each control
 * character as '?', and "..." where it is cut. */
static void excerpt(const char *s, char *out, size_t outlen)
{
	size_t n = strlen(s), o = 0, skip;

	for (size_t i = 0; i < n; i += skip) {
		size_t len = dpk_utf8_seq(s + i, n - i, &skip);

		if (o + len + 4 > outlen) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (dpk_utf8_control(s + i, len)) {
			out[o++] = '?';
		} else {
			memcpy(out + o, s + i, len);
			o += len;
		}
	}
	out[o] = '\0';
}

static int parse_value(struct parser *ps, struct dpk_jv *v, int depth);

static int parse_array(struct parser *ps, struct dpk_jv *v, int depth)
{
	size_t cap = 0;

	v->type = DPK_JV_ARRAY;
	v->arr.v = NULL;
	v->arr.n = 0;
	advance(ps); /* '[' */
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		advance(ps);
		return 0;
	}
	for (;;) {
		if (v->arr.n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct dpk_jv *nv = realloc(v->arr.v, ncap * sizeof(*nv));
			if (!nv) {
				nomem(ps);
				return -1;
			}
			v->arr.v = nv;
			cap = ncap;
		}
		skip_ws(ps);
		if (parse_value(ps, &v->arr.v[v->arr.n], depth + 1)) {
			/* The failed element may own memory; free it with the array. */
			v->arr.n++;
			return -1;
		}
		v->arr.n++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			advance(ps);
			skip_ws(ps);
			if (ps->p < ps->end && *ps->p == ']') {
				fail_at(ps, ps->line, ps->col,
				        "expected a value after ',', found ']' (trailing comma)");
				return -1;
			}
			continue;
		}
		if (ps->p < ps->end && *ps->p == ']') {
			advance(ps);
			return 0;
		}
		expected(ps, "',' or ']' after an array element");
		return -1;
	}
}

static int parse_object(struct parser *ps, struct dpk_jv *v, int depth)
{
	size_t cap = 0;

	v->type = DPK_JV_OBJECT;
	v->obj.m = NULL;
	v->obj.n = 0;
	advance(ps); /* '{' */
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		advance(ps);
		return 0;
	}
	for (;;) {
		struct dpk_jv_member *m;
		size_t klen;

		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != '"') {
			if (ps->p < ps->end && *ps->p == '}')
				fail_at(ps, ps->line, ps->col,
				        "expected a member name after ',', found '}' (trailing "
				        "comma)");
			else
				expected(ps, "a member name in double quotes");
			return -1;
		}
		if (v->obj.n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct dpk_jv_member *nm = realloc(v->obj.m, ncap * sizeof(*nm));
			if (!nm) {
				nomem(ps);
				return -1;
			}
			v->obj.m = nm;
			cap = ncap;
		}
		m = &v->obj.m[v->obj.n];
		m->value.type = DPK_JV_NULL;
		m->key = parse_string(ps, &klen);
		if (!m->key)
			return -1;
		v->obj.n++;
		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != ':') {
			char what[96], name[48];

			excerpt(m->key, name, sizeof(name));
			snprintf(what, sizeof(what), "':' after the member name \"%s\"", name);
			expected(ps, what);
			return -1;
		}
		advance(ps);
		skip_ws(ps);
		if (parse_value(ps, &m->value, depth + 1))
			return -1;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			advance(ps);
			continue;
		}
		if (ps->p < ps->end && *ps->p == '}') {
			advance(ps);
			return 0;
		}
		expected(ps, "',' or '}' after an object member");
		return -1;
	}
}

static int parse_value(struct parser *ps, struct dpk_jv *v, int depth)
{
	v->type = DPK_JV_NULL;
	v->line = ps->line;
	v->col = ps->col;
	if (depth > DPK_JV_DEPTH_MAX) {
		fail_at(ps, ps->line, ps->col, "nested deeper than %d levels", DPK_JV_DEPTH_MAX);
		return -1;
	}
	if (++ps->values > ps->max_values) {
		too_many(ps);
		return -1;
	}
	if (ps->p >= ps->end) {
		expected(ps, "a value");
		return -1;
	}
	switch (*ps->p) {
	case '{':
		return parse_object(ps, v, depth);
	case '[':
		return parse_array(ps, v, depth);
	case '"': {
		size_t len;
		char *s = parse_string(ps, &len);
		if (!s)
			return -1;
		v->type = DPK_JV_STRING;
		v->str.s = s;
		v->str.len = len;
		return 0;
	}
	case 't':
		if (literal(ps, "true")) {
			v->type = DPK_JV_BOOL;
			v->b = true;
			return 0;
		}
		break;
	case 'f':
		if (literal(ps, "false")) {
			v->type = DPK_JV_BOOL;
			v->b = false;
			return 0;
		}
		break;
	case 'n':
		if (literal(ps, "null"))
			return 0;
		break;
	case '-':
	case '0':
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
	case '8':
	case '9':
		return parse_number(ps, v);
	default:
		break;
	}
	if ((size_t)(ps->end - ps->p) >= 3 &&
	    (memcmp(ps->p, "NaN", 3) == 0 || memcmp(ps->p, "Inf", 3) == 0))
		fail_at(ps, ps->line, ps->col,
		        "expected a value, found '%c' (NaN and Infinity are not JSON)", *ps->p);
	else
		expected(ps, "a value (object, array, string, number, true, false or null)");
	return -1;
}

int dpk_jv_parse(const char *text, size_t len, struct dpk_jv *out, char *err, size_t errlen)
{
	return dpk_jv_parse_max(text, len, DPK_JV_VALUES_MAX, out, err, errlen);
}

int dpk_jv_parse_max(const char *text, size_t len, size_t max_values, struct dpk_jv *out, char *err,
                     size_t errlen)
{
	struct parser ps = {
	        .p = (const unsigned char *)text,
	        .end = (const unsigned char *)text + len,
	        .line = 1,
	        .col = 1,
	        .err = err,
	        .errlen = errlen,
	        .max_values = max_values,
	};

	if (err && errlen)
		err[0] = '\0';
	out->type = DPK_JV_NULL;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		ps.p += 3;
	skip_ws(&ps);
	if (ps.p >= ps.end) {
		if (err && errlen)
			snprintf(err, errlen, "the file is empty (no JSON value)");
		return -EINVAL;
	}
	if (parse_value(&ps, out, 0) == 0) {
		skip_ws(&ps);
		if (ps.p < ps.end) {
			char found[32];
			describe_here(&ps, found, sizeof(found));
			fail_at(&ps, ps.line, ps.col,
			        "unexpected %s after the end of the JSON value (only one value is "
			        "allowed)",
			        found);
		}
	}
	if (ps.rc) {
		dpk_jv_free(out);
		return ps.rc;
	}
	return 0;
}

void dpk_jv_free(struct dpk_jv *v)
{
	if (!v)
		return;
	switch (v->type) {
	case DPK_JV_STRING:
		free(v->str.s);
		break;
	case DPK_JV_ARRAY:
		for (size_t i = 0; i < v->arr.n; i++)
			dpk_jv_free(&v->arr.v[i]);
		free(v->arr.v);
		break;
	case DPK_JV_OBJECT:
		for (size_t i = 0; i < v->obj.n; i++) {
			free(v->obj.m[i].key);
			dpk_jv_free(&v->obj.m[i].value);
		}
		free(v->obj.m);
		break;
	default:
		break;
	}
	v->type = DPK_JV_NULL;
}

const struct dpk_jv *dpk_jv_get(const struct dpk_jv *obj, const char *key)
{
	if (!obj || obj->type != DPK_JV_OBJECT)
		return NULL;
	for (size_t i = obj->obj.n; i-- > 0;)
		if (strcmp(obj->obj.m[i].key, key) == 0)
			return &obj->obj.m[i].value;
	return NULL;
}
