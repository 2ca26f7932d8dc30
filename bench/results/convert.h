/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * convert.h - results files read back (results.h), written in the formats other tools read:
 *
 *   gbench    Google Benchmark's JSON (json_schema_version 1), mapped as a run's
 *             --format=gbench is (gbench.h): one benchmark per case and placement with its
 *             repeats pooled, up to DPK_CNV_GBENCH_ENTRIES evenly spaced kept samples as
 *             iterations (one at the median without raw samples), then the mean, median,
 *             stddev and cv aggregates; for Google Benchmark's tools/compare.py.
 *   csv       the columns of a run's --csv (report.h), a row per result.
 *   markdown  a table for a pull-request comment: per result the case, placement, unit, p50,
 *             p90, p99 and kept samples; or a comparison (dpk_cnv_cmp): ratio, interval and
 *             verdict per case.
 *   dpkit     the file as this dpk-bench writes JSON: every member kept, re-indented, each
 *             number spelled as the writer spells it, and of the results only those still in
 *             the struct (a caller may have left some out).
 *
 * The files' own figures are written, never recomputed from other ones, except what a
 * format needs and the file lacks (nanoseconds from ticks and the file's TSC frequency).
 */
#ifndef DPK_BENCH_CONVERT_H
#define DPK_BENCH_CONVERT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "results.h"

struct dpk_json;

/** The iteration entries of a benchmark in gbench output, at most (gbench.h's number). */
#define DPK_CNV_GBENCH_ENTRIES 100

/**
 * Write @p r as Google Benchmark JSON.
 * @retval 0 written
 * @retval -EINVAL the file has no TSC frequency (clock.tsc_hz), so no nanoseconds
 * @retval -ENOMEM out of memory
 * @retval -EIO a write failed
 */
int dpk_convert_gbench(FILE *f, const struct dpk_results *r);

/** Write @p r as a run's CSV, case rows only. 0 or -EIO. */
int dpk_convert_csv(FILE *f, const struct dpk_results *r);

/** Write @p r as a Markdown table. 0 or -EIO. */
int dpk_convert_markdown(FILE *f, const struct dpk_results *r);

/** Write @p r as dpk-bench's own JSON. 0 or -EIO (also when it nests past the writer's
 *  depth). */
int dpk_convert_dpkit(FILE *f, const struct dpk_results *r);

/** Value @p v of a parsed document under @p key (NULL in an array or at the top), as it
 *  was read: whole numbers as integers. */
void dpk_convert_value(struct dpk_json *j, const char *key, const struct dpk_jv *v);

/** One compared case. */
struct dpk_cnv_case {
	const char *id, *suite, *name, *params, *placement;
	const char *unit;     /**< what the medians are in: "ticks", "cycles", "per floor" */
	double base, new;     /**< the medians per unit, in that */
	double ratio, lo, hi; /**< new/base and its 95% interval */
	const char *verdict;  /**< "faster", "slower", "within noise" */
};

/** A comparison, from compare itself or from its --json file. */
struct dpk_cnv_cmp {
	const char *base_path, *new_path;
	bool cycles;
	double noise;
	struct dpk_cnv_case *c;
	size_t n;
	double geomean; /**< NaN when no case was compared */
	size_t ngeomean;
	unsigned faster, slower, within;
};

/**
 * The comparison of @p base and @p new in @p rep, into @p out (free with
 * dpk_convert_cmp_free(); it points into the three).
 * @retval 0 / -ENOMEM
 */
int dpk_convert_cmp_report(const struct dpk_cmp_report *rep, const struct dpk_results *base,
                           const struct dpk_results *new, struct dpk_cnv_cmp *out);

/**
 * The comparison in @p doc, a parsed compare --json file (schema dpkit-bench-compare v1),
 * into @p out (free with dpk_convert_cmp_free(); it points into @p doc).
 * @retval 0 read
 * @retval -EINVAL not such a file, or a field of the wrong shape; @p err names it
 * @retval -ENOMEM out of memory
 */
int dpk_convert_cmp_json(const struct dpk_jv *doc, struct dpk_cnv_cmp *out, char *err,
                         size_t errlen);

void dpk_convert_cmp_free(struct dpk_cnv_cmp *c);

/** Write the comparison @p c as Markdown: a line on what it compares, a table, the geometric
 *  mean. 0 or -EIO. */
int dpk_convert_markdown_cmp(FILE *f, const struct dpk_cnv_cmp *c);

#endif /* DPK_BENCH_CONVERT_H */
