/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * files.h - the results files that compare, spread, report and convert read: loaded with one
 * message naming the file and the problem, without the results --exclude leaves out.
 */
#ifndef DPK_BENCH_FILES_H
#define DPK_BENCH_FILES_H

#include "cli.h"
#include "output.h"
#include "results.h"

/**
 * Load every file the command line names (its words) into @p r[0..nwords), which the call
 * zeroes first, and leave out the results --exclude selects (dpk_files_exclude()).
 * @retval 0 loaded (free them with dpk_files_free())
 * @retval 2 a file could not be loaded: a message on stderr, and nothing left to free
 */
int dpk_files_load(const struct dpk_cli *cli, struct dpk_results *r);

/**
 * Leave out of @p r[0..n) the results some --exclude selects (dpk_results_match()): they are
 * gone from every command's view of the files. An --exclude that selects no result of any
 * file is refused, with the nearest suite, case or id.
 * @retval 0 / 2 with a message on stderr (@p r unchanged)
 */
int dpk_files_exclude(const struct dpk_cli *cli, struct dpk_results *r, unsigned n);

/**
 * Check output @p path of option @p opt into @p o (dpk_output_prepare()), and refuse it when
 * it names one of the command's input files: compare --json A.json with A.json an input
 * would replace what it reads.
 * @retval 0 (release @p o with dpk_output_release()) / 2 with a message on stderr
 */
int dpk_files_output(const struct dpk_cli *cli, struct dpk_output *o, const char *opt,
                     const char *path);

/** Free @p r[0..n). */
void dpk_files_free(struct dpk_results *r, unsigned n);

#endif /* DPK_BENCH_FILES_H */
