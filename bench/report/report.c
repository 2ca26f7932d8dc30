/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of a dpk-bench run: the environment block, the rows, the closing lines. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>

#include "coreclock.h"
#include "json.h"
#include "report.h"
#include "witness.h"

#ifndef DPK_BUILD_TYPE
#define DPK_BUILD_TYPE "unknown"
#endif

/* The narrowest the table's label columns get: a longer label widens its column, for
 * every line of the block, rather than push the lines' other columns out of line. */
#define ENV_LABEL_WIDTH 24

const char *dpk_bench_status_name(enum dpk_bench_status s)
{
	switch (s) {
	case DPK_RESULT_OK:
		return "ok";
	case DPK_RESULT_FAILED:
		return "failed";
	case DPK_RESULT_SKIPPED:
		return "skipped";
	case DPK_RESULT_EMPTY:
		return "empty";
	}
	return "?";
}

void dpk_report_env(FILE *f, const struct dpk_env *env, const struct dpk_bench_clock *k)
{
	/* One width for the environment and the clock below it, which read as one list. */
	int w = ENV_LABEL_WIDTH;

	for (unsigned i = 0; i < env->count; i++)
		if ((int)strlen(env->item[i].label) > w)
			w = (int)strlen(env->item[i].label);
	fprintf(f, "environment\n");
	for (unsigned i = 0; i < env->count; i++) {
		const struct dpk_env_item *it = &env->item[i];
		dpk_report_fold(f, DPK_REPORT_COLUMNS, w + 14, "  %-*s %-9s %s%s%s%s", w, it->label,
		                dpk_verdict_name(it->verdict), it->value[0] ? it->value : "-",
		                it->detail[0] ? " (" : "", it->detail, it->detail[0] ? ")" : "");
	}
	fprintf(f, "clock\n");
	fprintf(f, "  %-*s %.3f MHz from %s (20 ms check: %.3f MHz)\n", w, "counter", k->hz / 1e6,
	        k->source, k->hz_check / 1e6);
	fprintf(f, "  %-*s %.0f ticks median, %.0f min (subtracted from every sample)\n", w,
	        "fenced read pair", k->read_cost, k->read_cost_min);
	/* What the sample length answers to (dpk_bench_clock_check()): the smallest change
	 * between back-to-back reads, where that is larger than the changes' GCD. It bounds how
	 * finely two reads time anything, whether the counter moves in coarse steps (a guest's,
	 * scaled from the host's) or a read takes that long. Reads the counter bumped by one to
	 * keep them apart are named, as they are left out. */
	char bumped[96] = "";

	if (k->bumps)
		snprintf(bumped, sizeof(bumped),
		         "; %zu reads moved under a quarter of the median change, left out",
		         k->bumps);
	/* Folded: with the bumps named the line outgrows DPK_REPORT_COLUMNS. */
	if (k->min_delta > k->granularity)
		dpk_report_fold(
		        f, DPK_REPORT_COLUMNS, w + 3,
		        "  %-*s %llu ticks (the smallest change between back-to-back reads; "
		        "the changes' GCD is %llu%s)",
		        w, "counter resolution", (unsigned long long)k->min_delta,
		        (unsigned long long)k->granularity, bumped);
	else
		dpk_report_fold(
		        f, DPK_REPORT_COLUMNS, w + 3,
		        "  %-*s %llu ticks (every change between two reads a multiple of it%s)", w,
		        "counter resolution", (unsigned long long)k->granularity, bumped);
	fprintf(f, "  %-*s %.0f ticks one lcore, %.0f ticks multi-lcore\n", w, "sample length",
	        k->target_single, k->target_multi);
	fprintf(f,
	        "  %-*s %.2f ticks per enqueue+dequeue pair (fastest of %u readings in %.2f "
	        "s)\n",
	        w, "speed witness", k->witness, k->witness_readings, k->witness_s);
	if (isfinite(k->mul_cycles))
		fprintf(f, "  %-*s %.2f cycles by a chain of adds (%u assumed): %s\n", w,
		        "core-clock multiply", k->mul_cycles, DPK_CORECLOCK_MUL_CYCLES,
		        k->cycles_on ? "figures in cycles on" : "figures in cycles off");
	else
		fprintf(f, "  %-*s %s\n", w, "core-clock multiply",
		        "- (no chain in this build, or it did not time): no figures in cycles");
}

double dpk_report_witness_p50(const struct dpk_bench_witness_log *w)
{
	double *c, m;

	if (!w->n || !(c = malloc(w->n * sizeof(*c))))
		return NAN;
	memcpy(c, w->v, w->n * sizeof(*c));
	m = dpk_stats_median(c, w->n);
	free(c);
	return m;
}

void dpk_report_coreclock(FILE *f, const struct dpk_bench_clock *clk,
                          const struct dpk_bench_result *res, size_t n)
{
	double *v;
	size_t k = 0;

	if (!clk->cycles_on) {
		if (isfinite(clk->mul_cycles))
			fprintf(f,
			        "core clock: not read; a multiply took %.2f cycles by a chain of "
			        "adds, not the %u the chain assumes: no figures in cycles\n",
			        clk->mul_cycles, DPK_CORECLOCK_MUL_CYCLES);
		else
			fprintf(f, "core clock: not read; this build has no multiply chain, or it "
			           "did not time: no figures in cycles\n");
		return;
	}
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		if (res[i].status == DPK_RESULT_OK && res[i].cycles.n && res[i].core_hz > 0)
			v[k++] = res[i].core_hz / 1e6;
	if (k) {
		dpk_stats_sort(v, k);
		dpk_report_fold(
		        f, DPK_REPORT_COLUMNS, 2,
		        "core clock: %.0f MHz median over %zu single-lcore results (%.0f-%.0f), "
		        "each from its median round's multiply chain; p50 cyc converts each "
		        "round's samples at that round's clock",
		        dpk_stats_quantile(v, k, 0.5), k, v[0], v[k - 1]);
	}
	free(v);
}

void dpk_report_witness(FILE *f, const struct dpk_bench_runner *r,
                        const struct dpk_bench_result *res, size_t n)
{
	const struct dpk_bench_witness_log *w = &r->witness;
	unsigned late = 0;

	if (!w->rounds)
		return;
	/* The reference first, and where it came from: it is what the samples were judged by
	 * (witness.h). */
	char from[128];

	if (w->ref_check && !w->n)
		snprintf(from, sizeof(from),
		         "the clock check's fastest reading: the run took none of its own");
	else if (w->ref_check)
		snprintf(from, sizeof(from),
		         "the clock check's fastest reading: the run's own, from %zu readings, was "
		         "over +%.0f%% of it",
		         w->n, DPK_WITNESS_LIMIT * 100.0);
	else if (w->n < DPK_WITNESS_REF_RANK)
		snprintf(from, sizeof(from), "the fastest of %zu readings", w->n);
	else
		snprintf(from, sizeof(from), "1 in %u from the fastest of %zu readings",
		         DPK_WITNESS_REF_RANK, w->n);
	dpk_report_fold(
	        f, DPK_REPORT_COLUMNS, 2,
	        "speed witness: reference %.2f ticks (%s), fastest %.2f, median %.2f; %zu of %zu "
	        "samples next to a slow timing (over +%.0f%%), %zu of them set aside; %u rounds, "
	        "%u of them extra",
	        w->ref, from, w->best, dpk_report_witness_p50(w), w->slow, w->samples,
	        DPK_WITNESS_LIMIT * 100.0, w->set_aside, w->rounds, w->extra);
	if (!w->slow_only_cases)
		return;
	fprintf(f,
	        "speed witness: %u case runs kept mostly samples the reference finds slow; "
	        "their figures may be slowed\n",
	        w->slow_only_cases);
	/* Those that kept their slow samples are marked in the table; the others were
	 * judged before the reference came down. */
	char line[1024];
	size_t off =
	        (size_t)snprintf(line, sizeof(line), "  judged before the reference came down:");

	for (size_t i = 0; i < n && off < sizeof(line); i++) {
		char params[64];

		if (!res[i].witness_slow_only || res[i].witness_kept_slow || late++ >= 8)
			continue;
		dpk_bench_params_str(res[i].c, params, sizeof(params));
		off += (size_t)snprintf(line + off, sizeof(line) - off, " %s/%s%s%s%s",
		                        res[i].suite->name, res[i].c->name, params[0] ? " (" : "",
		                        params, params[0] ? ")" : "");
		if (r->opt.repeat > 1 && off < sizeof(line))
			off += (size_t)snprintf(line + off, sizeof(line) - off, " [repeat %u]",
			                        res[i].repeat + 1);
	}
	if (late > 8 && off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, " and %u more", late - 8);
	if (late)
		dpk_report_fold(f, DPK_REPORT_COLUMNS, 4, "%s", line);
}

void dpk_report_placements(FILE *f, const struct dpk_bench_meta *m)
{
	const struct dpk_bench_runner *r = m->runner;
	char cpus[64];

	fprintf(f, "lcores\n  main %u on cpu %u; workers:", r->main_lcore,
	        dpk_lcore_cpu(r->main_lcore));
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct dpk_cpuset cs;
		dpk_lcore_cpus(r->workers[i], &cs);
		fprintf(f, " %u@%s", r->workers[i], dpk_cpulist_format(&cs, cpus, sizeof(cpus)));
	}
	fprintf(f, "\n");
	for (unsigned i = 0; i < m->nskips; i++)
		dpk_report_fold(f, DPK_REPORT_COLUMNS, 4, "  placement %-8s skipped: %s",
		                dpk_placement_name(m->skips[i].placement), m->skips[i].reason);
}

/* ---- the floor across the run --------------------------------------------------------- */

/* Each stretch on either side of a move holds at least this many cases. */
#define FLOOR_STRETCH 3

/* Whether result @p x ran ok with a floor of its own (on two CPUs). */
static bool has_floor(const struct dpk_bench_result *x)
{
	return x->status == DPK_RESULT_OK && x->floor_rt > 0 && x->nroles >= 2;
}

/* Whether result @p x has a floor and ran on the two CPUs of result @p y, in either order. */
static bool same_pair(const struct dpk_bench_result *x, const struct dpk_bench_result *y)
{
	const unsigned a = x->role[0].cpu, b = x->role[1].cpu;

	return has_floor(x) && ((a == y->role[0].cpu && b == y->role[1].cpu) ||
	                        (a == y->role[1].cpu && b == y->role[0].cpu));
}

/* Whether @p x and @p y ran in one set: a suite's multi-lcore cases on one placement run
 * together, round by round, so the order of their results is not the order in time. */
static bool same_set(const struct dpk_bench_result *x, const struct dpk_bench_result *y)
{
	return x->suite == y->suite && x->placement == y->placement && x->repeat == y->repeat;
}

/* The smallest and largest of @p v[a..b) into @p lo and @p hi, and their median; @p tmp has
 * room for b - a values. */
static double stretch(const double *v, size_t a, size_t b, double *lo, double *hi, double *tmp)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = a; i < b; i++) {
		*lo = fmin(*lo, v[i]);
		*hi = fmax(*hi, v[i]);
		tmp[i - a] = v[i];
	}
	return dpk_stats_median(tmp, b - a);
}

/* Where the floors @p fl of results @p idx (k, in run order) moved: of the cuts between two
 * sets that leave FLOOR_STRETCH cases on each side, the one whose two stretches' ranges lie
 * widest apart, their medians over DPK_STATS_FLOOR_STEP apart. 0 when none; *cuts counts
 * the cuts there were to try. */
static size_t floor_cut(const struct dpk_bench_result *res, const size_t *idx, const double *fl,
                        size_t k, double *tmp, unsigned *cuts)
{
	size_t cut = 0;
	double best = 1.0;

	*cuts = 0;
	for (size_t c = FLOOR_STRETCH; c + FLOOR_STRETCH <= k; c++) {
		if (same_set(&res[idx[c - 1]], &res[idx[c]]))
			continue;
		double lb, hb, la, ha;
		const double mb = stretch(fl, 0, c, &lb, &hb, tmp);
		const double ma = stretch(fl, c, k, &la, &ha, tmp);
		const double gap = la > hb ? la / hb : lb > ha ? lb / ha : 0;

		++*cuts;
		if (gap > best && dpk_stats_apart(ma, mb, DPK_STATS_FLOOR_STEP)) {
			best = gap;
			cut = c;
		}
	}
	return cut;
}

/* A tenth of the rounds set aside for their floor: the host moved the vCPUs while the
 * cases ran, not only once in a while a round. */
#define FLOOR_ASIDE_SHARE 0.1

/* What the rounds of results @p idx (k of them) add to the line, into @p out: with
 * FLOOR_ASIDE_SHARE of them or more set aside for their floor, that the host moved the
 * vCPUs while the cases ran (whatever the cases' floors, each the median of its rounds',
 * say); else @p lead and how many were set aside, if any. */
static void rounds_moved(const struct dpk_bench_result *res, const size_t *idx, size_t k,
                         const char *lead, char *out, size_t len)
{
	double lo = INFINITY, hi = 0;
	unsigned aside = 0, rounds = 0;

	for (size_t i = 0; i < k; i++) {
		const struct dpk_bench_result *x = &res[idx[i]];

		if (x->floor_min > 0)
			lo = fmin(lo, x->floor_min);
		hi = fmax(hi, x->floor_max);
		aside += x->rounds_set_aside;
		rounds += x->nrounds;
	}
	if (aside && aside >= FLOOR_ASIDE_SHARE * rounds) {
		snprintf(out, len,
		         "; %u of %u rounds set aside for their floor, which ran %.0f-%.0f ticks: "
		         "the host moved the two vCPUs while the cases ran",
		         aside, rounds, lo, hi);
		return;
	}
	if (aside)
		snprintf(out, len, "%s%s%u of %u rounds set aside for their floor", lead,
		         lead[0] ? ", " : "; ", aside, rounds);
	else
		snprintf(out, len, "%s", lead);
}

/* The line for the results @p idx (k of them, floors @p fl) on one pair of CPUs. */
static void floor_line(FILE *f, const struct dpk_bench_result *res, const size_t *idx,
                       const double *fl, size_t k, double *tmp)
{
	const struct dpk_bench_result *x = &res[idx[0]];
	unsigned cuts;
	const size_t cut = floor_cut(res, idx, fl, k, tmp, &cuts);
	char from[160], moved[200];
	double lo, hi, lo2, hi2;

	stretch(fl, 0, cut ? cut : k, &lo, &hi, tmp);
	if (!cut) {
		rounds_moved(res, idx, k, cuts ? "; no move between its sets of cases" : "", moved,
		             sizeof(moved));
		dpk_report_fold(f, DPK_REPORT_COLUMNS, 2,
		                "floor on cpus %u and %u: %.1f-%.1f ticks over %zu cases%s",
		                x->role[0].cpu, x->role[1].cpu, lo, hi, k, moved);
		return;
	}
	rounds_moved(res, idx, k, "", moved, sizeof(moved));
	stretch(fl, cut, k, &lo2, &hi2, tmp);
	x = &res[idx[cut]];
	dpk_bench_params_str(x->c, from, sizeof(from));
	dpk_report_fold(f, DPK_REPORT_COLUMNS, 2,
	                "floor on cpus %u and %u: moved during the run, %.1f-%.1f ticks over the "
	                "first %zu cases, %.1f-%.1f over the last %zu (from %s/%s%s%s on): the "
	                "host moved the two vCPUs, and the cases' figures moved with it%s",
	                x->role[0].cpu, x->role[1].cpu, lo, hi, cut, lo2, hi2, k - cut,
	                x->suite->name, x->c->name, from[0] ? " " : "", from, moved);
}

void dpk_report_floors(FILE *f, const struct dpk_bench_result *res, size_t n)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	double *fl = malloc(2 * (n ? n : 1) * sizeof(*fl));
	bool *done = calloc(n ? n : 1, sizeof(*done));

	for (size_t i = 0; idx && fl && done && i < n; i++) {
		size_t k = 0;

		if (done[i] || !has_floor(&res[i]))
			continue;
		for (size_t j = i; j < n; j++)
			if (!done[j] && same_pair(&res[j], &res[i])) {
				done[j] = true;
				fl[k] = res[j].floor_rt;
				idx[k++] = j;
			}
		if (k >= 2)
			floor_line(f, res, idx, fl, k, fl + n);
	}
	free(idx);
	free(fl);
	free(done);
}
