/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * html_int.h - what the parts of the report page share: the page geometry, the files'
 * colours, escaping and number formats, and the scale charts map figures through.
 * html.c writes the page, its runs and environment; html_chart.c the suites' charts and
 * histograms; html_cmp.c the comparison.
 */
#ifndef DPK_BENCH_HTML_INT_H
#define DPK_BENCH_HTML_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "html.h"

#define SVG_W   1000
#define LABEL_W 330
#define VALUE_W 150
#define PLOT_W  (SVG_W - LABEL_W - VALUE_W)
#define ROW_H   18
#define AXIS_H  34

/* Colours and names of the base and new files. */
extern const char *const dpk_html_file_color[2];
extern const char *const dpk_html_file_name[2];

/* Write @p s as HTML text or attribute value (NULL writes nothing). */
void dpk_html_esc(FILE *f, const char *s);
/* Write @p prefix then @p s as an id: letters, digits and '-' only. */
void dpk_html_anchor(FILE *f, const char *prefix, const char *s);
/* A figure to three or four significant places, "-" when not finite. */
void dpk_html_num(char *buf, size_t len, double v);
/* A p-value, "-" for NaN. */
void dpk_html_p(char *buf, size_t len, double p);
/* A step of 1, 2 or 5 times a power of ten that cuts @p range in about @p target. */
double dpk_html_nice_step(double range, int target);
/* Whether @p e is among the cases the options select. */
bool dpk_html_selected(const struct dpk_html_options *o, const struct dpk_res_entry *e);
/* Whether a result before entry @p ei of file @p fi (in file order) has @p key as its
 * suite (@p by_suite) or its id. */
bool dpk_html_seen_before(const struct dpk_results *const *r, size_t fi, size_t ei, const char *key,
                          bool by_suite);
/* Write a case's label: its family or name, its params, " @placement". */
void dpk_html_label(FILE *f, const struct dpk_res_entry *e, bool family);

/* A chart's horizontal scale: linear or log over the domain [lo, hi]. */
struct dpk_html_scale {
	bool log;
	double lo, hi;
};

/* The x coordinate of @p v, clamped to the plot. */
double dpk_html_x(const struct dpk_html_scale *s, double v);

/* What the figures are in: "core cycles" or "TSC ticks". */
const char *dpk_html_unit(bool cycles);
/* The summary the charts draw of @p e: its cycles or its ticks. */
const struct dpk_res_summary *dpk_html_figs(const struct dpk_res_entry *e, bool cycles);
/* Whether @p e has a figure to draw: it ran ok and, in cycles, has them. */
bool dpk_html_drawn(const struct dpk_res_entry *e, bool cycles);

/* The section of @p suite: its charts, linear and log, and its cases' histograms. 0 or
 * -ENOMEM. */
int dpk_html_suite(FILE *f, const struct dpk_results *const *r, size_t nf, const char *suite,
                   const struct dpk_html_options *o);

/* The comparison section: what the verdicts rest on, a chart of the ratios and a table. */
void dpk_html_comparison(FILE *f, const struct dpk_cmp_report *c);

#endif /* DPK_BENCH_HTML_INT_H */
