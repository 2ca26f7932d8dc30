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
#define CASE_WIDTH      36

/* Room for a case's label; the width is measured on the label as the rows print it. */
#define CASE_LABEL_MAX 96

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
		fprintf(f, "  %-*s %-9s %s%s%s%s\n", w, it->label, dpk_verdict_name(it->verdict),
		        it->value[0] ? it->value : "-", it->detail[0] ? " (" : "", it->detail,
		        it->detail[0] ? ")" : "");
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
	if (k->min_delta > k->granularity)
		fprintf(f,
		        "  %-*s %llu ticks (the smallest change between back-to-back reads; "
		        "the changes' GCD is %llu%s)\n",
		        w, "counter resolution", (unsigned long long)k->min_delta,
		        (unsigned long long)k->granularity, bumped);
	else
		fprintf(f,
		        "  %-*s %llu ticks (every change between two reads a multiple of it%s)\n",
		        w, "counter resolution", (unsigned long long)k->granularity, bumped);
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
		fprintf(f,
		        "core clock: %.0f MHz median over %zu single-lcore results (%.0f-%.0f), "
		        "each from its median round's multiply chain; p50 cyc converts each "
		        "round's samples at that round's clock\n",
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
	fprintf(f,
	        "speed witness: reference %.2f ticks (%s), fastest %.2f, median %.2f; %zu of %zu "
	        "samples next to a slow timing (over +%.0f%%), %zu of them set aside; %u rounds, "
	        "%u of them extra\n",
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
	for (size_t i = 0; i < n; i++) {
		char params[64];

		if (!res[i].witness_slow_only || res[i].witness_kept_slow)
			continue;
		if (late++ == 0)
			fprintf(f, "  judged before the reference came down:");
		if (late > 8)
			continue;
		fprintf(f, " %s/%s", res[i].suite->name, res[i].c->name);
		if (dpk_bench_params_str(res[i].c, params, sizeof(params))[0])
			fprintf(f, " (%s)", params);
		if (r->opt.repeat > 1)
			fprintf(f, " [repeat %u]", res[i].repeat + 1);
	}
	if (late > 8)
		fprintf(f, " and %u more", late - 8);
	if (late)
		fprintf(f, "\n");
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
		fprintf(f, "  placement %-8s skipped: %s\n",
		        dpk_placement_name(m->skips[i].placement), m->skips[i].reason);
}

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
                             const struct dpk_bench_clock *k, int width)
{
	fprintf(f, "\n%s: %s\n", s->name, s->desc);
	fprintf(f,
	        "  figures in TSC ticks (%.2f MHz) per unit; ns and Mops/s at that rate; "
	        "p50 cyc in core cycles\n",
	        (double)k->hz / 1e6);
	fprintf(f, "  %-*s %-8s %-14s %9s %9s %9s %9s %9s %6s %9s %9s %9s  %s\n", width, "case",
	        "place", "unit", "p50", "min", "p90", "p99", "max", "cv%", "p50 cyc", "p50 ns",
	        "Mops/s", "samples");
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

/* The rejected samples and why, " (19044 rejected: 181 gap, 18863 slow)": the reasons that
 * took any, in the order the rules run (each sample counts under the first that took it)
 * and under the names of the JSON "rejected" object and the CSV columns, so a row can be
 * matched to them. Nothing when every sample was kept. */
static void report_rejected(FILE *f, const struct dpk_bench_result *res)
{
	size_t rejected = res->samples - res->reject[0];
	const char *sep = ": ";

	if (!rejected)
		return;
	fprintf(f, " (%zu rejected", rejected);
	for (unsigned q = DPK_REJECT_NONE + 1; q < DPK_REJECT_COUNT; q++) {
		if (!res->reject[q])
			continue;
		fprintf(f, "%s%zu %s", sep, res->reject[q], dpk_reject_name(q));
		sep = ", ";
	}
	fputc(')', f);
}

/* The rounds set aside for their floor, " (rounds 12, 13 and 20 at 790-798)", at most
 * four named. */
static void aside_rounds(FILE *f, const struct dpk_bench_result *res)
{
	double lo = INFINITY, hi = 0;
	unsigned named = 0;

	fprintf(f, ": round");
	for (unsigned q = 0; q < res->nrounds; q++) {
		if (!res->rounds[q].set_aside)
			continue;
		lo = fmin(lo, res->rounds[q].floor);
		hi = fmax(hi, res->rounds[q].floor);
		if (named++ < 4)
			fprintf(f, "%s %u",
			        named > 1                   ? ","
			        : res->rounds_set_aside > 1 ? "s"
			                                    : "",
			        q + 1);
	}
	if (named > 4)
		fprintf(f, " and %u more", named - 4);
	fprintf(f, " at %.0f-%.0f", lo, hi);
}

/* The case's own floor under its row: its figure over the round trip, and how the round
 * trip moved over the rounds, and when. */
static void floor_line(FILE *f, const struct dpk_bench_result *res, int rw)
{
	char fl[24], lo[24], hi[24];

	if (!(res->floor_rt > 0))
		return;
	num(fl, sizeof(fl), res->floor_rt);
	num(lo, sizeof(lo), res->floor_min);
	num(hi, sizeof(hi), res->floor_max);
	fprintf(f,
	        "      %-*s %s: x%.3g a cache-line round trip on these lcores (p50 %s ticks, %s-%s",
	        rw, "floor", dpk_bench_unit_name(res->c->unit), res->per_floor.p50, fl, lo, hi);
	if (res->rounds_set_aside) {
		fprintf(f, "; %u of %u rounds set aside, their floor over +%.0f%% of %.1f",
		        res->rounds_set_aside, res->nrounds, DPK_BENCH_FLOOR_LIMIT * 100.0,
		        res->floor_ref);
		if (res->rounds)
			aside_rounds(f, res);
		fprintf(f, ")\n");
	} else {
		fprintf(f, " over %u rounds)\n", res->nrounds);
	}
}

/* Under a multi-lcore row whose throughput over the rounds' windows is under half the rate
 * of its kept batches: the roles spent the rest stalled (preempted, or in batches the rules
 * rejected), which the per-unit figure leaves out and Mops/s does not. */
static void stall_line(FILE *f, const struct dpk_bench_result *res, const struct dpk_bench_clock *k,
                       int rw)
{
	double kept = 0;

	for (unsigned i = 0; i < res->nroles; i++)
		if (res->role[i].counted && res->role[i].ticks.p50 > 0)
			kept += (double)k->hz / res->role[i].ticks.p50 / 1e6;
	if (!(kept > 0) || res->mops >= 0.5 * kept)
		return;
	fprintf(f,
	        "      %-*s Mops/s over the rounds' windows is x%.2g of the kept batches' rate "
	        "(%.3g): the roles stalled outside them\n",
	        rw, "stalls", res->mops / kept, kept);
}

/* The regimes the kept rounds fell into, when they fell apart. */
static void regimes_line(FILE *f, const struct dpk_bench_result *res, int rw)
{
	char p[24];

	if (res->nclusters < 2)
		return;
	fprintf(f, "      %-*s %u apart:", rw, "regimes", res->nclusters);
	for (unsigned c = 0; c < res->nclusters; c++) {
		const struct dpk_bench_cluster *cl = &res->cluster[c];

		num(p, sizeof(p), cl->p50);
		fprintf(f, "%s %s ticks", c ? "," : "", p);
		if (cl->per_floor > 0)
			fprintf(f, " (x%.3g the floor)", cl->per_floor);
		fprintf(f, " in %u rounds from round %u", cl->rounds, cl->first + 1);
	}
	fprintf(f, "\n");
}

void dpk_report_row(FILE *f, const struct dpk_bench_result *res, const struct dpk_bench_clock *k,
                    int width)
{
	char name[CASE_LABEL_MAX], a[7][24];
	const struct dpk_summary *t = &res->ticks;
	double ns_per_tick = 1e9 / (double)k->hz;

	case_label(res->c, name, sizeof(name));
	if (res->status != DPK_RESULT_OK) {
		fprintf(f, "  %-*s %-8s %-14s %s: %s\n", width, name,
		        dpk_placement_name(res->placement), dpk_bench_unit_name(res->c->unit),
		        res->status == DPK_RESULT_FAILED ? "FAILED"
		                                         : dpk_bench_status_name(res->status),
		        res->reason);
		return;
	}
	num(a[0], sizeof(a[0]), t->p50);
	num(a[1], sizeof(a[1]), t->min);
	num(a[2], sizeof(a[2]), t->p90);
	num(a[3], sizeof(a[3]), t->p99);
	num(a[4], sizeof(a[4]), t->max);
	num(a[5], sizeof(a[5]), t->p50 * ns_per_tick);
	num(a[6], sizeof(a[6]), res->cycles.n ? res->cycles.p50 : NAN);
	char mops[24];
	if (res->mops >= 0.1 || res->mops == 0)
		snprintf(mops, sizeof(mops), "%.1f", res->mops);
	else
		snprintf(mops, sizeof(mops), "%.2g", res->mops);
	fprintf(f, "  %-*s %-8s %-14s %9s %9s %9s %9s %9s %6.1f %9s %9s %9s  %zu", width, name,
	        dpk_placement_name(res->placement), dpk_bench_unit_name(res->c->unit), a[0], a[1],
	        a[2], a[3], a[4], t->cv * 100.0, a[6], a[5], mops, res->reject[0]);
	report_rejected(f, res);
	if (res->witness_kept_slow)
		fprintf(f, " [too few samples at full speed]");
	fprintf(f, "\n");
	if (res->interleaved) {
		if (res->ref_case == res->c && res->ref_suite == res->suite)
			fprintf(f, "      interleaved: reference of %u variants\n",
			        res->group_size);
		else if (res->pair_rounds)
			fprintf(f,
			        "      interleaved with %s/%s: x%.3f per round [%.3f..%.3f], %zu "
			        "rounds\n",
			        res->ref_suite->name, res->ref_case->name, res->pair_ratio.p50,
			        res->pair_ratio.p50_lo, res->pair_ratio.p50_hi, res->pair_rounds);
	}
	if (res->c->kind == DPK_BENCH_SINGLE) {
		regimes_line(f, res, 10);
		return;
	}
	/* The role names take at least 10 columns, more when one is longer ("distributor"),
	 * so that the lines under one row stay in line. */
	int rw = 10;
	for (unsigned i = 0; i < res->nroles; i++)
		if (res->role[i].name && (int)strlen(res->role[i].name) > rw)
			rw = (int)strlen(res->role[i].name);
	for (unsigned i = 0; i < res->nroles; i++) {
		const struct dpk_bench_role_result *rr = &res->role[i];
		char rn[24];

		if (rr->name)
			snprintf(rn, sizeof(rn), "%s", rr->name);
		else
			snprintf(rn, sizeof(rn), "role %u", i);
		num(a[0], sizeof(a[0]), rr->ticks.p50);
		fprintf(f,
		        "      %-*s lcore %-3u cpu %-3u p50 %s ticks, %.3g Mops/s, %zu "
		        "samples%s\n",
		        rw, rn, rr->lcore, rr->cpu, a[0], rr->mops, rr->kept,
		        rr->counted ? "" : " (not counted)");
	}
	floor_line(f, res, rw);
	regimes_line(f, res, rw);
	stall_line(f, res, k, rw);
}
