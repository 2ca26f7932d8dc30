/* SPDX-License-Identifier: BSD-3-Clause */
/* output.c - result files written whole or not at all (see output.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

/*
 * Temporary files not yet committed, removed at exit and by the signals that end a run.
 * Only the main thread opens and commits outputs; a handler runs on whichever thread takes
 * the signal, an lcore's as well. A slot is used once: its path is written, then its flag
 * raised (P1, release, pairs with P3, acquire, in remove_pending(): a handler that sees
 * the flag reads the whole path), later lowered (P2), and never written again. A handler
 * that still sees a lowered flag up unlinks a name that the commit has renamed or removed,
 * which does nothing. Lock-free atomics are safe in a signal handler.
 */
#define PENDING_MAX 4

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs lock-free flags");

static char pending_path[PENDING_MAX][PATH_MAX];
static atomic_int pending_live[PENDING_MAX];
static bool cleanup_installed;

static void remove_pending(void)
{
	for (unsigned i = 0; i < PENDING_MAX; i++)
		/* P3: pairs with P1; the path read after it is whole. */
		if (atomic_load_explicit(&pending_live[i], memory_order_acquire))
			unlink(pending_path[i]);
}

/* Async-signal-safe: lock-free atomic loads, unlink(), signal() and raise() only. */
static void on_signal(int sig)
{
	remove_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_cleanup(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

	if (cleanup_installed)
		return;
	cleanup_installed = true;
	atexit(remove_pending);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa = {.sa_handler = on_signal};

		/* A signal the caller ignores (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) {
			sigemptyset(&sa.sa_mask);
			sigaction(sigs[i], &sa, NULL);
		}
	}
}

/* Note @p path as pending, in a slot of its own; when all have been used (more outputs
 * than a run has), it is only cleaned up by its commit. */
static void pending_add(const char *path)
{
	static int used;

	if (used == PENDING_MAX)
		return;
	snprintf(pending_path[used], sizeof(pending_path[used]), "%s", path);
	/* P1: pairs with P3; the path is whole before the flag says so. */
	atomic_store_explicit(&pending_live[used], 1, memory_order_release);
	used++;
}

static void pending_drop(const char *path)
{
	for (int i = 0; i < PENDING_MAX; i++)
		/* Relaxed: only this thread writes the flags, and a slot's path never changes. */
		if (atomic_load_explicit(&pending_live[i], memory_order_relaxed) &&
		    strcmp(pending_path[i], path) == 0)
			/* P2: relaxed for the same reason; see above for a handler that misses it.
			 */
			atomic_store_explicit(&pending_live[i], 0, memory_order_relaxed);
}

static int fail(const struct dpk_output *o, int rc, const char *what)
{
	fprintf(stderr, "dpk-bench: cannot %s %s '%s': %s\n", what, o->opt, o->path, strerror(-rc));
	return rc;
}

/* Where a file created at @p path lands, into @p out of @p len bytes: @p path itself, or
 * the end of the chain of links it starts (a link whose target does not exist yet, as
 * open(O_CREAT) would follow it), at most 8 links deep. Non-zero when it does not fit. */
static int follow_links(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];

	if (snprintf(out, len, "%s", path) >= (int)len)
		return -1;
	for (unsigned hop = 0; hop < 8; hop++) {
		struct stat st;
		ssize_t n;

		if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
			return 0;
		n = readlink(out, target, sizeof(target) - 1);
		if (n < 0)
			return 0;
		target[n] = '\0';
		if (target[0] == '/') {
			if (snprintf(out, len, "%s", target) >= (int)len)
				return -1;
		} else {
			/* Relative to the link's own directory. */
			char *slash = strrchr(out, '/');
			char dir[PATH_MAX];

			snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash + 1 - out) : 0, out);
			if (snprintf(out, len, "%s%s", dir, target) >= (int)len)
				return -1;
		}
	}
	return 0;
}

int dpk_output_open(struct dpk_output *o, const char *opt, const char *path)
{
	struct stat st;
	const char *slash;
	mode_t mode;
	bool exists;
	int fd, n;

	memset(o, 0, sizeof(*o));
	o->opt = opt;
	o->path = path;
	exists = stat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return fail(o, -errno, "write");
	if (exists && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		return o->f ? 0 : fail(o, -errno, "write");
	}
	/* The destination: an existing path resolved, so that a link to the results keeps
	 * pointing at them; a new one as given, or where a dangling link points. */
	if (exists ? !realpath(path, o->dest) : follow_links(path, o->dest, sizeof(o->dest)))
		return fail(o, exists ? -errno : -ENAMETOOLONG, "write");
	slash = strrchr(o->dest, '/');
	n = slash ? snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX", (int)(slash + 1 - o->dest),
	                     o->dest, slash + 1)
	          : snprintf(o->tmp, sizeof(o->tmp), ".%s.XXXXXX", o->dest);
	if (n < 0 || n >= (int)sizeof(o->tmp)) {
		o->tmp[0] = '\0';
		return fail(o, -ENAMETOOLONG, "write");
	}
	install_cleanup();
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int rc = -errno;

		o->tmp[0] = '\0';
		return fail(o, rc, "write");
	}
	pending_add(o->tmp);
	/* mkstemp() makes the file private; the results get the mode the file had, or what
	 * the umask gives a new one. */
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
		int rc = -errno;

		close(fd);
		unlink(o->tmp);
		pending_drop(o->tmp);
		o->tmp[0] = '\0';
		return fail(o, rc, "write");
	}
	return 0;
}

int dpk_output_commit(struct dpk_output *o, int ok)
{
	int rc = 0;

	if (!o->f)
		return 0;
	if (fclose(o->f) != 0)
		rc = -errno;
	o->f = NULL;
	if (o->tmp[0]) {
		if (ok && rc == 0 && rename(o->tmp, o->dest) != 0)
			rc = -errno;
		if (!ok || rc)
			unlink(o->tmp);
		pending_drop(o->tmp);
		o->tmp[0] = '\0';
	}
	if (ok && rc)
		fail(o, rc, "write");
	return ok ? rc : -ECANCELED;
}
