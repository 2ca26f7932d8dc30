/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * output.h - result files, opened only once the run has finished.
 *
 * A run takes a minute, and the file it replaces holds the last one. The files are
 * checked before any case runs (dpk_output_check()) but opened only when the results are ready, so
 * a run that stops early (bad input found late, an interrupt, an out-of-memory exit) leaves the
 * previous file as it was. They are opened in place, as the user named them: a link is followed, a
 * file keeps its mode, owner and hard links, and a FIFO or device is written as such. A path that
 * names this process's own stdout or stderr (/dev/stdout, or a redirected file's name) is written
 * through that descriptor, after what is already there, instead of being truncated under it.
 */
#ifndef DPK_BENCH_OUTPUT_H
#define DPK_BENCH_OUTPUT_H

#include <stdio.h>

/**
 * Whether fopen(@p path, "w") can succeed, found without creating, truncating or opening
 * anything: a run refused after this check must leave the disk as it was.
 * @retval 0 / -errno (-EISDIR for a directory, -ENOTDIR or -ENOENT for a missing one)
 */
int dpk_output_check(const char *path);

/**
 * Open output @p path of option @p opt for writing: truncated and written from the start,
 * or appended to when it is this process's stdout or stderr (standard streams flushed).
 * @retval the stream / NULL with a message on stderr naming @p opt, @p path and the error
 */
FILE *dpk_output_open(const char *opt, const char *path);

/**
 * Whether outputs @p a and @p b (either may be NULL) name one file, so that one would
 * overwrite the other: one existing regular file, or one new file by its directory and
 * name ("out" and "./out"). Devices and FIFOs are never the same file (/dev/null twice).
 */
int dpk_output_same(const char *a, const char *b);

#endif /* DPK_BENCH_OUTPUT_H */
