/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench report: a self-contained HTML page with inline SVG charts (html_int.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coreclock.h"
#include "html_int.h"
#include "json.h"

const char *const dpk_html_file_color[2] = {"#0969da", "#d4651b"};
const char *const dpk_html_file_name[2] = {"base", "new"};

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
void dpk_html_esc(FILE *f, const char *s)
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

void dpk_html_anchor(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	for (; *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		                      (*s >= '0' && *s <= '9')
		              ? *s
		              : '-',
		      f);
}

void dpk_html_num(char *buf, size_t len, double v)
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

double dpk_html_nice_step(double range, int target)
{
	double raw = range / target, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void dpk_html_p(char *buf, size_t len, double p)
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

bool dpk_html_selected(const struct dpk_html_options *o, const struct dpk_res_entry *e)
{
	if (!o || o->npatterns == 0)
		return true;
	for (unsigned i = 0; i < o->npatterns; i++)
		if (dpk_results_match(o->patterns[i], e))
			return true;
	return false;
}

void dpk_html_label(FILE *f, const struct dpk_res_entry *e, bool family)
{
	dpk_html_esc(f, family ? e->family : e->name);
	if (e->params[0]) {
		fputc(' ', f);
		dpk_html_esc(f, e->params);
	}
	fputs(" @", f);
	dpk_html_esc(f, e->placement);
}

static const char *verdict_class(const char *v)
{
	if (strcmp(v, "ok") == 0 || strcmp(v, "degraded") == 0 || strcmp(v, "unknown") == 0 ||
	    strcmp(v, "info") == 0)
		return v;
	return "unknown";
}

/* ---- header, runs, environment -------------------------------------------------- */

static const char *const run_rows[] = {
        "file",   "started",    "command", "dpkit",       "CPU",           "TSC",
        "lcores", "placements", "results", "raw samples", "speed witness", "core-clock multiply"};

/* Write @p s in <code>. */
static void code(FILE *f, const char *s)
{
	fputs("<code>", f);
	dpk_html_esc(f, s);
	fputs("</code>", f);
}

/* Whether every ok result of @p x has raw samples (2), some (1) or none (0). */
static int raw_recorded(const struct dpk_results *x)
{
	size_t nraw = 0, nok = 0;

	for (size_t q = 0; q < x->n; q++) {
		nok += x->e[q].ok;
		nraw += x->e[q].ok && x->e[q].raw;
	}
	return nraw == 0 ? 0 : nraw == nok ? 2 : 1;
}

/* The cell of row @p k (run_rows) for file @p x. */
static void run_cell(FILE *f, const struct dpk_results *x, size_t k)
{
	static const char *const raw[] = {"not recorded (run with --raw)",
	                                  "recorded for some results", "recorded"};
	const struct dpk_res_env *e;

	switch (k) {
	case 0:
		code(f, x->path);
		break;
	case 1:
		dpk_html_esc(f, x->started);
		break;
	case 2:
		code(f, x->command);
		break;
	case 3:
	case 4:
		e = dpk_results_env(x, k == 3 ? "dpkit" : "cpu_model");
		dpk_html_esc(f, e ? e->value : "unknown");
		break;
	case 5:
		if (isfinite(x->tsc_hz))
			fprintf(f, "%.3f MHz (", x->tsc_hz / 1e6);
		dpk_html_esc(f, x->tsc_source[0] ? x->tsc_source : "unknown");
		if (isfinite(x->tsc_hz))
			fputc(')', f);
		break;
	case 6:
	case 7:
		dpk_html_esc(f, k == 6 ? (x->lcores[0] ? x->lcores : "unknown")
		                       : (x->placements[0] ? x->placements : "unknown"));
		break;
	case 8:
		fprintf(f, "%zu", x->n);
		break;
	case 9:
		fputs(raw[raw_recorded(x)], f);
		break;
	case 10:
		if (isfinite(x->witness))
			fprintf(f, "%s %.2f ticks", dpk_results_witness_kind(x), x->witness);
		else
			fputs("not in this file", f);
		if (x->witness_slow_only)
			fprintf(f, "; %u results kept mostly slow samples", x->witness_slow_only);
		break;
	default:
		/* What the figures in cycles rest on (coreclock.h). */
		if (isfinite(x->mul_cycles))
			fprintf(f, "%.2f cycles by a chain of adds (%u assumed)", x->mul_cycles,
			        DPK_CORECLOCK_MUL_CYCLES);
		else
			fputs("not in this file", f);
	}
}

static void section_runs(FILE *f, const struct dpk_results *const *r, size_t nf)
{
	fputs("<section id=\"runs\"><h2>Runs</h2><table><tr><th></th>", f);
	for (size_t i = 0; i < nf; i++)
		fprintf(f, "<th><span class=\"sw\" style=\"background:%s\"></span>%s</th>",
		        dpk_html_file_color[i], nf == 2 ? dpk_html_file_name[i] : "results");
	fputs("</tr>\n", f);
	for (size_t k = 0; k < sizeof(run_rows) / sizeof(run_rows[0]); k++) {
		fprintf(f, "<tr><th>%s</th>", run_rows[k]);
		for (size_t i = 0; i < nf; i++) {
			fputs("<td>", f);
			run_cell(f, r[i], k);
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
	dpk_html_esc(f, e->value[0] ? e->value : "-");
	if (e->detail[0]) {
		fputs("<div class=\"detail\">", f);
		dpk_html_esc(f, e->detail);
		fputs("</div>", f);
	}
	fprintf(f, "</td><td><span class=\"v v-%s\">", verdict_class(e->verdict));
	dpk_html_esc(f, e->verdict);
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
		fprintf(f, "<th>%s</th><th>verdict</th>",
		        nf == 2 ? dpk_html_file_name[i] : "value");
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
			dpk_html_esc(f, e->label[0] ? e->label : e->key);
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

/* ---- scales ------------------------------------------------------------------- */

double dpk_html_x(const struct dpk_html_scale *s, double v)
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

const char *dpk_html_unit(bool cycles)
{
	return cycles ? "core cycles" : "TSC ticks";
}

const struct dpk_res_summary *dpk_html_figs(const struct dpk_res_entry *e, bool cycles)
{
	return cycles ? &e->cycles : &e->ticks;
}

bool dpk_html_drawn(const struct dpk_res_entry *e, bool cycles)
{
	return e->ok && (!cycles || isfinite(e->cycles.p50));
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
			const double m = dpk_html_figs(e, cycles)->p50;

			if (!dpk_html_drawn(e, cycles) || !dpk_html_selected(o, e) || !(m > 0))
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
	dpk_html_esc(f, title);
	fprintf(f, "</title>\n<style>\n%s</style></head>\n<body>\n<header><h1>", css);
	dpk_html_esc(f, title);
	fputs("</h1><div>", f);
	for (size_t i = 0; i < nf; i++) {
		fprintf(f, "%s<span class=\"sw\" style=\"background:%s\"></span><code>",
		        i ? " vs " : "", dpk_html_file_color[i]);
		dpk_html_esc(f, r[i]->path);
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
		dpk_html_comparison(f, cmp);
	section_runs(f, r, nf);
	section_environment(f, r, nf);
	for (size_t fi = 0; fi < nf && rc == 0; fi++)
		for (size_t ei = 0; ei < r[fi]->n && rc == 0; ei++)
			if (!dpk_html_seen_before(r, fi, ei, r[fi]->e[ei].suite, true))
				rc = dpk_html_suite(f, r, nf, r[fi]->e[ei].suite, o);
	fprintf(f,
	        "</main>\n<footer class=\"detail\" style=\"padding:0 28px 20px\">Written by "
	        "dpk-bench report. Figures are %s per unit of work; docs/method.md in dpkit "
	        "says how they are taken.</footer>\n<script>\n%s</script>\n</body></html>\n",
	        dpk_html_unit(o && o->cycles), script);
	if (rc)
		return rc;
	return fflush(f) || ferror(f) ? -EIO : 0;
}
