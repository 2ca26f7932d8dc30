/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * json.h - a small streaming JSON writer for reports: objects and arrays nest, commas and
 * indentation are handled, strings are escaped (control characters, quotes, backslash,
 * invalid UTF-8 replaced by U+FFFD), non-finite numbers are written as null.
 */
#ifndef DPK_BENCH_JSON_H
#define DPK_BENCH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Depth 0 is the top level, so at most DPK_JSON_DEPTH_MAX - 1 containers can be open. */
#define DPK_JSON_DEPTH_MAX 32

struct dpk_json {
	FILE *f;
	int depth;
	bool first[DPK_JSON_DEPTH_MAX]; /* no member written yet at this depth */
	uint32_t object;                /* bit d: the container at depth d is an object */
	bool pretty;
	bool error; /* nesting misuse or a write failed */
};

void dpk_json_init(struct dpk_json *j, FILE *f, bool pretty);

/*
 * Inside an object every value needs a key; inside an array and at the top level the key
 * must be NULL; there is one top-level value. A call that breaks these rules, an end that
 * does not match the open container, or nesting past the limit writes nothing, sets error,
 * and turns every later call into a no-op. Pretty output indents by two spaces per level
 * and writes empty containers as {} and []; compact output has no whitespace at all.
 */

/* Containers. A NULL key writes an array element (or the top-level value). */
void dpk_json_object_begin(struct dpk_json *j, const char *key);
void dpk_json_object_end(struct dpk_json *j);
void dpk_json_array_begin(struct dpk_json *j, const char *key);
void dpk_json_array_end(struct dpk_json *j);

/* Values. */
void dpk_json_string(struct dpk_json *j, const char *key, const char *value); /* NULL -> null */
void dpk_json_int(struct dpk_json *j, const char *key, int64_t value);
void dpk_json_uint(struct dpk_json *j, const char *key, uint64_t value);
void dpk_json_double(struct dpk_json *j, const char *key, double value); /* %.17g or null */
void dpk_json_bool(struct dpk_json *j, const char *key, bool value);
void dpk_json_null(struct dpk_json *j, const char *key);
/* An array of @p n numbers on one line, pretty or not, each to @p digits significant
 * digits (1 to 17; non-finite ones as null): long series stay a line each, and short. */
void dpk_json_numbers(struct dpk_json *j, const char *key, const double *v, size_t n, int digits);

/* Finish: newline after the top-level value, flush; 0 on success, -EIO if anything failed
 * (a write error, misuse, containers left open, or no value written). */
int dpk_json_finish(struct dpk_json *j);

/* The UTF-8 sequence at @p s, of the @p n bytes there: its length (1 to 4) when it is
 * well-formed (RFC 3629: no overlong form, surrogate or code point past U+10FFFF), else 0.
 * *skip is the bytes to step over either way: the sequence, or the longest prefix of one
 * that an ill-formed sequence starts with (at least one byte), which a decoder replaces by
 * one U+FFFD; 0 only when @p n is 0. */
size_t dpk_utf8_seq(const char *s, size_t n, size_t *skip);

/* Whether the well-formed UTF-8 sequence of @p len bytes at @p s is a control character:
 * C0 (U+0000-U+001F), DEL or C1 (U+0080-U+009F). */
bool dpk_utf8_control(const char *s, size_t len);

/* Cut @p s after its last whole UTF-8 sequence: a text that snprintf() cut to its buffer
 * may end inside one. */
void dpk_utf8_cut(char *s);

#endif /* DPK_BENCH_JSON_H */
