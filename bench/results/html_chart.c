/* SPDX-License-Identifier: BSD-3-Clause */
/* html_chart.c - a suite's section of the report page: its charts and its histograms. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_int.h"
#include "stats.h"

#define HIST_W    300
#define HIST_H    150
#define HIST_BINS 40

/* A grid line at @p x from @p y0 to @p y1 and its label under it. */
static void tick(FILE *f, double x, double y0, double y1, double v)
{
	char buf[32];

	fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y0,
	        x, y1);
	dpk_html_num(buf, sizeof(buf), v);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x, y1 + 14, buf);
}

static void axis_ticks(FILE *f, const struct dpk_html_scale *s, double y0, double y1,
                       const char *unit)
{
	static const double mult[] = {1, 2, 5};

	if (s->log) {
		for (double d = pow(10, floor(log10(s->lo))); d <= s->hi * 1.0001; d *= 10)
			for (int m = 0; m < 3; m++) {
				double v = d * mult[m];

				if (v < s->lo * 0.9999 || v > s->hi * 1.0001 ||
				    (m && log10(s->hi / s->lo) > 2.5))
					continue;
				tick(f, dpk_html_x(s, v), y0, y1, v);
			}
	} else {
		double step = dpk_html_nice_step(s->hi - s->lo, 6);

		for (double v = ceil(s->lo / step) * step; v <= s->hi + step * 1e-6; v += step)
			tick(f, dpk_html_x(s, v), y0, y1, v);
	}
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
	        LABEL_W + PLOT_W / 2, y1 + 28, unit);
}

/* A row of a suite's chart: a result, and what it prints beside it. */
struct row {
	const struct dpk_res_entry *e;
	unsigned file;
	bool first_of_id; /* the first row of its case: it carries the label */
	unsigned repeats; /* results of this id in this file */
};

/* The scale of a chart of @p rows: min..p99 of every drawn row, rounded out to powers of
 * ten (log) or to a step (linear, from 0). */
static struct dpk_html_scale chart_scale(const struct row *rows, size_t n, bool log, bool cycles)
{
	struct dpk_html_scale s = {.log = log, .lo = INFINITY, .hi = 0};

	for (size_t i = 0; i < n; i++) {
		const struct dpk_res_summary *t = dpk_html_figs(rows[i].e, cycles);

		if (!dpk_html_drawn(rows[i].e, cycles))
			continue;
		s.lo = fmin(s.lo, isfinite(t->min) ? t->min : t->p50);
		s.hi = fmax(s.hi, isfinite(t->p99) ? t->p99 : t->p50);
	}
	if (!isfinite(s.lo) || !(s.hi > 0)) {
		s.lo = 0.1;
		s.hi = 1;
	}
	if (log) {
		s.lo = pow(10, floor(log10(s.lo > 0 ? s.lo : 0.01)));
		s.hi = pow(10, ceil(log10(s.hi)));
		if (s.hi <= s.lo)
			s.hi = s.lo * 10;
	} else {
		double step = dpk_html_nice_step(s.hi, 6);

		s.lo = 0;
		s.hi = ceil(s.hi * 1.02 / step) * step;
	}
	return s;
}

/* A drawn row's marks at height @p y: the whisker min..p99, the box over the median's
 * interval, the median, its figure, and a title with every figure. */
static void row_marks(FILE *f, const struct row *r, const struct dpk_html_scale *s, double y,
                      bool two_files, bool cycles)
{
	const struct dpk_res_entry *e = r->e;
	const struct dpk_res_summary *t = dpk_html_figs(e, cycles);
	const char *col = dpk_html_file_color[r->file];
	char b1[32], b2[32], b3[32], b4[32], b5[32];

	dpk_html_num(b1, sizeof(b1), t->p50);
	dpk_html_num(b2, sizeof(b2), t->min);
	dpk_html_num(b3, sizeof(b3), t->p99);
	dpk_html_num(b4, sizeof(b4), t->p50_lo);
	dpk_html_num(b5, sizeof(b5), t->p50_hi);
	fprintf(f, "<g><title>%s%s ", two_files ? dpk_html_file_name[r->file] : "",
	        two_files ? ":" : "");
	dpk_html_esc(f, e->id);
	fprintf(f, " repeat %u: p50 %s %s (95%% interval %s..%s), min %s, p99 %s, ", e->repeat, b1,
	        cycles ? "core cycles" : "ticks", b4, b5, b2, b3);
	dpk_html_esc(f, e->unit);
	fputs("</title>", f);
	const double xmin = dpk_html_x(s, isfinite(t->min) ? t->min : t->p50);
	const double xmax = dpk_html_x(s, isfinite(t->p99) ? t->p99 : t->p50);
	const double xlo = dpk_html_x(s, isfinite(t->p50_lo) ? t->p50_lo : t->p50);
	const double xhi = dpk_html_x(s, isfinite(t->p50_hi) ? t->p50_hi : t->p50);
	const double xm = dpk_html_x(s, t->p50);

	fprintf(f,
	        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
	        "stroke-width=\"1.5\"/>",
	        xmin, y, xmax, y, col);
	for (int k = 0; k < 2; k++)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
		        k ? xmax : xmin, y - 4, k ? xmax : xmin, y + 4, col);
	fprintf(f,
	        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"%s\" "
	        "fill-opacity=\"0.35\" stroke=\"%s\"/>",
	        xlo, y - 5, xhi - xlo > 1 ? xhi - xlo : 1, col, col);
	fprintf(f,
	        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f2328\" "
	        "stroke-width=\"2.5\"/>",
	        xm, y - 7, xm, y + 7);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\">%s</text></g>", LABEL_W + PLOT_W + 8, y + 4, b1);
}

/* A row at height @p y: its label (or its repeat), then its marks or why it has none. */
static void chart_row(FILE *f, const struct row *r, const struct dpk_html_scale *s, double y,
                      bool two_files, bool cycles)
{
	const struct dpk_res_entry *e = r->e;

	if (r->first_of_id) {
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LABEL_W - 8, y + 4);
		dpk_html_label(f, e, false);
		fputs("</text>", f);
	} else if (r->repeats > 1) {
		fprintf(f,
		        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#57606a\">repeat "
		        "%u</text>",
		        LABEL_W - 8, y + 4, e->repeat);
	}
	if (!e->ok) {
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#cf222e\">", LABEL_W + 4, y + 4);
		dpk_html_esc(f, e->status);
		fputs(": ", f);
		dpk_html_esc(f, e->reason);
		fputs("</text>", f);
	} else if (!dpk_html_drawn(e, cycles)) {
		fprintf(f,
		        "<text x=\"%d\" y=\"%.1f\" fill=\"#57606a\">no figures in cycles "
		        "(multi-lcore, interleaved, or cycles off in that run)</text>",
		        LABEL_W + 4, y + 4);
	} else {
		row_marks(f, r, s, y, two_files, cycles);
	}
}

static void suite_chart(FILE *f, const struct row *rows, size_t n, bool log, bool two_files,
                        bool cycles)
{
	const struct dpk_html_scale s = chart_scale(rows, n, log, cycles);
	const double height = (double)n * ROW_H + AXIS_H + 8, y1 = (double)n * ROW_H + 4;
	char axis[64];

	fprintf(f,
	        "<svg class=\"%s\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
	        "role=\"img\">",
	        log ? "log-only" : "lin-only", SVG_W, height, SVG_W, height);
	snprintf(axis, sizeof(axis), "%s per unit%s", dpk_html_unit(cycles),
	         log ? " (log scale)" : "");
	axis_ticks(f, &s, 0, y1, axis);
	for (size_t i = 0; i < n; i++)
		chart_row(f, &rows[i], &s, (double)i * ROW_H + ROW_H / 2.0, two_files, cycles);
	fputs("</svg>\n", f);
}

/* Pool the raw samples of @p id in file @p r (sorted); NULL when none were recorded. */
static double *pool_raw(const struct dpk_results *r, const char *id, bool cycles, size_t *n)
{
	double *v = NULL;

	*n = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_res_entry *e = &r->e[i];
		const double *raw = cycles ? e->raw_cycles : e->raw;
		const size_t nraw = cycles ? e->nraw_cycles : e->nraw;

		if (!e->ok || !raw || strcmp(e->id, id) != 0)
			continue;
		double *nv = realloc(v, (*n + nraw + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			*n = 0;
			return NULL;
		}
		v = nv;
		memcpy(v + *n, raw, nraw * sizeof(*v));
		*n += nraw;
	}
	dpk_stats_sort(v, *n);
	if (v && !*n) {
		free(v);
		v = NULL;
	}
	return v;
}

static double q_sorted(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t i = (size_t)floor(h);

	return i + 1 >= n ? v[n - 1] : v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

/* One case's samples from each file, binned over a common range. */
struct hist {
	size_t nf;
	double *v[2]; /* sorted samples, NULL: none recorded */
	size_t n[2], below[2], above[2];
	bool present[2]; /* the file has the case, ok */
	double lo, hi, peak;
	double bins[2][HIST_BINS]; /* shares of each file's samples */
};

/* Gather @p id's samples; false when no file recorded any. The range spans the middle 99%
 * of the samples so one slow batch does not squash the shape; what falls outside is
 * counted. */
static bool hist_gather(struct hist *h, const struct dpk_results *const *r, const char *id,
                        bool cycles)
{
	bool any = false;

	h->lo = INFINITY;
	h->hi = -INFINITY;
	for (size_t i = 0; i < h->nf; i++) {
		for (size_t k = 0; k < r[i]->n; k++)
			h->present[i] |= strcmp(r[i]->e[k].id, id) == 0 && r[i]->e[k].ok;
		if (!(h->v[i] = pool_raw(r[i], id, cycles, &h->n[i])))
			continue;
		any = true;
		h->lo = fmin(h->lo, q_sorted(h->v[i], h->n[i], 0.005));
		h->hi = fmax(h->hi, q_sorted(h->v[i], h->n[i], 0.995));
	}
	if (any && !(h->hi > h->lo)) {
		h->lo = h->lo * 0.99;
		h->hi = h->hi * 1.01 + 1e-9;
	}
	return any;
}

static void hist_bin(struct hist *h)
{
	for (size_t i = 0; i < h->nf; i++) {
		for (size_t k = 0; k < h->n[i]; k++) {
			const double x = h->v[i][k];
			int b;

			if (x < h->lo) {
				h->below[i]++;
				continue;
			}
			if (x > h->hi) {
				h->above[i]++;
				continue;
			}
			b = (int)((x - h->lo) / (h->hi - h->lo) * HIST_BINS);
			h->bins[i][b >= HIST_BINS ? HIST_BINS - 1 : b] += 1.0 / (double)h->n[i];
		}
		for (int b = 0; b < HIST_BINS; b++)
			h->peak = fmax(h->peak, h->bins[i][b]);
	}
}

/* Each file's shape and median, the range's ends, and a line per file of its counts. */
static void hist_svg(FILE *f, const struct hist *h, bool cycles)
{
	const double pw = HIST_W - 12, ph = HIST_H - 58;
	char b1[32], b2[32];

	fprintf(f, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
	        HIST_W - 12, HIST_H, HIST_W - 12, HIST_H);
	for (size_t i = 0; i < h->nf; i++) {
		const char *col = dpk_html_file_color[i];

		if (!h->v[i])
			continue;
		fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" d=\"M0 %.1f", col,
		        col, ph);
		for (int b = 0; b < HIST_BINS; b++) {
			double y = ph - (h->peak > 0 ? h->bins[i][b] / h->peak : 0) * (ph - 4);
			fprintf(f, " L%.1f %.1f L%.1f %.1f", pw * b / HIST_BINS, y,
			        pw * (b + 1) / HIST_BINS, y);
		}
		fprintf(f, " L%.1f %.1f Z\"/>", pw, ph);
		const double xm = (q_sorted(h->v[i], h->n[i], 0.5) - h->lo) / (h->hi - h->lo) * pw;
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"2\" stroke-dasharray=\"3 2\"/>",
		        xm, xm, ph, col);
	}
	fprintf(f, "<line class=\"axis\" x1=\"0\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", ph, pw,
	        ph);
	dpk_html_num(b1, sizeof(b1), h->lo);
	dpk_html_num(b2, sizeof(b2), h->hi);
	fprintf(f,
	        "<text x=\"0\" y=\"%.1f\">%s</text><text x=\"%.1f\" y=\"%.1f\" "
	        "text-anchor=\"end\">%s</text>",
	        ph + 13, b1, pw, ph + 13, b2);
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s per unit; dashed: "
	        "median</text>",
	        pw / 2, ph + 13, cycles ? "core cycles" : "ticks");
	for (size_t i = 0; i < h->nf; i++) {
		const double yy = ph + 27 + 14.0 * (double)i;
		const char *col = dpk_html_file_color[i], *name = dpk_html_file_name[i];

		if (h->v[i])
			fprintf(f,
			        "<text x=\"0\" y=\"%.1f\" fill=\"%s\">%s%sn=%zu, %zu below and %zu "
			        "high off the range</text>",
			        yy, col, h->nf == 2 ? name : "", h->nf == 2 ? " " : "", h->n[i],
			        h->below[i], h->above[i]);
		else
			fprintf(f, "<text x=\"0\" y=\"%.1f\" fill=\"%s\">%s: %s</text>", yy, col,
			        name,
			        !h->present[i] ? "not in file"
			        : cycles       ? "no raw samples in cycles"
			                       : "raw not recorded");
	}
	fputs("</svg>", f);
}

static void histogram(FILE *f, const struct dpk_results *const *r, size_t nf,
                      const struct dpk_res_entry *e, bool cycles)
{
	struct hist *h = calloc(1, sizeof(*h));

	fputs("<div class=\"hist\"><div class=\"t\">", f);
	dpk_html_label(f, e, false);
	fputs("</div>", f);
	if (!h) {
		fputs("<div class=\"norecord\">out of memory</div></div>\n", f);
		return;
	}
	h->nf = nf;
	if (!hist_gather(h, r, e->id, cycles)) {
		fputs(cycles ? "<div class=\"norecord\">no raw samples in cycles (run with "
		               "<code>--raw</code>; only single-lcore cases have them)</div>"
		             : "<div class=\"norecord\">raw samples were not recorded (run with "
		               "<code>--raw</code>)</div>",
		      f);
	} else {
		hist_bin(h);
		hist_svg(f, h, cycles);
	}
	fputs("</div>\n", f);
	free(h->v[0]);
	free(h->v[1]);
	free(h);
}

bool dpk_html_seen_before(const struct dpk_results *const *r, size_t fi, size_t ei, const char *key,
                          bool by_suite)
{
	for (size_t i = 0; i <= fi; i++)
		for (size_t k = 0; k < (i == fi ? ei : r[i]->n); k++)
			if (strcmp(by_suite ? r[i]->e[k].suite : r[i]->e[k].id, key) == 0)
				return true;
	return false;
}

/* Append to @p rows the results of case @p id from every file, one per repeat, the first
 * marked as carrying the label. 0 or -ENOMEM. */
static int add_case_rows(const struct dpk_results *const *r, size_t nf, const char *id,
                         struct row **rows, size_t *n, size_t *cap)
{
	bool first = true;

	for (size_t fj = 0; fj < nf; fj++) {
		unsigned reps = 0;

		for (size_t k = 0; k < r[fj]->n; k++)
			reps += strcmp(r[fj]->e[k].id, id) == 0;
		for (size_t k = 0; k < r[fj]->n; k++) {
			if (strcmp(r[fj]->e[k].id, id) != 0)
				continue;
			if (*n == *cap) {
				size_t ncap = *cap ? *cap * 2 : 32;
				struct row *nr = realloc(*rows, ncap * sizeof(**rows));

				if (!nr)
					return -ENOMEM;
				*rows = nr;
				*cap = ncap;
			}
			(*rows)[(*n)++] = (struct row){&r[fj]->e[k], (unsigned)fj, first, reps};
			first = false;
		}
	}
	return 0;
}

/* The section's heading, what its charts show, and the files' legend. */
static void suite_head(FILE *f, const char *suite, size_t ncases, size_t nf, bool cycles)
{
	fputs("<section id=\"", f);
	dpk_html_anchor(f, "suite-", suite);
	fputs("\"><h2>Suite ", f);
	dpk_html_esc(f, suite);
	fprintf(f,
	        "</h2><p class=\"detail\">%zu case%s. Per result: the whisker spans min..p99 "
	        "of the kept samples, the box the 95%% interval of the median, the black bar "
	        "the median (p50), in %s per unit. Hover for figures.</p>\n",
	        ncases, ncases == 1 ? "" : "s", dpk_html_unit(cycles));
	if (nf == 2)
		fprintf(f,
		        "<p class=\"legend\"><span><span class=\"sw\" "
		        "style=\"background:%s\"></span>"
		        "base</span><span><span class=\"sw\" "
		        "style=\"background:%s\"></span>new</span>"
		        "</p>",
		        dpk_html_file_color[0], dpk_html_file_color[1]);
}

int dpk_html_suite(FILE *f, const struct dpk_results *const *r, size_t nf, const char *suite,
                   const struct dpk_html_options *o)
{
	const bool cycles = o && o->cycles;
	struct row *rows = NULL;
	size_t nrows = 0, cap = 0, ncases = 0;

	/* Cases in order of first appearance, each followed by its results from each file. */
	for (size_t fi = 0; fi < nf; fi++)
		for (size_t ei = 0; ei < r[fi]->n; ei++) {
			const struct dpk_res_entry *e = &r[fi]->e[ei];

			if (strcmp(e->suite, suite) != 0 || !dpk_html_selected(o, e) ||
			    dpk_html_seen_before(r, fi, ei, e->id, false))
				continue;
			ncases++;
			if (add_case_rows(r, nf, e->id, &rows, &nrows, &cap)) {
				free(rows);
				return -ENOMEM;
			}
		}
	if (nrows) {
		suite_head(f, suite, ncases, nf, cycles);
		suite_chart(f, rows, nrows, false, nf == 2, cycles);
		suite_chart(f, rows, nrows, true, nf == 2, cycles);
		fprintf(f,
		        "<details open><summary>sample histograms (%zu)</summary><div "
		        "class=\"hists\">\n",
		        ncases);
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].first_of_id)
				histogram(f, r, nf, rows[i].e, cycles);
		fputs("</div></details></section>\n", f);
	}
	free(rows);
	return 0;
}
