/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading a JSON file for json_read.c: a regular file only, of bounded size, and refused as
 * soon as what has been read holds more values than a document may, so that neither a
 * device nor a huge array costs more than the bytes read before it is refused.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_read.h"

/* What a file that is not a regular one is, for messages. */
static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/*
 * Open @p path for reading without blocking and check what it is before reading a byte: a
 * FIFO or a device could block the reader forever or feed it without end, so only a regular
 * file of at most DPK_JV_FILE_MAX bytes is read. Returns the descriptor, or -errno with
 * @p err set.
 */
static int open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), rc;

	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return rc;
	}
	if (fstat(fd, st) != 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot read: %s", strerror(errno));
	} else if (S_ISDIR(st->st_mode)) {
		snprintf(err, errlen, "cannot read: it is a directory");
		rc = -EISDIR;
	} else if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "cannot read: it is %s; a results file is a regular file",
		         file_kind(st->st_mode));
		rc = -EINVAL;
	} else if ((unsigned long long)st->st_size > DPK_JV_FILE_MAX) {
		snprintf(err, errlen,
		         "too large: %llu MiB, over the %llu MiB a results file may have",
		         (unsigned long long)st->st_size >> 20, DPK_JV_FILE_MAX >> 20);
		rc = -EFBIG;
	} else {
		return fd;
	}
	close(fd);
	return rc;
}

/*
 * The commas outside strings of the bytes read so far. Each one separates two array
 * elements or two object members, so a document holds more values than commas: once the
 * commas reach DPK_JV_VALUES_MAX the document cannot be parsed, and reading stops there.
 */
struct comma_count {
	size_t commas;
	bool in_string, escaped;
};

static void count_commas(struct comma_count *cc, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (cc->escaped)
			cc->escaped = false;
		else if (cc->in_string && c == '\\')
			cc->escaped = true;
		else if (c == '"')
			cc->in_string = !cc->in_string;
		else if (!cc->in_string && c == ',')
			cc->commas++;
	}
}

/* The reason reading stopped early after *n bytes: -EFBIG with @p err set, or 0. */
static int over_limits(size_t n, const struct comma_count *cc, char *err, size_t errlen)
{
	if (n > DPK_JV_FILE_MAX) { /* it grew while being read */
		snprintf(err, errlen, "too large: over the %llu MiB a results file may have",
		         DPK_JV_FILE_MAX >> 20);
		return -EFBIG;
	}
	if (cc->commas >= DPK_JV_VALUES_MAX) {
		snprintf(err, errlen,
		         "too large: more than %zu values (in its first %zu MiB), the most a "
		         "results file may hold",
		         (size_t)DPK_JV_VALUES_MAX, (n + (1u << 20) - 1) >> 20);
		return -EFBIG;
	}
	return 0;
}

/* Bytes one read() asks for: a whole file in one call would be read before it is judged. */
#define READ_CHUNK (1u << 20)

/* Read all of @p fd (a regular file of about @p size bytes) into a new buffer of *n bytes. */
static int read_all(int fd, size_t size, char **out, size_t *n, char *err, size_t errlen)
{
	size_t cap = size + 1 > 65536 ? size + 1 : 65536;
	struct comma_count cc = {0};
	char *buf = malloc(cap);
	int rc;

	*n = 0;
	while (buf) {
		ssize_t got = read(fd, buf + *n, cap - *n < READ_CHUNK ? cap - *n : READ_CHUNK);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot read: %s", strerror(errno));
			free(buf);
			return rc;
		}
		if (got == 0) {
			*out = buf;
			return 0;
		}
		count_commas(&cc, buf + *n, (size_t)got);
		*n += (size_t)got;
		if ((rc = over_limits(*n, &cc, err, errlen))) {
			free(buf);
			return rc;
		}
		if (*n == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

int dpk_jv_parse_file(const char *path, struct dpk_jv *out, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t n;
	int fd, rc;

	out->type = DPK_JV_NULL;
	fd = open_regular(path, &st, err, errlen);
	if (fd < 0)
		return fd;
	rc = read_all(fd, (size_t)st.st_size, &buf, &n, err, errlen);
	close(fd);
	if (rc)
		return rc;
	rc = dpk_jv_parse(buf, n, out, err, errlen);
	free(buf);
	return rc;
}
