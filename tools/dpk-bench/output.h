/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * output.h - the files commands write, checked before any work and opened only at its end.
 *
 * A run takes a minute, and the file it replaces holds the last one. An output is checked
 * before any case runs (dpk_output_prepare()) but opened only when the results are ready,
 * so a run that stops early (bad input found late, an interrupt, an out-of-memory exit)
 * leaves the previous file as it was. Files are opened in place, as the user named them: a
 * link is followed, a file keeps its mode, owner and hard links, and a device is written
 * as such.
 *
 * "-" is standard output, and so is a path that names the file standard output already is
 * (/dev/stdout, or the file it is redirected to): such an output is written through that
 * descriptor, after what is already there, instead of being truncated under it.
 */
#ifndef DPK_BENCH_OUTPUT_H
#define DPK_BENCH_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/** An output file, from its check to its writing. */
struct dpk_output {
	const char *opt;  /**< the option that names it: "--json" */
	const char *path; /**< as given; NULL: none asked for */
	bool to_stdout;   /**< "-", or a name of this process's standard output */
};

/**
 * Check output @p path of option @p opt into @p o: whether fopen(@p path, "w") can succeed,
 * found without creating, truncating or opening anything, so that a command refused after
 * this check leaves the disk as it was. A NULL @p path is no output, and passes.
 * @retval 0 / -errno (-EISDIR for a directory, -ENOTDIR or -ENOENT for a missing one), with
 *         "cannot write OPT 'PATH': why" in @p err
 */
int dpk_output_prepare(struct dpk_output *o, const char *opt, const char *path, char *err,
                       size_t errlen);

/**
 * Open output @p o for writing: truncated and written from the start, or appended to when it
 * is this process's stdout or stderr (standard streams flushed first). Close it with fclose().
 * @retval the stream / NULL with a message on stderr naming the option, the path and the error
 */
FILE *dpk_output_open(const struct dpk_output *o);

/**
 * Whether outputs @p a and @p b (either may be NULL) name one file, so that one would
 * overwrite the other: one existing regular file, or one new file by its directory and
 * name ("out" and "./out"). Devices and FIFOs are never the same file (/dev/null twice).
 */
int dpk_output_same(const char *a, const char *b);

/** Whether outputs @p a and @p b would write into each other: one file, or both standard
 *  output. */
bool dpk_output_clash(const struct dpk_output *a, const struct dpk_output *b);

#endif /* DPK_BENCH_OUTPUT_H */
