/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench report: a self-contained HTML page with inline SVG charts. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coreclock.h"
#include "html.h"
#include "json.h"
#include "stats.h"

#define SVG_W     1000
#define LABEL_W   330
#define VALUE_W   150
#define PLOT_W    (SVG_W - LABEL_W - VALUE_W)
#define ROW_H     18
#define AXIS_H    34
#define HIST_W    300
#define HIST_H    150
#define HIST_BINS 40

static const char *const file_color[2] = {"#0969da", "#d4651b"};
static const char *const file_name[2] = {"base", "new"};

static const char css[] =
        "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1f2328;"
        "background:#fff}\n"
        "header{background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:16px 28px}\n"
        "main{padding:8px 28px 40px}\n"
        "h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px "
        "solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}\n"
        "table{border-collapse:collapse;margin:6px 0 12px}\n"
        "th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}\n"
        "th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
        "tr.diff td{background:#fff8c5}\n"
        ".v{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;color:#fff}\n"
        ".v-ok{background:#1a7f37}.v-degraded{background:#bc4c00}.v-unknown{background:#6e7781}"
        ".v-info{background:#0969da}.v-failed{background:#cf222e}.v-skipped{background:#6e7781}\n"
        ".faster{color:#1a7f37;font-weight:600}.slower{color:#cf222e;font-weight:600}"
        ".within{color:#57606a}\n"
        ".detail{color:#57606a;font-size:12px}\n"
        ".note{background:#f6f8fa;border-left:4px solid #d0d7de;padding:6px 10px;margin:8px 0}\n"
        ".warn{background:#fff8c5;border-left:4px solid #bf8700;padding:6px 10px;margin:8px 0}\n"
        ".legend span{display:inline-block;margin-right:16px}\n"
        ".sw{display:inline-block;width:12px;height:12px;vertical-align:-1px;margin-right:4px}\n"
        ".hists{display:flex;flex-wrap:wrap;gap:10px}\n"
        ".hist{border:1px solid #d0d7de;border-radius:6px;padding:6px;width:300px}\n"
        ".hist .t{font-size:12px;font-weight:600;overflow-wrap:anywhere}\n"
        ".hist .norecord{font-size:12px;color:#57606a;padding:30px 8px}\n"
        "svg{display:block}svg text{font:11px system-ui,sans-serif;fill:#1f2328}\n"
        "svg .grid{stroke:#eaeef2}svg .axis{stroke:#8c959f}\n"
        "nav a{margin-right:12px}\n"
        "body.log .lin-only{display:none}body:not(.log) .log-only{display:none}\n"
        "#js-errors{white-space:pre;color:#cf222e}\n"
        "code{background:#f6f8fa;padding:0 3px}\n";

static const char script[] =
        "(function(){\n"
        "  var err=document.getElementById('js-errors');\n"
        "  window.addEventListener('error',function(e){err.hidden=false;"
        "err.textContent+='script error: '+e.message+'\\n';});\n"
        "  var cb=document.getElementById('logscale');\n"
        "  function apply(){document.body.classList.toggle('log',cb.checked);}\n"
        "  cb.addEventListener('change',apply);apply();\n"
        "  var toc=document.getElementById('toc');\n"
        "  var secs=document.querySelectorAll('section[id]');\n"
        "  for(var i=0;i<secs.length;i++){var h=secs[i].querySelector('h2');if(!h)continue;\n"
        "    var a=document.createElement('a');a.href='#'+secs[i].id;a.textContent=h.textContent;\n"
        "    toc.appendChild(a);}\n"
        "  document.body.setAttribute('data-ready',String(secs.length));\n"
        "})();\n";

/* ---- small helpers -------------------------------------------------------------- */

/*
 * @p s as HTML text or an attribute value: markup characters as references, and each
 * ill-formed UTF-8 sequence or control character (C0, DEL, C1; HTML forbids them) as one
 * U+FFFD, so the page is valid UTF-8 whatever the string (a --title from the command line
 * included).
 */
static void esc(FILE *f, const char *s)
{
	static const char *const refs[] = {['&'] = "&amp;",
	                                   ['<'] = "&lt;",
	                                   ['>'] = "&gt;",
	                                   ['"'] = "&quot;",
	                                   ['\''] = "&#39;"};
	size_t n = s ? strlen(s) : 0, skip, len;

	while (n) {
		unsigned char b = (unsigned char)*s;

		len = dpk_utf8_seq(s, n, &skip);
		if (b < sizeof(refs) / sizeof(refs[0]) && refs[b])
			fputs(refs[b], f);
		else if (!len || dpk_utf8_control(s, len))
			fputs("\xef\xbf\xbd", f);
		else
			fwrite(s, 1, len, f);
		s += skip;
		n -= skip;
	}
}

/* An id usable in HTML: letters, digits and '-' only. */
static void anchor(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	for (; *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		                      (*s >= '0' && *s <= '9')
		              ? *s
		              : '-',
		      f);
}

static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a >= 1e5)
		snprintf(buf, len, "%.3g", v);
	else if (a >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

static double nice_step(double range, int target)
{
	double raw = range / target, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p == 0)
		snprintf(buf, len, "&lt;1e-300");
	else if (p >= 0.001)
		snprintf(buf, len, "%.3f", p);
	else
		snprintf(buf, len, "%.0e", p);
}

static bool selected(const struct dpk_html_options *o, const struct dpk_res_entry *e)
{
	if (!o || o->npatterns == 0)
		return true;
	for (unsigned i = 0; i < o->npatterns; i++)
		if (dpk_results_match(o->patterns[i], e))
			return true;
	return false;
}

static const char *verdict_class(const char *v)
{
	if (strcmp(v, "ok") == 0 || strcmp(v, "degraded") == 0 || strcmp(v, "unknown") == 0 ||
	    strcmp(v, "info") == 0)
		return v;
	return "unknown";
}

/* ---- header, runs, environment -------------------------------------------------- */

static void section_runs(FILE *f, const struct dpk_results *const *r, size_t nf)
{
	fputs("<section id=\"runs\"><h2>Runs</h2><table><tr><th></th>", f);
	for (size_t i = 0; i < nf; i++)
		fprintf(f, "<th><span class=\"sw\" style=\"background:%s\"></span>%s</th>",
		        file_color[i], nf == 2 ? file_name[i] : "results");
	fputs("</tr>\n", f);
	static const char *const rows[] = {"file",        "started",       "command",
	                                   "dpkit",       "CPU",           "TSC",
	                                   "lcores",      "placements",    "results",
	                                   "raw samples", "speed witness", "core-clock multiply"};
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		fprintf(f, "<tr><th>%s</th>", rows[k]);
		for (size_t i = 0; i < nf; i++) {
			const struct dpk_results *x = r[i];
			const struct dpk_res_env *e;
			size_t nraw = 0, nok = 0;
			fputs("<td>", f);
			switch (k) {
			case 0:
				fputs("<code>", f);
				esc(f, x->path);
				fputs("</code>", f);
				break;
			case 1:
				esc(f, x->started);
				break;
			case 2:
				fputs("<code>", f);
				esc(f, x->command);
				fputs("</code>", f);
				break;
			case 3:
				e = dpk_results_env(x, "dpkit");
				esc(f, e ? e->value : "unknown");
				break;
			case 4:
				e = dpk_results_env(x, "cpu_model");
				esc(f, e ? e->value : "unknown");
				break;
			case 5:
				if (isfinite(x->tsc_hz))
					fprintf(f, "%.3f MHz (", x->tsc_hz / 1e6);
				esc(f, x->tsc_source[0] ? x->tsc_source : "unknown");
				if (isfinite(x->tsc_hz))
					fputc(')', f);
				break;
			case 6:
				esc(f, x->lcores[0] ? x->lcores : "unknown");
				break;
			case 7:
				esc(f, x->placements[0] ? x->placements : "unknown");
				break;
			case 8:
				fprintf(f, "%zu", x->n);
				break;
			case 9:
				for (size_t q = 0; q < x->n; q++) {
					nok += x->e[q].ok;
					nraw += x->e[q].ok && x->e[q].raw;
				}
				fprintf(f, "%s",
				        nraw == 0     ? "not recorded (run with --raw)"
				        : nraw == nok ? "recorded"
				                      : "recorded for some results");
				break;
			case 10:
				if (isfinite(x->witness))
					fprintf(f, "%s %.2f ticks", dpk_results_witness_kind(x),
					        x->witness);
				else
					fputs("not in this file", f);
				if (x->witness_slow_only)
					fprintf(f, "; %u results kept mostly slow samples",
					        x->witness_slow_only);
				break;
			case 11:
				/* What the figures in cycles rest on (coreclock.h). */
				if (isfinite(x->mul_cycles))
					fprintf(f, "%.2f cycles by a chain of adds (%u assumed)",
					        x->mul_cycles, DPK_CORECLOCK_MUL_CYCLES);
				else
					fputs("not in this file", f);
				break;
			}
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table></section>\n", f);
}

static void env_cell(FILE *f, const struct dpk_res_env *e)
{
	if (!e) {
		fputs("<td class=\"detail\">not in this file</td><td></td>", f);
		return;
	}
	fputs("<td>", f);
	esc(f, e->value[0] ? e->value : "-");
	if (e->detail[0]) {
		fputs("<div class=\"detail\">", f);
		esc(f, e->detail);
		fputs("</div>", f);
	}
	fprintf(f, "</td><td><span class=\"v v-%s\">", verdict_class(e->verdict));
	esc(f, e->verdict);
	fputs("</span></td>", f);
}

static void section_environment(FILE *f, const struct dpk_results *const *r, size_t nf)
{
	fputs("<section id=\"environment\"><h2>Environment</h2>\n"
	      "<p class=\"detail\">Each item is judged <span class=\"v v-ok\">ok</span> (helps "
	      "trustworthy figures), <span class=\"v v-degraded\">degraded</span> (known to add "
	      "noise or bias), <span class=\"v v-unknown\">unknown</span> (could not be read; "
	      "never taken as ok) or <span class=\"v v-info\">info</span>.",
	      f);
	if (nf == 2)
		fputs(" Rows where the two runs differ are highlighted.", f);
	fputs("</p><table><tr><th>item</th>", f);
	for (size_t i = 0; i < nf; i++)
		fprintf(f, "<th>%s</th><th>verdict</th>", nf == 2 ? file_name[i] : "value");
	fputs("</tr>\n", f);
	for (size_t i = 0; i < nf; i++) {
		for (size_t k = 0; k < r[i]->nenv; k++) {
			const struct dpk_res_env *e = &r[i]->env[k], *other;
			/* Items of the second file appear only if the first lacks them. */
			if (i == 1 && dpk_results_env(r[0], e->key))
				continue;
			other = nf == 2 ? dpk_results_env(r[1 - i], e->key) : NULL;
			bool differ = nf == 2 && (!other || strcmp(other->value, e->value) != 0 ||
			                          strcmp(other->verdict, e->verdict) != 0);
			fprintf(f, "<tr%s><th>", differ ? " class=\"diff\"" : "");
			esc(f, e->label[0] ? e->label : e->key);
			fputs("</th>", f);
			if (nf == 1) {
				env_cell(f, e);
			} else {
				env_cell(f, i == 0 ? e : other);
				env_cell(f, i == 0 ? other : e);
			}
			fputs("</tr>\n", f);
		}
	}
	fputs("</table></section>\n", f);
}

/* ---- per-suite charts ----------------------------------------------------------- */

struct row {
	const struct dpk_res_entry *e;
	unsigned file;
	bool first_of_id; /* the first row of its case: it carries the label */
	unsigned repeats; /* results of this id in this file */
};

struct scale {
	bool log;
	double lo, hi; /* domain */
};

static double sx(const struct scale *s, double v)
{
	double t;

	if (s->log)
		t = (log10(v > 0 ? v : s->lo) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
	else
		t = (v - s->lo) / (s->hi - s->lo);
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return LABEL_W + t * PLOT_W;
}

static void axis_ticks(FILE *f, const struct scale *s, double y0, double y1, const char *unit)
{
	char buf[32];

	if (s->log) {
		for (double d = pow(10, floor(log10(s->lo))); d <= s->hi * 1.0001; d *= 10) {
			static const double mult[] = {1, 2, 5};
			for (int m = 0; m < 3; m++) {
				double v = d * mult[m];
				if (v < s->lo * 0.9999 || v > s->hi * 1.0001)
					continue;
				if (m && log10(s->hi / s->lo) > 2.5)
					continue;
				double x = sx(s, v);
				fprintf(f,
				        "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				        "y2=\"%.1f\"/>",
				        x, y0, x, y1);
				fmt_num(buf, sizeof(buf), v);
				fprintf(f,
				        "<text x=\"%.1f\" y=\"%.1f\" "
				        "text-anchor=\"middle\">%s</text>",
				        x, y1 + 14, buf);
			}
		}
	} else {
		double step = nice_step(s->hi - s->lo, 6);
		for (double v = ceil(s->lo / step) * step; v <= s->hi + step * 1e-6; v += step) {
			double x = sx(s, v);
			fprintf(f,
			        "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			        "y2=\"%.1f\"/>",
			        x, y0, x, y1);
			fmt_num(buf, sizeof(buf), v);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
			        x, y1 + 14, buf);
		}
	}
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
	        LABEL_W + PLOT_W / 2, y1 + 28, unit);
}

/* What the figures are in: ticks, or core cycles (dpk_html_options.cycles). */
static const char *unit_of(bool cycles)
{
	return cycles ? "core cycles" : "TSC ticks";
}

/* The summary a chart draws of @p e. */
static const struct dpk_res_summary *figs(const struct dpk_res_entry *e, bool cycles)
{
	return cycles ? &e->cycles : &e->ticks;
}

/* Whether @p e has a figure to draw: it ran ok and, in cycles, has them. */
static bool drawn(const struct dpk_res_entry *e, bool cycles)
{
	return e->ok && (!cycles || isfinite(e->cycles.p50));
}

static void suite_chart(FILE *f, const struct row *rows, size_t n, bool log, bool two_files,
                        bool cycles)
{
	struct scale s = {.log = log, .lo = INFINITY, .hi = 0};
	double height = (double)n * ROW_H + AXIS_H + 8, y1 = (double)n * ROW_H + 4;
	char b1[32], b2[32], b3[32], b4[32], b5[32], axis[64];

	for (size_t i = 0; i < n; i++) {
		const struct dpk_res_summary *t = figs(rows[i].e, cycles);
		if (!drawn(rows[i].e, cycles))
			continue;
		double lo = isfinite(t->min) ? t->min : t->p50,
		       hi = isfinite(t->p99) ? t->p99 : t->p50;
		if (lo < s.lo)
			s.lo = lo;
		if (hi > s.hi)
			s.hi = hi;
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
		double step = nice_step(s.hi, 6);
		s.lo = 0;
		s.hi = ceil(s.hi * 1.02 / step) * step;
	}
	fprintf(f,
	        "<svg class=\"%s\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
	        "role=\"img\">",
	        log ? "log-only" : "lin-only", SVG_W, height, SVG_W, height);
	snprintf(axis, sizeof(axis), "%s per unit%s", unit_of(cycles), log ? " (log scale)" : "");
	axis_ticks(f, &s, 0, y1, axis);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const struct dpk_res_entry *e = r->e;
		const struct dpk_res_summary *t = figs(e, cycles);
		double y = (double)i * ROW_H + ROW_H / 2.0;
		const char *col = file_color[r->file];

		if (r->first_of_id) {
			fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LABEL_W - 8,
			        y + 4);
			esc(f, e->name);
			if (e->params[0]) {
				fputc(' ', f);
				esc(f, e->params);
			}
			fputs(" @", f);
			esc(f, e->placement);
			fputs("</text>", f);
		} else if (r->repeats > 1) {
			fprintf(f,
			        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
			        "fill=\"#57606a\">repeat %u</text>",
			        LABEL_W - 8, y + 4, e->repeat);
		}
		if (!e->ok) {
			fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#cf222e\">%s: ", LABEL_W + 4,
			        y + 4, e->status);
			esc(f, e->reason);
			fputs("</text>", f);
			continue;
		}
		if (!drawn(e, cycles)) {
			fprintf(f,
			        "<text x=\"%d\" y=\"%.1f\" fill=\"#57606a\">no figures in cycles "
			        "(multi-lcore, interleaved, or cycles off in that run)</text>",
			        LABEL_W + 4, y + 4);
			continue;
		}
		fmt_num(b1, sizeof(b1), t->p50);
		fmt_num(b2, sizeof(b2), t->min);
		fmt_num(b3, sizeof(b3), t->p99);
		fmt_num(b4, sizeof(b4), t->p50_lo);
		fmt_num(b5, sizeof(b5), t->p50_hi);
		fprintf(f, "<g><title>%s%s ", two_files ? file_name[r->file] : "",
		        two_files ? ":" : "");
		esc(f, e->id);
		fprintf(f, " repeat %u: p50 %s %s (95%% interval %s..%s), min %s, p99 %s, ",
		        e->repeat, b1, cycles ? "core cycles" : "ticks", b4, b5, b2, b3);
		esc(f, e->unit);
		fputs("</title>", f);
		double xmin = sx(&s, isfinite(t->min) ? t->min : t->p50);
		double xmax = sx(&s, isfinite(t->p99) ? t->p99 : t->p50);
		double xlo = sx(&s, isfinite(t->p50_lo) ? t->p50_lo : t->p50);
		double xhi = sx(&s, isfinite(t->p50_hi) ? t->p50_hi : t->p50);
		double xm = sx(&s, t->p50);
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"1.5\"/>",
		        xmin, y, xmax, y, col);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
		        xmin, y - 4, xmin, y + 4, col);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
		        xmax, y - 4, xmax, y + 4, col);
		fprintf(f,
		        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"%s\" "
		        "fill-opacity=\"0.35\" stroke=\"%s\"/>",
		        xlo, y - 5, xhi - xlo > 1 ? xhi - xlo : 1, col, col);
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f2328\" "
		        "stroke-width=\"2.5\"/>",
		        xm, y - 7, xm, y + 7);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">%s</text></g>", LABEL_W + PLOT_W + 8, y + 4,
		        b1);
	}
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

static void histogram(FILE *f, const struct dpk_results *const *r, size_t nf, const char *id,
                      const struct dpk_res_entry *e, bool cycles)
{
	double *v[2] = {NULL, NULL}, lo = INFINITY, hi = -INFINITY, peak = 0;
	size_t n[2] = {0, 0}, below[2] = {0, 0}, above[2] = {0, 0};
	double bins[2][HIST_BINS];
	bool any = false, present[2] = {false, false};
	char b1[32], b2[32];

	memset(bins, 0, sizeof(bins));
	for (size_t i = 0; i < nf; i++) {
		present[i] = false;
		for (size_t k = 0; k < r[i]->n; k++)
			present[i] |= strcmp(r[i]->e[k].id, id) == 0 && r[i]->e[k].ok;
		v[i] = pool_raw(r[i], id, cycles, &n[i]);
		if (!v[i])
			continue;
		any = true;
		/* Bins span the middle 99% of the samples so one slow batch does not squash
		 * the shape; what falls outside is counted. */
		double a = q_sorted(v[i], n[i], 0.005), b = q_sorted(v[i], n[i], 0.995);
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	fputs("<div class=\"hist\"><div class=\"t\">", f);
	esc(f, e->name);
	if (e->params[0]) {
		fputc(' ', f);
		esc(f, e->params);
	}
	fputs(" @", f);
	esc(f, e->placement);
	fputs("</div>", f);
	if (!any) {
		fputs(cycles ? "<div class=\"norecord\">no raw samples in cycles (run with "
		               "<code>--raw</code>; only single-lcore cases have "
		               "them)</div></div>\n"
		             : "<div class=\"norecord\">raw samples were not recorded (run with "
		               "<code>--raw</code>)</div></div>\n",
		      f);
		return;
	}
	if (!(hi > lo)) {
		lo = lo * 0.99;
		hi = hi * 1.01 + 1e-9;
	}
	for (size_t i = 0; i < nf; i++) {
		for (size_t k = 0; k < n[i]; k++) {
			double x = v[i][k];
			if (x < lo) {
				below[i]++;
				continue;
			}
			if (x > hi) {
				above[i]++;
				continue;
			}
			int b = (int)((x - lo) / (hi - lo) * HIST_BINS);
			bins[i][b >= HIST_BINS ? HIST_BINS - 1 : b] += 1.0 / (double)n[i];
		}
		for (int b = 0; b < HIST_BINS; b++)
			peak = bins[i][b] > peak ? bins[i][b] : peak;
	}
	const double pw = HIST_W - 12, ph = HIST_H - 58;
	fprintf(f, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
	        HIST_W - 12, HIST_H, HIST_W - 12, HIST_H);
	for (size_t i = 0; i < nf; i++) {
		if (!v[i])
			continue;
		fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" d=\"M0 %.1f",
		        file_color[i], file_color[i], ph);
		for (int b = 0; b < HIST_BINS; b++) {
			double y = ph - (peak > 0 ? bins[i][b] / peak : 0) * (ph - 4);
			fprintf(f, " L%.1f %.1f L%.1f %.1f", pw * b / HIST_BINS, y,
			        pw * (b + 1) / HIST_BINS, y);
		}
		fprintf(f, " L%.1f %.1f Z\"/>", pw, ph);
		double med = q_sorted(v[i], n[i], 0.5);
		double xm = (med - lo) / (hi - lo) * pw;
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"2\" stroke-dasharray=\"3 2\"/>",
		        xm, xm, ph, file_color[i]);
	}
	fprintf(f, "<line class=\"axis\" x1=\"0\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", ph, pw,
	        ph);
	fmt_num(b1, sizeof(b1), lo);
	fmt_num(b2, sizeof(b2), hi);
	fprintf(f,
	        "<text x=\"0\" y=\"%.1f\">%s</text><text x=\"%.1f\" y=\"%.1f\" "
	        "text-anchor=\"end\">%s</text>",
	        ph + 13, b1, pw, ph + 13, b2);
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s per unit; dashed: "
	        "median</text>",
	        pw / 2, ph + 13, cycles ? "core cycles" : "ticks");
	double ty = ph + 27;
	for (size_t i = 0; i < nf; i++) {
		double x = 0, yy = ty + 14.0 * (double)i;
		if (v[i])
			fprintf(f,
			        "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s%sn=%zu, %zu below and "
			        "%zu "
			        "high off the range</text>",
			        x, yy, file_color[i], nf == 2 ? file_name[i] : "",
			        nf == 2 ? " " : "", n[i], below[i], above[i]);
		else if (present[i])
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s: %s</text>", x, yy,
			        file_color[i], file_name[i],
			        cycles ? "no raw samples in cycles" : "raw not recorded");
		else
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s: not in file</text>",
			        x, yy, file_color[i], file_name[i]);
	}
	fputs("</svg></div>\n", f);
	free(v[0]);
	free(v[1]);
}

static bool seen_before(const struct dpk_results *const *r, size_t fi, size_t ei, const char *key,
                        bool by_suite)
{
	for (size_t i = 0; i <= fi; i++)
		for (size_t k = 0; k < (i == fi ? ei : r[i]->n); k++)
			if (strcmp(by_suite ? r[i]->e[k].suite : r[i]->e[k].id, key) == 0)
				return true;
	return false;
}

static int section_suite(FILE *f, const struct dpk_results *const *r, size_t nf, const char *suite,
                         const struct dpk_html_options *o)
{
	struct row *rows = NULL;
	size_t nrows = 0, cap = 0, ncases = 0;

	/* Rows: cases in order of first appearance, each followed by its results from each
	 * file (one per repeat). */
	for (size_t fi = 0; fi < nf; fi++) {
		for (size_t ei = 0; ei < r[fi]->n; ei++) {
			const struct dpk_res_entry *e = &r[fi]->e[ei];
			if (strcmp(e->suite, suite) != 0 || !selected(o, e) ||
			    seen_before(r, fi, ei, e->id, false))
				continue;
			ncases++;
			bool first = true;
			for (size_t fj = 0; fj < nf; fj++) {
				unsigned reps = 0;
				for (size_t k = 0; k < r[fj]->n; k++)
					reps += strcmp(r[fj]->e[k].id, e->id) == 0;
				for (size_t k = 0; k < r[fj]->n; k++) {
					if (strcmp(r[fj]->e[k].id, e->id) != 0)
						continue;
					if (nrows == cap) {
						cap = cap ? cap * 2 : 32;
						struct row *nr = realloc(rows, cap * sizeof(*rows));
						if (!nr) {
							free(rows);
							return -ENOMEM;
						}
						rows = nr;
					}
					rows[nrows++] = (struct row){&r[fj]->e[k], (unsigned)fj,
					                             first, reps};
					first = false;
				}
			}
		}
	}
	if (!nrows) {
		free(rows);
		return 0;
	}
	fputs("<section id=\"", f);
	anchor(f, "suite-", suite);
	fputs("\"><h2>Suite ", f);
	esc(f, suite);
	fprintf(f,
	        "</h2><p class=\"detail\">%zu case%s. Per result: the whisker spans min..p99 "
	        "of the kept samples, the box the 95%% interval of the median, the black bar "
	        "the median (p50), in %s per unit. Hover for figures.</p>\n",
	        ncases, ncases == 1 ? "" : "s", unit_of(o && o->cycles));
	if (nf == 2)
		fprintf(f,
		        "<p class=\"legend\"><span><span class=\"sw\" "
		        "style=\"background:%s\"></span>"
		        "base</span><span><span class=\"sw\" "
		        "style=\"background:%s\"></span>new</span></p>",
		        file_color[0], file_color[1]);
	suite_chart(f, rows, nrows, false, nf == 2, o && o->cycles);
	suite_chart(f, rows, nrows, true, nf == 2, o && o->cycles);
	fprintf(f,
	        "<details open><summary>sample histograms (%zu)</summary><div class=\"hists\">\n",
	        ncases);
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].first_of_id)
			histogram(f, r, nf, rows[i].e->id, rows[i].e, o && o->cycles);
	fputs("</div></details></section>\n", f);
	free(rows);
	return 0;
}

/* ---- comparison ----------------------------------------------------------------- */

static const char *vclass(enum dpk_cmp_verdict v)
{
	return v == DPK_CMP_FASTER ? "faster" : v == DPK_CMP_SLOWER ? "slower" : "within";
}

static const char *vcolor(enum dpk_cmp_verdict v)
{
	return v == DPK_CMP_FASTER ? "#1a7f37" : v == DPK_CMP_SLOWER ? "#cf222e" : "#6e7781";
}

static void section_comparison(FILE *f, const struct dpk_cmp_report *c)
{
	double span = log(1.0 + 2.0 * c->noise);
	char b1[32], b2[32], p[32];

	fputs("<section id=\"comparison\"><h2>Comparison</h2>\n", f);
	for (unsigned i = 0; i < c->nwarn; i++) {
		fputs("<div class=\"warn\">warning: ", f);
		esc(f, c->warn[i]);
		fputs("</div>\n", f);
	}
	fprintf(f,
	        "<p>Ratio new/base of the median %s per unit, with its 95%% interval; below 1 "
	        "is faster. A verdict of <span class=\"faster\">faster</span> or <span "
	        "class=\"slower\">slower</span> needs p &lt; %.2f and the whole interval beyond "
	        "the "
	        "noise threshold of &plusmn;%.1f%% (the shaded band); anything else is <span "
	        "class=\"within\">within noise</span>. %u faster, %u slower, %u within noise; "
	        "geometric mean of the ratios %.3f.</p>\n",
	        c->cycles ? "core cycles" : "ticks", DPK_CMP_ALPHA, c->noise * 100, c->faster,
	        c->slower, c->within, c->geomean);
	for (size_t i = 0; i < c->n; i++) {
		double a = fabs(log(c->c[i].lo)), b = fabs(log(c->c[i].hi));
		span = a > span ? a : span;
		span = b > span ? b : span;
	}
	span *= 1.1;
	struct scale s = {.log = true, .lo = exp(-span), .hi = exp(span)};
	double n = (double)c->n, y1 = n * ROW_H + 4, height = n * ROW_H + AXIS_H + 8;
	fprintf(f, "<svg width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" role=\"img\">", SVG_W,
	        height, SVG_W, height);
	fprintf(f, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.1f\" fill=\"#eaeef2\"/>",
	        sx(&s, 1.0 - c->noise), sx(&s, 1.0 + c->noise) - sx(&s, 1.0 - c->noise), y1);
	/* Tick labels by priority, each kept only if it clears those already placed. */
	static const double ticks[] = {0,     0.1,  -0.1, 0.5, -0.5,  0.02,  -0.02, 0.05,
	                               -0.05, 0.2,  -0.2, 1,   -0.3,  0.3,   0.01,  -0.01,
	                               2,     -0.9, 5,    10,  0.005, -0.005};
	double placed[sizeof(ticks) / sizeof(ticks[0])];
	size_t nplaced = 0;
	for (size_t k = 0; k < sizeof(ticks) / sizeof(ticks[0]); k++) {
		double v = 1.0 + ticks[k], x;
		bool clear = true;
		if (v < s.lo || v > s.hi)
			continue;
		x = sx(&s, v);
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
	for (size_t i = 0; i < c->n; i++) {
		const struct dpk_cmp_case *k = &c->c[i];
		const struct dpk_res_entry *e = k->base.first;
		double y = (double)i * ROW_H + ROW_H / 2.0;
		const char *col = vcolor(k->verdict);

		fprintf(f, "<g><title>");
		esc(f, e->id);
		fmt_p(p, sizeof(p), k->p);
		fprintf(f, ": ratio %.4f, 95%% interval %.4f..%.4f, p %s, %s%s", k->ratio, k->lo,
		        k->hi, p, dpk_cmp_verdict_name(k->verdict),
		        k->method == DPK_CMP_TEST      ? ""
		        : k->method == DPK_CMP_REPEATS ? " (judged on the repeats)"
		                                       : " (no test: see the table)");
		fprintf(f, "</title><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LABEL_W - 8,
		        y + 4);
		esc(f, e->family);
		if (e->params[0]) {
			fputc(' ', f);
			esc(f, e->params);
		}
		fputs(" @", f);
		esc(f, e->placement);
		fputs("</text>", f);
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"3\"%s/>",
		        sx(&s, k->lo), y,
		        sx(&s, k->hi) > sx(&s, k->lo) + 1 ? sx(&s, k->hi) : sx(&s, k->lo) + 1, y,
		        col,
		        k->method == DPK_CMP_TEST || k->method == DPK_CMP_REPEATS
		                ? ""
		                : " stroke-dasharray=\"4 2\"");
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>",
		        sx(&s, k->ratio), y, col);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%+.1f%% %s</text></g>",
		        LABEL_W + PLOT_W + 8, y + 4, col, (k->ratio - 1) * 100,
		        dpk_cmp_verdict_name(k->verdict));
	}
	fputs("</svg>\n", f);
	for (size_t i = 0; i < c->n; i++)
		if (c->c[i].method != DPK_CMP_TEST && c->c[i].method != DPK_CMP_REPEATS) {
			fputs("<p class=\"detail\">Dashed intervals: no test was possible (raw "
			      "samples "
			      "missing or too few); they come from the two medians' own "
			      "intervals.</p>\n",
			      f);
			break;
		}

	fputs("<table><tr><th>case</th><th>params</th><th>placement</th><th>base p50</th><th>new "
	      "p50</th><th>ratio</th><th>95% interval</th><th>change</th><th>p</th><th>verdict</th>"
	      "<th>method</th></tr>\n",
	      f);
	for (size_t i = 0; i < c->n; i++) {
		const struct dpk_cmp_case *k = &c->c[i];
		const struct dpk_res_entry *e = k->base.first;
		fputs("<tr><td>", f);
		esc(f, e->family);
		fputs("</td><td>", f);
		esc(f, e->params);
		fputs("</td><td>", f);
		esc(f, e->placement);
		fmt_num(b1, sizeof(b1), k->base.p50);
		fmt_num(b2, sizeof(b2), k->new.p50);
		fmt_p(p, sizeof(p), k->p);
		fprintf(f,
		        "</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td "
		        "class=\"num\">%.3f</td><td class=\"num\">%.3f..%.3f</td><td "
		        "class=\"num\">%+.1f%%</td><td class=\"num\">%s</td><td "
		        "class=\"%s\">%s%s</td>"
		        "<td class=\"detail\">%s",
		        b1, b2, k->ratio, k->lo, k->hi, (k->ratio - 1) * 100, p, vclass(k->verdict),
		        dpk_cmp_verdict_name(k->verdict), k->gate_failed ? " (gate)" : "",
		        dpk_cmp_method_name(k->method));
		if (k->note[0]) {
			fputs(": ", f);
			esc(f, k->note);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (c->n_only_base || c->n_only_new || c->nskip) {
		fputs("<div class=\"note\">", f);
		for (size_t i = 0; i < c->n_only_base; i++) {
			fputs("only in base: <code>", f);
			esc(f, c->only_base[i]);
			fputs("</code><br>", f);
		}
		for (size_t i = 0; i < c->n_only_new; i++) {
			fputs("only in new: <code>", f);
			esc(f, c->only_new[i]);
			fputs("</code><br>", f);
		}
		for (size_t i = 0; i < c->nskip; i++) {
			fputs("not compared: <code>", f);
			esc(f, c->skip[i].id);
			fputs("</code>: ", f);
			esc(f, c->skip[i].reason);
			fputs("<br>", f);
		}
		fputs("</div>\n", f);
	}
	fputs("</section>\n", f);
}

/* Whether the medians span more than a factor of 20: the charts then start on log scale. */
static bool wide_range(const struct dpk_results *const *r, size_t nf,
                       const struct dpk_html_options *o)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < nf; i++)
		for (size_t k = 0; k < r[i]->n; k++) {
			const struct dpk_res_entry *e = &r[i]->e[k];
			const bool cycles = o && o->cycles;
			const double m = figs(e, cycles)->p50;

			if (!drawn(e, cycles) || !selected(o, e) || !(m > 0))
				continue;
			lo = m < lo ? m : lo;
			hi = m > hi ? m : hi;
		}
	return hi > 20 * lo;
}

int dpk_html_report(FILE *f, const struct dpk_results *const *r, size_t nf,
                    const struct dpk_cmp_report *cmp, const struct dpk_html_options *o)
{
	const char *title = o && o->title ? o->title : "dpk-bench report";
	int rc = 0;

	if (nf < 1 || nf > 2)
		return -EINVAL;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      f);
	esc(f, title);
	fprintf(f, "</title>\n<style>\n%s</style></head>\n<body>\n<header><h1>", css);
	esc(f, title);
	fputs("</h1><div>", f);
	for (size_t i = 0; i < nf; i++) {
		fprintf(f, "%s<span class=\"sw\" style=\"background:%s\"></span><code>",
		        i ? " vs " : "", file_color[i]);
		esc(f, r[i]->path);
		fputs("</code>", f);
	}
	fprintf(f,
	        "</div><p><label><input type=\"checkbox\" id=\"logscale\"%s> log scale for the "
	        "suite charts</label></p><nav id=\"toc\"></nav></header>\n"
	        "<div id=\"js-errors\" hidden></div>\n<main>\n",
	        wide_range(r, nf, o) ? " checked" : "");
	if (nf == 2 && !cmp)
		fputs("<div class=\"warn\">No comparison: the two files have no case in "
		      "common.</div>\n",
		      f);
	if (cmp)
		section_comparison(f, cmp);
	section_runs(f, r, nf);
	section_environment(f, r, nf);
	for (size_t fi = 0; fi < nf && rc == 0; fi++)
		for (size_t ei = 0; ei < r[fi]->n && rc == 0; ei++)
			if (!seen_before(r, fi, ei, r[fi]->e[ei].suite, true))
				rc = section_suite(f, r, nf, r[fi]->e[ei].suite, o);
	fprintf(f,
	        "</main>\n<footer class=\"detail\" style=\"padding:0 28px 20px\">Written by "
	        "dpk-bench report. Figures are %s per unit of work; see the README for "
	        "the method.</footer>\n<script>\n%s</script>\n</body></html>\n",
	        unit_of(o && o->cycles), script);
	if (rc)
		return rc;
	return fflush(f) || ferror(f) ? -EIO : 0;
}
