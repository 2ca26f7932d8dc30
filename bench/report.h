/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.h - what a run prints and writes: the environment block, a table grouped by
 * suite, and the JSON and CSV files.
 *
 * JSON schema "dpkit-bench", version DPK_BENCH_SCHEMA_VERSION; the README documents
 * every field. A reader must refuse a different major version.
 */
#ifndef DPK_BENCH_REPORT_H
#define DPK_BENCH_REPORT_H

#include <stdio.h>

#include "env.h"
#include "runner.h"

#define DPK_BENCH_SCHEMA         "dpkit-bench"
#define DPK_BENCH_SCHEMA_VERSION 1

/** A placement the run could not use, and why. */
struct dpk_bench_skip {
	enum dpk_placement placement;
	char reason[160];
};

/** Everything a report needs besides the results. */
struct dpk_bench_meta {
	const struct dpk_bench_runner *runner;
	const struct dpk_env *env;
	const char *command; /**< the command line, for the record */
	char started[32];    /**< UTC start time, ISO 8601 */
	double wall_s;       /**< wall time of the whole run */
	unsigned nskips;
	struct dpk_bench_skip skips[DPK_PLACE_COUNT];
};

/** Print the environment with verdicts and the clock self-check. */
void dpk_report_env(FILE *f, const struct dpk_env *env, const struct dpk_bench_clock *k);

/** Print the lcores used and the placements skipped. */
void dpk_report_placements(FILE *f, const struct dpk_bench_meta *m);

/** One line on what the speed witness saw over the run's rounds; nothing if no rounds ran. */
void dpk_report_witness(FILE *f, const struct dpk_bench_runner *r);

/** Print a suite's heading and the column names. */
void dpk_report_suite_header(FILE *f, const struct dpk_bench_suite *s,
                             const struct dpk_bench_clock *k);

/** Print one result row (and a line per role for multi-lcore cases). */
void dpk_report_row(FILE *f, const struct dpk_bench_result *res, const struct dpk_bench_clock *k);

/** Write the JSON document; 0 or -EIO. */
int dpk_report_json(FILE *f, const struct dpk_bench_meta *m, const struct dpk_bench_result *res,
                    size_t n);

/** Write the CSV (a row per result, and with @p raw a row per kept sample); 0 or -EIO. */
int dpk_report_csv(FILE *f, const struct dpk_bench_meta *m, const struct dpk_bench_result *res,
                   size_t n, bool raw);

/** "ok", "failed", "skipped". */
const char *dpk_bench_status_name(enum dpk_bench_status s);

#endif /* DPK_BENCH_REPORT_H */
