/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * html.h - dpk-bench report: one self-contained HTML page (inline CSS, inline SVG and a
 * little inline script; nothing loaded from the network) from one or two results files.
 *
 * The page has: what was run and where; the environment verdicts (side by side for two
 * files); per suite a chart of ticks (or core cycles) per unit by case and placement
 * (whisker min..p99, a box over the median's 95% interval, the median marked; a
 * linear/log switch); per case a histogram of the raw samples (both files overlaid on
 * common bins), or a note that raw samples were not recorded; and given a comparison, a
 * chart of the ratio with its interval per case, coloured by verdict, with its table.
 *
 * Charts are drawn when the page is written, so it reads the same with scripts off; the
 * script only switches scales, fills the table of contents and reports its own errors
 * into the page.
 */
#ifndef DPK_BENCH_HTML_H
#define DPK_BENCH_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "compare.h"
#include "results.h"

struct dpk_html_options {
	const char *title;           /**< NULL: "dpk-bench report" */
	const char *const *patterns; /**< globs selecting cases; none: all */
	unsigned npatterns;
	bool cycles; /**< draw the figures in core cycles (cycles, raw_cycles): results without
	                  them are listed, not drawn */
};

/**
 * Write the page for @p nfiles (1 or 2) results files; @p cmp is the comparison of
 * files[0] (base) with files[1] (new), or NULL.
 * @retval 0 written
 * @retval -EINVAL nfiles is not 1 or 2
 * @retval -EIO a write failed
 */
int dpk_html_report(FILE *f, const struct dpk_results *const *files, size_t nfiles,
                    const struct dpk_cmp_report *cmp, const struct dpk_html_options *o);

#endif /* DPK_BENCH_HTML_H */
