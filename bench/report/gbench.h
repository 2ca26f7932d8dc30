/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gbench.h - results in Google Benchmark's JSON format (json_schema_version 1), so that
 * its tools, tools/compare.py first, read dpk-bench runs (dpk-bench run --format=gbench
 * --json FILE).
 *
 * Mapping (docs/compare.md explains why):
 *   - one benchmark instance per case and placement, repeats pooled, named
 *     "SUITE/CASE/PARAM:VALUE/.../placement:PLACE"; the family is SUITE/CASE;
 *   - "iteration" entries are kept samples, sorted: all of them up to
 *     DPK_GBENCH_ENTRIES_MAX, else that many evenly spaced order statistics, so files
 *     stay small and compare.py's U test sees the distribution; iterations is the
 *     result's batch_ops (operations per sample; the last size where later slices grew
 *     it), real_time and cpu_time the sample's ns per
 *     operation (cpu_time = real_time: the lcore is pinned and busy);
 *   - "aggregate" entries median, mean, stddev and cv over all kept samples;
 *   - failed and skipped cases are not benchmarks (compare.py cannot read them); the
 *     context lists them, with dpkit's environment verdicts and clock.
 */
#ifndef DPK_BENCH_GBENCH_H
#define DPK_BENCH_GBENCH_H

#include <stdio.h>

#include "report.h"

#define DPK_GBENCH_ENTRIES_MAX 100

/**
 * Write @p n results in Google Benchmark's JSON format. Results need their raw samples
 * (options.raw); one without them gets a single iteration entry at its median.
 * @p executable names the program for the context.
 * @retval 0 written
 * @retval -ENOMEM out of memory
 * @retval -EIO a write failed
 */
int dpk_report_gbench(FILE *f, const struct dpk_bench_meta *m, const struct dpk_bench_result *res,
                      size_t n, const char *executable);

#endif /* DPK_BENCH_GBENCH_H */
