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
 *
 * A FIFO is written once its reader is there, and opening its write end blocks until one
 * is, so a run would hang at its end with no reader. So the check opens a FIFO's write end
 * without blocking: with no reader that fails and the output is refused before any work;
 * with one, the descriptor is held (the reader waits) and written at the end.
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
	int fifo;         /**< a FIFO's write end, held from the check on; -1: none */
};

/**
 * Check output @p path of option @p opt into @p o: whether fopen(@p path, "w") can succeed,
 * found without creating, truncating or opening any file, so that a command refused after
 * this check leaves the disk as it was. A FIFO's write end is opened without blocking and
 * held in @p o (dpk_output_release() lets it go). A NULL @p path is no output, and passes.
 * @retval 0 / -errno (-EISDIR for a directory, -ENOTDIR or -ENOENT for a missing one,
 *         -ENXIO for a FIFO without a reader), with "cannot write OPT 'PATH': why" in @p err
 */
int dpk_output_prepare(struct dpk_output *o, const char *opt, const char *path, char *err,
                       size_t errlen);

/**
 * Open output @p o for writing: truncated and written from the start, appended to when it is
 * this process's stdout or stderr (standard streams flushed first), or through the FIFO end
 * the check holds (which the stream then owns). Close it with fclose().
 * @retval the stream / NULL with a message on stderr naming the option, the path and the error
 */
FILE *dpk_output_open(struct dpk_output *o);

/** Let go of what dpk_output_prepare() holds for @p o and dpk_output_open() did not take. */
void dpk_output_release(struct dpk_output *o);

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
