/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * files.h - the results files that compare, spread and report read: loaded with one
 * message naming the file and the problem.
 */
#ifndef DPK_BENCH_FILES_H
#define DPK_BENCH_FILES_H

#include "cli.h"
#include "results.h"

/**
 * Load every file the command line names (its words) into @p r[0..nwords), which the call
 * zeroes first.
 * @retval 0 loaded (free them with dpk_files_free())
 * @retval 2 a file could not be loaded: a message on stderr, and nothing left to free
 */
int dpk_files_load(const struct dpk_cli *cli, struct dpk_results *r);

/** Free @p r[0..n). */
void dpk_files_free(struct dpk_results *r, unsigned n);

#endif /* DPK_BENCH_FILES_H */
