/* SPDX-License-Identifier: BSD-3-Clause */
/* html_cmp.c - the comparison section of the report page: a ratio per case and a table. */
#include <math.h>
#include <string.h>

#include "html_int.h"

static const char *vclass(enum dpk_cmp_verdict v)
{
	return v == DPK_CMP_FASTER ? "faster" : v == DPK_CMP_SLOWER ? "slower" : "within";
}

static const char *vcolor(enum dpk_cmp_verdict v)
{
	return v == DPK_CMP_FASTER ? "#1a7f37" : v == DPK_CMP_SLOWER ? "#cf222e" : "#6e7781";
}

/* The warnings, how to read a ratio, the counts, and what the verdicts rest on. */
static void cmp_intro(FILE *f, const struct dpk_cmp_report *c)
{
	const unsigned *m = c->by_method;

	for (unsigned i = 0; i < c->nwarn; i++) {
		fputs("<div class=\"warn\">warning: ", f);
		dpk_html_esc(f, c->warn[i]);
		fputs("</div>\n", f);
	}
	if (c->cycles)
		fputs("<p>Ratio new/base of the median core cycles per unit (--unit cycles), with "
		      "its 95% interval; below 1 is faster.",
		      f);
	else
		fputs("<p>Ratio new/base of the median per unit, with its 95% interval; below 1 is "
		      "faster. Each case is in its own unit: core cycles for single-lcore cases "
		      "that have them, the figure over the case's own cache-line round trip for "
		      "pairs, ticks otherwise.",
		      f);
	fprintf(f,
	        " A verdict of <span class=\"faster\">faster</span> or <span "
	        "class=\"slower\">slower</span> needs the whole interval beyond the noise "
	        "threshold of &plusmn;%.1f%% (the shaded band), and p &lt; %.2f where the "
	        "repeats or rounds decide; a case whose interval reaches into the band is <span "
	        "class=\"within\">within noise</span>. %u faster, %u slower, %u within noise, %u "
	        "without a verdict; geometric mean of the ratios %.3f.</p>\n",
	        c->noise * 100, DPK_CMP_ALPHA, c->faster, c->slower, c->within, c->none,
	        c->geomean);
	fprintf(f,
	        "<p class=\"detail\">Verdicts rest on: %u on rounds run in one session and "
	        "paired (dpk-bench ab), %u on the rounds' medians, %u on the repeats' medians "
	        "(%u in core cycles, %u in ticks, %u over the case's own floor).",
	        m[DPK_CMP_PAIRED], m[DPK_CMP_ROUNDS], m[DPK_CMP_REPEATS],
	        c->by_unit[DPK_CMP_CYCLES], c->by_unit[DPK_CMP_TICKS],
	        c->by_unit[DPK_CMP_PER_FLOOR]);
	if (m[DPK_CMP_ROUNDS] && c->run_sigma >= 0)
		fprintf(f,
		        " The rounds' intervals carry the drift within each run and, for the drift "
		        "between the two runs, a between-run sigma of %.1f%% (--run-sigma).",
		        c->run_sigma * 100.0);
	else if (m[DPK_CMP_ROUNDS])
		fprintf(f,
		        " The rounds' intervals carry the drift within each run and, for the drift "
		        "between the two runs, a between-run sigma of %.1f%% in core cycles, "
		        "%.1f%% in ticks, more where a case's rounds spread wide (%.1f times the "
		        "interquartile range of their logs, each side; --run-sigma sets one for "
		        "all).",
		        DPK_CMP_RUN_SIGMA_CYCLES * 100.0, DPK_CMP_RUN_SIGMA_TICKS * 100.0,
		        DPK_CMP_RUN_SIGMA_SPREAD);
	if (m[DPK_CMP_PLACEMENT] + m[DPK_CMP_TEST] + m[DPK_CMP_CI_ONLY] + m[DPK_CMP_TOO_FEW])
		fputs(" Dashed intervals have no verdict: the case's floor moved between the runs "
		      "(another placement), or one run a side without rounds, or too few "
		      "samples; the table says which.",
		      f);
	fputs("</p>\n", f);
}

/* The scale of the ratio chart: symmetric in log, wide enough for the band and every
 * interval. */
static struct dpk_html_scale cmp_scale(const struct dpk_cmp_report *c)
{
	double span = log(1.0 + 2.0 * c->noise);

	for (size_t i = 0; i < c->n; i++)
		span = fmax(span, fmax(fabs(log(c->c[i].lo)), fabs(log(c->c[i].hi))));
	span *= 1.1;
	return (struct dpk_html_scale){.log = true, .lo = exp(-span), .hi = exp(span)};
}

/* The noise band, the change ticks (by priority, each kept only if it clears those
 * already placed) and the axis title. */
static void cmp_axis(FILE *f, const struct dpk_html_scale *s, double noise, double y1)
{
	static const double ticks[] = {0,     0.1,  -0.1, 0.5, -0.5,  0.02,  -0.02, 0.05,
	                               -0.05, 0.2,  -0.2, 1,   -0.3,  0.3,   0.01,  -0.01,
	                               2,     -0.9, 5,    10,  0.005, -0.005};
	double placed[sizeof(ticks) / sizeof(ticks[0])];
	size_t nplaced = 0;

	fprintf(f, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.1f\" fill=\"#eaeef2\"/>",
	        dpk_html_x(s, 1.0 - noise), dpk_html_x(s, 1.0 + noise) - dpk_html_x(s, 1.0 - noise),
	        y1);
	for (size_t k = 0; k < sizeof(ticks) / sizeof(ticks[0]); k++) {
		const double v = 1.0 + ticks[k];
		bool clear = true;
		double x;

		if (v < s->lo || v > s->hi)
			continue;
		x = dpk_html_x(s, v);
		for (size_t q = 0; q < nplaced; q++)
			clear &= fabs(placed[q] - x) >= 48;
		if (!clear)
			continue;
		placed[nplaced++] = x;
		fprintf(f, "<line class=\"%s\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\"/>",
		        ticks[k] == 0 ? "axis" : "grid", x, x, y1);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%+g%%</text>", x,
		        y1 + 14, ticks[k] * 100);
	}
	fprintf(f,
	        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">change of the median (log "
	        "scale of the ratio)</text>",
	        LABEL_W + PLOT_W / 2, y1 + 28);
}

/* A case's row at height @p y: label, interval (dashed without a verdict), ratio. */
static void cmp_row(FILE *f, const struct dpk_cmp_case *k, const struct dpk_html_scale *s, double y)
{
	const char *col = vcolor(k->verdict);
	const double xlo = dpk_html_x(s, k->lo), xhi = fmax(dpk_html_x(s, k->hi), xlo + 1);
	char p[32];

	fputs("<g><title>", f);
	dpk_html_esc(f, k->base.first->id);
	dpk_html_p(p, sizeof(p), k->p);
	fprintf(f, ": ratio %.4f in %s, 95%% interval %.4f..%.4f, p %s, %s, judged on %s", k->ratio,
	        dpk_cmp_unit_name(k->unit), k->lo, k->hi, p, dpk_cmp_verdict_name(k->verdict),
	        dpk_cmp_basis(k));
	fprintf(f, "</title><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LABEL_W - 8, y + 4);
	dpk_html_label(f, k->base.first, true);
	fputs("</text>", f);
	fprintf(f,
	        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
	        "stroke-width=\"3\"%s/>",
	        xlo, y, xhi, y, col,
	        k->verdict == DPK_CMP_NO_VERDICT ? " stroke-dasharray=\"4 2\"" : "");
	fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>", dpk_html_x(s, k->ratio),
	        y, col);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%+.1f%% %s</text></g>",
	        LABEL_W + PLOT_W + 8, y + 4, col, (k->ratio - 1) * 100,
	        dpk_cmp_verdict_name(k->verdict));
}

static void cmp_chart(FILE *f, const struct dpk_cmp_report *c)
{
	const struct dpk_html_scale s = cmp_scale(c);
	const double n = (double)c->n, y1 = n * ROW_H + 4, height = n * ROW_H + AXIS_H + 8;

	fprintf(f, "<svg width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" role=\"img\">", SVG_W,
	        height, SVG_W, height);
	cmp_axis(f, &s, c->noise, y1);
	for (size_t i = 0; i < c->n; i++)
		cmp_row(f, &c->c[i], &s, (double)i * ROW_H + ROW_H / 2.0);
	fputs("</svg>\n", f);
}

static void cmp_table(FILE *f, const struct dpk_cmp_report *c)
{
	char b1[32], b2[32], p[32];

	fputs("<table><tr><th>case</th><th>params</th><th>placement</th><th>unit</th><th>base "
	      "p50</th><th>new p50</th><th>ratio</th><th>95% interval</th><th>change</th><th>p</th>"
	      "<th>judged on</th><th>verdict</th><th>note</th></tr>\n",
	      f);
	for (size_t i = 0; i < c->n; i++) {
		const struct dpk_cmp_case *k = &c->c[i];
		const struct dpk_res_entry *e = k->base.first;

		fputs("<tr><td>", f);
		dpk_html_esc(f, e->family);
		fputs("</td><td>", f);
		dpk_html_esc(f, e->params);
		fputs("</td><td>", f);
		dpk_html_esc(f, e->placement);
		dpk_html_num(b1, sizeof(b1), k->base.p50);
		dpk_html_num(b2, sizeof(b2), k->new.p50);
		dpk_html_p(p, sizeof(p), k->p);
		fprintf(f,
		        "</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td "
		        "class=\"num\">%.3f</td><td class=\"num\">%.3f..%.3f</td><td "
		        "class=\"num\">%+.1f%%</td><td class=\"num\">%s</td><td>%s</td><td "
		        "class=\"%s\">%s%s</td><td class=\"detail\">",
		        dpk_cmp_unit_name(k->unit), b1, b2, k->ratio, k->lo, k->hi,
		        (k->ratio - 1) * 100, p, dpk_cmp_basis(k), vclass(k->verdict),
		        dpk_cmp_verdict_name(k->verdict), k->gate_failed ? " (gate)" : "");
		dpk_html_esc(f, k->note);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* One line per id of @p ids, after @p what. */
static void id_lines(FILE *f, const char *what, const char *const *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s: <code>", what);
		dpk_html_esc(f, ids[i]);
		fputs("</code><br>", f);
	}
}

static void cmp_lists(FILE *f, const struct dpk_cmp_report *c)
{
	if (!c->n_only_base && !c->n_only_new && !c->nskip)
		return;
	fputs("<div class=\"note\">", f);
	id_lines(f, "only in base", c->only_base, c->n_only_base);
	id_lines(f, "only in new", c->only_new, c->n_only_new);
	for (size_t i = 0; i < c->nskip; i++) {
		fputs("not compared: <code>", f);
		dpk_html_esc(f, c->skip[i].id);
		fputs("</code>: ", f);
		dpk_html_esc(f, c->skip[i].reason);
		fputs("<br>", f);
	}
	fputs("</div>\n", f);
}

void dpk_html_comparison(FILE *f, const struct dpk_cmp_report *c)
{
	fputs("<section id=\"comparison\"><h2>Comparison</h2>\n", f);
	cmp_intro(f, c);
	cmp_chart(f, c);
	cmp_table(f, c);
	cmp_lists(f, c);
	fputs("</section>\n", f);
}
