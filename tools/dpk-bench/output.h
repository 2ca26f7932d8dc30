/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * output.h - result files written whole or not at all.
 *
 * A run takes a minute; the file it replaces holds the last one. A regular file (or a new
 * one) is written under a temporary name in its directory and renamed over its path only
 * once complete, so a run that stops early (bad input found late, a failed write, an
 * interrupt) leaves the previous file as it was and no partial one. A FIFO or a device
 * (/dev/stdout) cannot be renamed over, holds nothing to lose, and is written directly.
 */
#ifndef DPK_BENCH_OUTPUT_H
#define DPK_BENCH_OUTPUT_H

#include <limits.h>
#include <stdio.h>

struct dpk_output {
	const char *opt;     /**< the option that named it, for messages ("--json") */
	const char *path;    /**< as given */
	char dest[PATH_MAX]; /**< where the finished file goes: @p path, a link resolved */
	char tmp[PATH_MAX];  /**< the temporary file; empty when written directly */
	FILE *f;             /**< open for writing; NULL before dpk_output_open() */
};

/**
 * Open output @p path of option @p opt for writing into @p o: a temporary file beside it,
 * or @p path itself when it is a FIFO or a device. Nothing at @p path changes yet. A
 * temporary file is removed at exit, or on SIGINT, SIGTERM or SIGHUP, unless committed.
 * @retval 0 / -errno, with a message on stderr naming @p opt and @p path
 */
int dpk_output_open(struct dpk_output *o, const char *opt, const char *path);

/**
 * Finish @p o: close it and, when @p ok and the close succeeded, rename the temporary file
 * over the destination; otherwise remove it. A no-op for an output never opened.
 * @retval 0 the file is in place / -errno (message on stderr) or -ECANCELED when !ok
 */
int dpk_output_commit(struct dpk_output *o, int ok);

#endif /* DPK_BENCH_OUTPUT_H */
