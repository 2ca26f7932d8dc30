/* SPDX-License-Identifier: BSD-3-Clause */
/* table.c - the rows of a run's table, a suite at a time, and the lines under them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* The narrowest the case column gets: a longer label widens it for the whole suite. */
#define CASE_WIDTH 36

/* Room for a case's label; the width is measured on the label as the rows print it. */
#define CASE_LABEL_MAX 96

/* The lines under a row start their text past a name column of at least this width. */
#define SUB_NAME_WIDTH 10

/* The case column's label: the name, then the parameters. Returns @p buf. */
static const char *case_label(const struct dpk_bench_case *c, char *buf, size_t len)
{
	char params[64];

	dpk_bench_params_str(c, params, sizeof(params));
	snprintf(buf, len, "%s%s%s", c->name, params[0] ? " " : "", params);
	return buf;
}

int dpk_report_case_width(const struct dpk_bench_case *c, int width)
{
	char label[CASE_LABEL_MAX];
	int n = (int)strlen(case_label(c, label, sizeof(label)));

	if (width < CASE_WIDTH)
		width = CASE_WIDTH;
	return n > width ? n : width;
}

void dpk_report_suite_header(FILE *f, const struct dpk_bench_suite *s,
                             const struct dpk_bench_clock *k, const struct dpk_report_layout *t)
{
	fprintf(f, "\n%s: %s\n", s->name, s->desc);
	fprintf(f,
	        "  figures in TSC ticks (%.2f MHz) per unit; ns and Mops/s at that rate; "
	        "p50 cyc in core cycles\n",
	        (double)k->hz / 1e6);
	if (t->wide)
		fprintf(f, "  %-*s %-8s %-14s %9s %9s %9s %9s %9s %6s %9s %9s %9s  %s\n", t->width,
		        "case", "place", "unit", "p50", "min", "p90", "p99", "max", "cv%",
		        "p50 cyc", "p50 ns", "Mops/s", "samples");
	else
		fprintf(f, "  %-*s %-8s %-14s %9s %9s %9s %6s %9s %9s %9s  %s\n", t->width, "case",
		        "place", "unit", "p50", "p90", "p99", "cv%", "p50 cyc", "p50 ns", "Mops/s",
		        "samples kept");
}

static void num(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (v < 1e6)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/* After the kept count, the rejected samples: in the wide table with their reasons,
 * " (19044 rejected: 181 gap, 18863 slow)", the reasons that took any in the order the
 * rules run (each sample counts under the first that took it) and under the names of the
 * JSON "rejected" object and the CSV columns; in the narrow one the count taken, " of
 * 31000". Nothing when every sample was kept. */
static void report_rejected(FILE *f, const struct dpk_bench_result *res, bool wide)
{
	size_t rejected = res->samples - res->reject[0];
	const char *sep = ": ";

	if (!rejected)
		return;
	if (!wide) {
		fprintf(f, " of %zu", res->samples);
		return;
	}
	fprintf(f, " (%zu rejected", rejected);
	for (unsigned q = DPK_REJECT_NONE + 1; q < DPK_REJECT_COUNT; q++) {
		if (!res->reject[q])
			continue;
		fprintf(f, "%s%zu %s", sep, res->reject[q], dpk_reject_name(q));
		sep = ", ";
	}
	fputc(')', f);
}

/* The rounds set aside for their floor, ": rounds 12, 13 and 20 at 790-798", at most four
 * named, into @p buf. */
static void aside_rounds(char *buf, size_t len, const struct dpk_bench_result *res)
{
	double lo = INFINITY, hi = 0;
	unsigned named = 0;
	size_t off = (size_t)snprintf(buf, len, ": round");

	for (unsigned q = 0; q < res->nrounds && off < len; q++) {
		if (!res->rounds[q].set_aside)
			continue;
		lo = fmin(lo, res->rounds[q].floor);
		hi = fmax(hi, res->rounds[q].floor);
		if (named++ < 4)
			off += (size_t)snprintf(buf + off, len - off, "%s %u",
			                        named > 1                   ? ","
			                        : res->rounds_set_aside > 1 ? "s"
			                                                    : "",
			                        q + 1);
	}
	if (named > 4 && off < len)
		off += (size_t)snprintf(buf + off, len - off, " and %u more", named - 4);
	if (off < len)
		snprintf(buf + off, len - off, " at %.0f-%.0f", lo, hi);
}

/* The case's own floor under its row: its figure over the round trip, and how the round
 * trip moved over the rounds, and when. */
static void floor_line(FILE *f, const struct dpk_bench_result *res, int rw, int cols)
{
	char fl[24], lo[24], hi[24], moved[256] = "", which[128] = "";

	if (res->floor_untimed)
		fprintf(f,
		        "      %-*s not timed: no round's bracket completed a round trip on these "
		        "lcores\n",
		        rw, "floor");
	if (!(res->floor_rt > 0))
		return;
	num(fl, sizeof(fl), res->floor_rt);
	num(lo, sizeof(lo), res->floor_min);
	num(hi, sizeof(hi), res->floor_max);
	if (res->rounds_set_aside) {
		if (res->rounds)
			aside_rounds(which, sizeof(which), res);
		snprintf(moved, sizeof(moved),
		         "; %u of %u rounds set aside, their floor over +%.0f%% of %.1f%s)",
		         res->rounds_set_aside, res->nrounds, DPK_BENCH_FLOOR_LIMIT * 100.0,
		         res->floor_ref, which);
	} else {
		snprintf(moved, sizeof(moved), " over %u rounds)", res->nrounds);
	}
	dpk_report_fold(f, cols, 7 + rw,
	                "      %-*s %s: x%.3g a cache-line round trip on these lcores (p50 %s "
	                "ticks, %s-%s%s",
	                rw, "floor", dpk_bench_unit_name(res->c->unit), res->per_floor.p50, fl, lo,
	                hi, moved);
}

/* Under a multi-lcore row whose throughput over the rounds' windows is under half the rate
 * of its kept batches: the roles spent the rest stalled (preempted, or in batches the rules
 * rejected), which the per-unit figure leaves out and Mops/s does not. */
static void stall_line(FILE *f, const struct dpk_bench_result *res, const struct dpk_bench_clock *k,
                       int rw, int cols)
{
	double kept = 0;

	for (unsigned i = 0; i < res->nroles; i++)
		if (res->role[i].counted && res->role[i].ticks.p50 > 0)
			kept += (double)k->hz / res->role[i].ticks.p50 / 1e6;
	if (!(kept > 0) || res->mops >= 0.5 * kept)
		return;
	dpk_report_fold(f, cols, 7 + rw,
	                "      %-*s Mops/s over the rounds' windows is x%.2g of the kept batches' "
	                "rate (%.3g): the roles stalled outside them",
	                rw, "stalls", res->mops / kept, kept);
}

/* The regimes the kept rounds fell into, when they fell apart. */
static void regimes_line(FILE *f, const struct dpk_bench_result *res, int rw, int cols)
{
	char line[512], p[24];
	size_t off;

	if (res->nclusters < 2)
		return;
	off = (size_t)snprintf(line, sizeof(line), "      %-*s %u apart:", rw, "regimes",
	                       res->nclusters);
	for (unsigned c = 0; c < res->nclusters && off < sizeof(line); c++) {
		const struct dpk_bench_cluster *cl = &res->cluster[c];
		char fl[32] = "";

		num(p, sizeof(p), cl->p50);
		if (cl->per_floor > 0)
			snprintf(fl, sizeof(fl), " (x%.3g the floor)", cl->per_floor);
		off += (size_t)snprintf(line + off, sizeof(line) - off,
		                        "%s %s ticks%s in %u rounds from round %u", c ? "," : "", p,
		                        fl, cl->rounds, cl->first + 1);
	}
	dpk_report_fold(f, cols, 7 + rw, "%s", line);
}

/* The row's figures after its labels, in the layout's columns, then the samples column. */
static void row_figures(FILE *f, const struct dpk_bench_result *res,
                        const struct dpk_bench_clock *k, const struct dpk_report_layout *t)
{
	const struct dpk_summary *s = &res->ticks;
	char p50[24], lo[24], p90[24], p99[24], hi[24], ns[24], cyc[24], mops[24];

	num(p50, sizeof(p50), s->p50);
	num(lo, sizeof(lo), s->min);
	num(p90, sizeof(p90), s->p90);
	num(p99, sizeof(p99), s->p99);
	num(hi, sizeof(hi), s->max);
	num(ns, sizeof(ns), s->p50 * 1e9 / (double)k->hz);
	num(cyc, sizeof(cyc), res->cycles.n ? res->cycles.p50 : NAN);
	if (res->mops >= 0.1 || res->mops == 0)
		snprintf(mops, sizeof(mops), "%.1f", res->mops);
	else
		snprintf(mops, sizeof(mops), "%.2g", res->mops);
	if (t->wide)
		fprintf(f, " %9s %9s %9s %9s %9s %6.1f %9s %9s %9s  %zu", p50, lo, p90, p99, hi,
		        s->cv * 100.0, cyc, ns, mops, res->reject[0]);
	else
		fprintf(f, " %9s %9s %9s %6.1f %9s %9s %9s  %zu", p50, p90, p99, s->cv * 100.0, cyc,
		        ns, mops, res->reject[0]);
	report_rejected(f, res, t->wide);
	if (res->witness_kept_slow && t->wide)
		fprintf(f, " [too few samples at full speed]");
	fprintf(f, "\n");
}

/* The width of the name column of the lines under a row: at least SUB_NAME_WIDTH, more
 * when a role's name is longer ("distributor"), so that they stay in line. */
static int sub_width(const struct dpk_bench_result *res)
{
	int rw = SUB_NAME_WIDTH;

	for (unsigned i = 0; i < res->nroles; i++)
		if (res->role[i].name && (int)strlen(res->role[i].name) > rw)
			rw = (int)strlen(res->role[i].name);
	return rw;
}

/* An interleaved member's pairing with the group's reference. */
static void interleaved_line(FILE *f, const struct dpk_bench_result *res, int cols)
{
	const char *as_run = res->pair_as_run ? ", as run (most rounds slowed by the host)" : "";

	if (res->ref_case == res->c && res->ref_suite == res->suite)
		fprintf(f, "      interleaved: reference of %u variants\n", res->group_size);
	else if (res->pair_rounds && isnan(res->pair_ratio.p50_lo))
		fprintf(f,
		        "      interleaved with %s/%s: x%.3f per round, %zu rounds%s: too few for "
		        "an interval\n",
		        res->ref_suite->name, res->ref_case->name, res->pair_ratio.p50,
		        res->pair_rounds, as_run);
	else if (res->pair_rounds)
		dpk_report_fold(f, cols, 8,
		                "      interleaved with %s/%s: x%.3f per round [%.3f..%.3f], %zu "
		                "rounds%s",
		                res->ref_suite->name, res->ref_case->name, res->pair_ratio.p50,
		                res->pair_ratio.p50_lo, res->pair_ratio.p50_hi, res->pair_rounds,
		                as_run);
	else
		fprintf(f, "      interleaved with %s/%s: no round of both to pair\n",
		        res->ref_suite->name, res->ref_case->name);
}

/* The lines under every row that ran: its speed-witness mark (narrow table), its pairing,
 * and on oversub what the figure times. */
static void common_lines(FILE *f, const struct dpk_bench_result *res,
                         const struct dpk_report_layout *t, int rw)
{
	const int cols = t->wide ? 0 : DPK_REPORT_COLUMNS;

	if (res->witness_kept_slow && !t->wide)
		fprintf(f, "      %-*s too few samples at full speed: the figures may be slowed\n",
		        rw, "witness");
	if (res->interleaved)
		interleaved_line(f, res, cols);
	if (res->placement == DPK_PLACE_OVERSUB && res->nroles)
		dpk_report_fold(f, cols, 7 + rw,
		                "      %-*s the roles share cpu %u: the figures time the "
		                "scheduler's hand-offs as much as the case, not its throughput",
		                rw, "scheduler", res->role[0].cpu);
}

void dpk_report_row(FILE *f, const struct dpk_bench_result *res, const struct dpk_bench_clock *k,
                    const struct dpk_report_layout *t)
{
	char name[CASE_LABEL_MAX];
	const int rw = sub_width(res), cols = t->wide ? 0 : DPK_REPORT_COLUMNS;

	case_label(res->c, name, sizeof(name));
	if (res->status != DPK_RESULT_OK) {
		dpk_report_fold(
		        f, cols, 6, "  %-*s %-8s %-14s %s: %s", t->width, name,
		        dpk_placement_name(res->placement), dpk_bench_unit_name(res->c->unit),
		        res->status == DPK_RESULT_FAILED ? "FAILED"
		                                         : dpk_bench_status_name(res->status),
		        res->reason);
		return;
	}
	fprintf(f, "  %-*s %-8s %-14s", t->width, name, dpk_placement_name(res->placement),
	        dpk_bench_unit_name(res->c->unit));
	row_figures(f, res, k, t);
	common_lines(f, res, t, rw);
	if (res->c->kind == DPK_BENCH_SINGLE) {
		regimes_line(f, res, rw, cols);
		return;
	}
	for (unsigned i = 0; i < res->nroles; i++) {
		const struct dpk_bench_role_result *rr = &res->role[i];
		char rn[24], p50[24];

		if (rr->name)
			snprintf(rn, sizeof(rn), "%s", rr->name);
		else
			snprintf(rn, sizeof(rn), "role %u", i);
		num(p50, sizeof(p50), rr->ticks.p50);
		fprintf(f,
		        "      %-*s lcore %-3u cpu %-3u p50 %s ticks, %.3g Mops/s, %zu samples%s\n",
		        rw, rn, rr->lcore, rr->cpu, p50, rr->mops, rr->kept,
		        rr->counted ? "" : " (not counted)");
	}
	floor_line(f, res, rw, cols);
	regimes_line(f, res, rw, cols);
	stall_line(f, res, k, rw, cols);
}
