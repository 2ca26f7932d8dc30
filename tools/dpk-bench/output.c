/* SPDX-License-Identifier: BSD-3-Clause */
/* output.c - the files commands write (see output.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

/* The file @p path names: "-" is standard output. */
static const char *file_of(const char *path)
{
	return strcmp(path, "-") == 0 ? "/dev/stdout" : path;
}

/* The standard stream whose descriptor is the file @p st describes, or NULL. */
static FILE *own_stream(const struct stat *st, int *fd)
{
	static const int fds[2] = {STDOUT_FILENO, STDERR_FILENO};

	for (unsigned i = 0; i < 2; i++) {
		struct stat o;

		if (fstat(fds[i], &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino) {
			*fd = fds[i];
			return i == 0 ? stdout : stderr;
		}
	}
	return NULL;
}

/* A stream on a new descriptor of standard stream @p own (descriptor @p fd), after what it
 * holds. */
static FILE *own_copy(FILE *own, int fd)
{
	FILE *f;

	fflush(own);
	fd = dup(fd);
	f = fd < 0 ? NULL : fdopen(fd, "a");
	if (!f && fd >= 0) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

/* A stream on the FIFO write end @p o holds, now written with blocking writes. */
static FILE *fifo_stream(struct dpk_output *o)
{
	int flags = fcntl(o->fifo, F_GETFL);
	FILE *f = NULL;

	if (flags >= 0 && fcntl(o->fifo, F_SETFL, flags & ~O_NONBLOCK) == 0)
		f = fdopen(o->fifo, "w");
	if (f)
		o->fifo = -1;
	return f;
}

FILE *dpk_output_open(struct dpk_output *o)
{
	const char *path = file_of(o->path);
	struct stat st;
	FILE *f, *own;
	int fd;

	if (o->fifo >= 0)
		f = fifo_stream(o);
	else if (stat(path, &st) == 0 && (own = own_stream(&st, &fd)))
		f = own_copy(own, fd);
	else
		f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "dpk-bench: cannot write %s '%s': %s\n", o->opt, o->path,
		        strerror(errno));
	return f;
}

void dpk_output_release(struct dpk_output *o)
{
	if (o->fifo >= 0)
		close(o->fifo);
	o->fifo = -1;
}

/* The directory part of @p path, "." for a bare name, into @p dir of @p len bytes; non-zero
 * when it does not fit. */
static int dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return snprintf(dir, len, ".") >= (int)len;
	if (slash == path)
		return snprintf(dir, len, "/") >= (int)len;
	return snprintf(dir, len, "%.*s", (int)(slash - path), path) >= (int)len;
}

/* Whether fopen(@p path, "w") can succeed; 0 or -errno. */
static int check_path(const char *path)
{
	struct stat st;
	char dir[PATH_MAX];

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		/* access(), not open(): opening a FIFO's write end and closing it again would
		 * hand its reader an early end of file (hold_fifo() opens it once, and keeps
		 * it). */
		return access(path, W_OK) ? -errno : 0;
	}
	if (errno != ENOENT)
		return -errno;
	/* A new file: its directory must exist and take new entries. */
	if (dir_of(path, dir, sizeof(dir)))
		return -ENAMETOOLONG;
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

/* Hold the write end of FIFO @p path in @p o, if it has a reader; 0 or -errno. */
static int hold_fifo(struct dpk_output *o, const char *path)
{
	o->fifo = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	return o->fifo < 0 ? -errno : 0;
}

int dpk_output_prepare(struct dpk_output *o, const char *opt, const char *path, char *err,
                       size_t errlen)
{
	struct stat st, out;
	int rc;

	*o = (struct dpk_output){.opt = opt, .path = path, .fifo = -1};
	if (!path)
		return 0;
	rc = check_path(file_of(path));
	if (rc == 0 && stat(file_of(path), &st) == 0) {
		o->to_stdout = fstat(STDOUT_FILENO, &out) == 0 && st.st_dev == out.st_dev &&
		               st.st_ino == out.st_ino;
		if (S_ISFIFO(st.st_mode) && !own_stream(&st, &(int){0}))
			rc = hold_fifo(o, file_of(path));
	}
	if (rc == -ENXIO)
		snprintf(err, errlen,
		         "cannot write %s '%s': a FIFO without a reader (start its reader first; "
		         "dpk-bench does not wait for one)",
		         opt, path);
	else if (rc)
		snprintf(err, errlen, "cannot write %s '%s': %s", opt, path, strerror(-rc));
	return rc;
}

/* @p path with its directory resolved, into @p out of @p len bytes; non-zero when the
 * directory does not resolve or the result does not fit. */
static int resolve_new(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], real[PATH_MAX];

	if (dir_of(path, dir, sizeof(dir)) || !realpath(dir, real))
		return -1;
	return snprintf(out, len, "%s/%s", real, slash ? slash + 1 : path) >= (int)len;
}

int dpk_output_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char ra[PATH_MAX], rb[PATH_MAX];
	int ea, eb;

	if (!a || !b)
		return 0;
	a = file_of(a);
	b = file_of(b);
	ea = stat(a, &sa) == 0;
	eb = stat(b, &sb) == 0;
	if (ea && eb)
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (ea || eb) /* one exists, the other does not: not one file yet */
		return 0;
	return resolve_new(a, ra, sizeof(ra)) == 0 && resolve_new(b, rb, sizeof(rb)) == 0 &&
	       strcmp(ra, rb) == 0;
}

bool dpk_output_clash(const struct dpk_output *a, const struct dpk_output *b)
{
	return (a->to_stdout && b->to_stdout) || dpk_output_same(a->path, b->path);
}
