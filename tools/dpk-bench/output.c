/* SPDX-License-Identifier: BSD-3-Clause */
/* output.c - result files, opened only once the run has finished (see output.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

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

FILE *dpk_output_open(const char *opt, const char *path)
{
	struct stat st;
	FILE *f = NULL;
	int fd;

	if (stat(path, &st) == 0) {
		FILE *own = own_stream(&st, &fd);

		if (own) {
			/* What the stream holds goes first; then the results, after it. */
			fflush(own);
			fd = dup(fd);
			f = fd < 0 ? NULL : fdopen(fd, "a");
			if (!f && fd >= 0) {
				int e = errno;

				close(fd);
				errno = e;
			}
			goto out;
		}
	}
	f = fopen(path, "w");
out:
	if (!f)
		fprintf(stderr, "dpk-bench: cannot write %s '%s': %s\n", opt, path,
		        strerror(errno));
	return f;
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

int dpk_output_check(const char *path)
{
	struct stat st;
	char dir[PATH_MAX];

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		/* access(), not open(): opening a FIFO's write end and closing it again would
		 * hand its reader an early end of file. */
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
	ea = stat(a, &sa) == 0;
	eb = stat(b, &sb) == 0;
	if (ea && eb)
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (ea || eb) /* one exists, the other does not: not one file yet */
		return 0;
	return resolve_new(a, ra, sizeof(ra)) == 0 && resolve_new(b, rb, sizeof(rb)) == 0 &&
	       strcmp(ra, rb) == 0;
}
