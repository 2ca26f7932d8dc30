/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * json_read.h - a small JSON reader: parses a whole document (RFC 8259) into a tree of
 * values, for dpk-bench's compare and report commands, which read result files back.
 *
 * Errors say where and what: "line 12, column 5: expected ',' or '}' after an object
 * member, found ']'". Columns count characters (UTF-8 sequences), from 1. A document that
 * stops early says so ("the file ends early; is it truncated?"). Nesting is limited to
 * DPK_JV_DEPTH_MAX levels so no input can exhaust the stack.
 *
 * Every value remembers the line and column where it starts, so later checks of the
 * document's shape can point at the offending value too. Strings are NUL-terminated
 * copies in well-formed UTF-8: a document with invalid UTF-8, a lone surrogate escape
 * (\ud800) or \u0000 is refused, so no string is cut short or holds what no UTF-8 reader
 * can show. Numbers are doubles. Object members keep their order; dpk_jv_get() finds the
 * last member of a name, as most readers do.
 *
 * Memory is bounded: a file holds at most DPK_JV_FILE_MAX bytes and a document at most
 * DPK_JV_VALUES_MAX values (a value costs sizeof(struct dpk_jv) bytes of the tree, a
 * member that and its name), and a file is refused as soon as what has been read of it
 * holds more values, before the rest is read.
 * Nothing here is shared between threads; a parsed tree is read-only and may be read from
 * several threads at once.
 */
#ifndef DPK_BENCH_JSON_READ_H
#define DPK_BENCH_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#define DPK_JV_DEPTH_MAX 64

/** The largest file dpk_jv_parse_file() reads: eight times a default run with --raw. */
#define DPK_JV_FILE_MAX (256ull << 20)

/** The most values a document may hold (array elements and member values, containers
 *  included): four times those of a default run with --raw. */
#define DPK_JV_VALUES_MAX (16u << 20)

enum dpk_jv_type {
	DPK_JV_NULL,
	DPK_JV_BOOL,
	DPK_JV_NUMBER,
	DPK_JV_STRING,
	DPK_JV_ARRAY,
	DPK_JV_OBJECT,
};

struct dpk_jv_member;

/** A JSON value. */
struct dpk_jv {
	enum dpk_jv_type type;
	unsigned line, col; /**< where the value starts, from 1 */
	union {
		bool b;     /**< DPK_JV_BOOL */
		double num; /**< DPK_JV_NUMBER */
		struct {
			char *s;    /**< NUL-terminated copy, in UTF-8 */
			size_t len; /**< bytes, without the terminator */
		} str;              /**< DPK_JV_STRING */
		struct {
			struct dpk_jv *v;
			size_t n;
		} arr; /**< DPK_JV_ARRAY */
		struct {
			struct dpk_jv_member *m;
			size_t n;
		} obj; /**< DPK_JV_OBJECT */
	};
};

/** An object member: its name and value. */
struct dpk_jv_member {
	char *key;
	struct dpk_jv value;
};

/**
 * Parse the @p len bytes at @p text as one JSON document into @p out (free it with
 * dpk_jv_free). A UTF-8 byte order mark is skipped; anything but white space after the
 * value is an error.
 * @retval 0 parsed
 * @retval -EINVAL not valid JSON (or not UTF-8, or with \u0000); @p err says where and what
 *         was expected
 * @retval -EFBIG more than DPK_JV_VALUES_MAX values
 * @retval -ENOMEM out of memory
 */
int dpk_jv_parse(const char *text, size_t len, struct dpk_jv *out, char *err, size_t errlen);

/** As dpk_jv_parse(), with at most @p max_values values instead of DPK_JV_VALUES_MAX. */
int dpk_jv_parse_max(const char *text, size_t len, size_t max_values, struct dpk_jv *out, char *err,
                     size_t errlen);

/**
 * Read the file at @p path and parse it as with dpk_jv_parse(). Only a regular file is read:
 * the path is opened without blocking and checked before a byte is read, so a FIFO or a
 * device is refused at once instead of blocking the reader or feeding it without end.
 * Messages do not repeat the path; callers prefix it.
 * @retval 0 parsed
 * @retval -ENOENT, -EACCES, -EISDIR, ... the file cannot be read; @p err says why
 * @retval -EFBIG larger than DPK_JV_FILE_MAX bytes, or more than DPK_JV_VALUES_MAX values
 * @retval -EINVAL not a regular file (a FIFO, a device), or not valid JSON (or empty);
 *         @p err says which
 * @retval -ENOMEM out of memory
 */
int dpk_jv_parse_file(const char *path, struct dpk_jv *out, char *err, size_t errlen);

/** Free what @p v owns (not @p v itself) and make it null. */
void dpk_jv_free(struct dpk_jv *v);

/** The member @p key of object @p obj (the last one of that name), or NULL. */
const struct dpk_jv *dpk_jv_get(const struct dpk_jv *obj, const char *key);

/** "null", "a boolean", "a number", "a string", "an array", "an object". */
const char *dpk_jv_type_name(enum dpk_jv_type t);

#endif /* DPK_BENCH_JSON_READ_H */
