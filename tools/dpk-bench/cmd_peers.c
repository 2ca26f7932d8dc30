/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk-bench peers [PATTERN...]: dpkit's blocks against the peers' (DPDK's, ck's, any
 * suite the program was given beside dpkit's), twin by twin, with a verdict each.
 *
 * A peer case's twin is the dpkit case with its name, kind and group key (parameters
 * included). PATTERN selects a pairing when it matches either side; without one, every
 * pairing runs. The plan holds the twins and their peers, interleaved, with each peer case
 * regrouped under its own twin on its placement: its paired ratio is then to that twin, not
 * to the first variant of the twin's group (the service suite's app_iter group has five of
 * dpkit's).
 *
 * The ratio is peer / dpkit, per operation, so above 1 dpkit is faster. Paired
 * (interleaved): the median of the per-round ratios and its 95% interval, one-lcore cases
 * in core cycles, multi-lcore ones in ticks over the rounds whose floors stayed put
 * (interleave.c); "as run" when the host slowed so many one-lcore rounds that they are
 * paired slow samples and all, a ratio of the codes on the slowed machine while the
 * figures stay those of the kept samples. Unpaired, when too few rounds paired: the ratio
 * of the two figures, with an interval as wide as the 95% intervals of the medians of the
 * two cases' kept rounds; none (no verdict) when either has fewer than 6 kept rounds or,
 * for multi-lcore cases, when the cache-line round trips measured beside the two differ by
 * more than DPK_BENCH_FLOOR_LIMIT: a pair's figure follows that round trip from run to
 * run. The verdict is "dpkit faster" when the whole interval lies above 1 + noise, "dpkit
 * slower" when it lies below 1 - noise, else "within noise" (--noise, default 2%).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dpk/cycles.h>

#include "cli_values.h"
#include "commands.h"
#include "json.h"
#include "output.h"
#include "peers_rows.h"
#include "report.h"
#include "session.h"

/* A peer case and its dpkit twin. */
struct pairing {
	const struct dpk_bench_suite *ts, *ps;
	const struct dpk_bench_case *t, *p;
};

struct peers {
	struct dpk_cli *cli;
	struct pairing *pr;
	size_t npr;
	const struct dpk_bench_case **sel; /* the cases a plan takes */
	size_t nsel;
	struct dpk_bench_plan plan;
	struct dpk_bench_result *res; /* one per plan item */
	double noise;
	struct dpk_output json; /* --json: the results and the tables' rows */
	FILE *out;              /* the tables: stderr when the JSON goes to stdout */
	struct dpk_peer_table tab;
};

static bool is_dpkit(const struct dpk_bench_suite *s)
{
	for (unsigned i = 0; dpk_bench_dpkit_suites[i]; i++)
		if (dpk_bench_dpkit_suites[i] == s)
			return true;
	return false;
}

/* The pairing whose peer is @p c, or NULL. */
static const struct pairing *pairing_of(const struct peers *pp, const struct dpk_bench_case *c)
{
	for (size_t i = 0; i < pp->npr; i++)
		if (pp->pr[i].p == c)
			return &pp->pr[i];
	return NULL;
}

static bool chosen(const struct dpk_cli *cli, const struct pairing *x)
{
	bool in = cli->nwords == 0;

	for (unsigned i = 0; i < cli->nwords && !in; i++)
		in = dpk_cli_pattern_matches(cli->words[i], x->ts, x->t) ||
		     dpk_cli_pattern_matches(cli->words[i], x->ps, x->p);
	return in && !dpk_cli_excluded(cli, x->ts, x->t) && !dpk_cli_excluded(cli, x->ps, x->p);
}

/* The dpkit twin of case @p c: same name, kind and group key. */
static bool twin_in(const struct dpk_bench_suite *ts, const struct dpk_bench_case *c,
                    struct pairing *x)
{
	char kc[256], kt[256];

	dpk_bench_group_key(c, kc, sizeof(kc));
	for (unsigned j = 0; j < ts->ncases; j++) {
		const struct dpk_bench_case *t = &ts->cases[j];

		if (t->kind == c->kind && strcmp(t->name, c->name) == 0 &&
		    strcmp(dpk_bench_group_key(t, kt, sizeof(kt)), kc) == 0) {
			x->ts = ts;
			x->t = t;
			return true;
		}
	}
	return false;
}

static bool sel_add(struct peers *pp, const struct dpk_bench_case *c)
{
	for (size_t i = 0; i < pp->nsel; i++)
		if (pp->sel[i] == c)
			return true;
	pp->sel[pp->nsel++] = c;
	return true;
}

/* Every chosen pairing of the program's suites, and the cases they take. 0 or -ENOMEM. */
static int find_pairings(struct peers *pp)
{
	const struct dpk_bench_suite *const *ss = pp->cli->suites, *s, *ts;
	size_t ncases = 0;

	for (unsigned k = 0; (s = ss[k]); k++)
		ncases += s->ncases;
	pp->pr = calloc(ncases ? ncases : 1, sizeof(*pp->pr));
	pp->sel = calloc(2 * ncases + 1, sizeof(*pp->sel));
	if (!pp->pr || !pp->sel)
		return -ENOMEM;
	for (unsigned k = 0; (s = ss[k]); k++) {
		if (is_dpkit(s))
			continue;
		for (unsigned j = 0; j < s->ncases; j++) {
			struct pairing x = {.ps = s, .p = &s->cases[j]};
			bool found = false;

			for (unsigned m = 0; !found && (ts = ss[m]); m++)
				found = is_dpkit(ts) && twin_in(ts, x.p, &x);
			if (found && chosen(pp->cli, &x)) {
				pp->pr[pp->npr++] = x;
				sel_add(pp, x.t);
				sel_add(pp, x.p);
			}
		}
	}
	return 0;
}

static bool select_sel(void *ctx, const struct dpk_bench_suite *s, const struct dpk_bench_case *c)
{
	const struct peers *pp = ctx;

	(void)s;
	for (size_t i = 0; i < pp->nsel; i++)
		if (pp->sel[i] == c)
			return true;
	return false;
}

/* Each peer item under its twin's item on its placement; every other item on its own. */
static void regroup(struct peers *pp, struct dpk_bench_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		const struct pairing *x = pairing_of(pp, plan->item[i].c);

		plan->leader[i] = i;
		for (size_t j = 0; x && j < i; j++)
			if (plan->item[j].c == x->t && plan->item[j].p == plan->item[i].p) {
				plan->leader[i] = j;
				break;
			}
	}
}

/* ---- running ------------------------------------------------------------------------ */

static void on_progress(void *ctx, const struct dpk_bench_progress *p)
{
	(void)ctx;
	if (!p)
		fprintf(stderr, "\r\033[K");
	else if (p->rounds)
		fprintf(stderr, "\r\033[K%s, round %u", p->what, p->round + 1);
	else
		fprintf(stderr, "\r\033[K[%zu/%zu] %s", p->done + 1, p->total, p->what);
	fflush(stderr);
}

/* Run @p plan into @p res (plan->n results). */
static void run(struct peers *pp, struct dpk_session *s, const struct dpk_bench_plan *plan,
                struct dpk_bench_result *res)
{
	const struct dpk_bench_plan_hooks h = {.progress = on_progress};
	bool progress = !pp->cli->quiet && isatty(STDERR_FILENO);

	if (dpk_bench_plan_run(&s->runner, plan, 1, res, progress ? &h : NULL))
		fprintf(stderr, "dpk-bench peers: out of memory\n");
}

/* ---- the rows ---------------------------------------------------------------------- */

/* The ratio of peer result @p p to twin result @p t into row @p w; false (and the reason
 * in w->note) when either has no figure. */
static bool ratio_of(const struct dpk_bench_result *t, const struct dpk_bench_result *p,
                     struct dpk_peer_row *w)
{
	const struct dpk_summary *a = &t->round_p50, *b = &p->round_p50;

	w->lo = w->hi = NAN;
	if (t->status != DPK_RESULT_OK || p->status != DPK_RESULT_OK) {
		const struct dpk_bench_result *bad = p->status != DPK_RESULT_OK ? p : t;

		snprintf(w->note, sizeof(w->note), "%s",
		         bad->reason[0] ? bad->reason : dpk_bench_status_name(bad->status));
		return false;
	}
	w->r = p->ticks.p50 / t->ticks.p50;
	w->how = "unpaired";
	if (p->interleaved && p->ref_case == t->c && p->pair_rounds >= DPK_BENCH_PAIR_ROUNDS_MIN) {
		w->r = p->pair_ratio.p50;
		w->lo = p->pair_ratio.p50_lo;
		w->hi = p->pair_ratio.p50_hi;
		w->how = p->pair_as_run ? "as run" : "paired";
	} else if (a->n < 6 || b->n < 6) {
		snprintf(w->note, sizeof(w->note), "%zu and %zu kept rounds, under 6", a->n, b->n);
	} else if (dpk_bench_floors_apart(t->floor_rt, p->floor_rt)) {
		/* the two ran on hand-offs of another cost (verdicts.md: pair figures follow the
		 * round trip from run to run), and their ratio says nothing */
		snprintf(w->note, sizeof(w->note),
		         "a cache-line round trip of %.0f ticks beside dpkit's, %.0f beside the "
		         "peer's",
		         t->floor_rt, p->floor_rt);
	} else {
		/* The figures' ratio, as wide as the rounds' medians spread each side. */
		w->lo = w->r * (b->p50_lo / b->p50) / (a->p50_hi / a->p50);
		w->hi = w->r * (b->p50_hi / b->p50) / (a->p50_lo / a->p50);
	}
	return true;
}

static void side_of(const struct dpk_bench_item *it, const struct dpk_bench_result *r,
                    struct dpk_peer_side *s)
{
	s->suite = it->s->name;
	s->status = dpk_bench_status_name(r->status);
	s->p50 = r->status == DPK_RESULT_OK ? r->ticks.p50 : NAN;
	s->floor = r->floor_rt > 0 ? r->floor_rt : NAN;
}

/* Row of dpkit's item @p i against peer item @p k. */
static void row_of(const struct peers *pp, size_t i, size_t k, struct dpk_peer_row *w)
{
	const struct dpk_bench_item *it = &pp->plan.item[i];

	memset(w, 0, sizeof(*w));
	w->block = it->s->name;
	w->name = it->c->name;
	dpk_bench_params_str(it->c, w->params, sizeof(w->params));
	w->place = dpk_placement_name(it->p);
	w->unit = dpk_bench_unit_name(it->c->unit);
	side_of(it, &pp->res[i], &w->t);
	side_of(&pp->plan.item[k], &pp->res[k], &w->p);
	w->ok = ratio_of(&pp->res[i], &pp->res[k], w);
	w->v = w->ok ? dpk_peer_verdict_of(w->lo, w->hi, pp->noise) : DPK_PV_NONE;
}

/* The first peer item from @p k on whose twin is item @p i, on its placement; plan.n when
 * there is none. */
static size_t next_peer(const struct peers *pp, size_t i, size_t k)
{
	const struct dpk_bench_item *it = &pp->plan.item[i];

	for (; k < pp->plan.n; k++) {
		const struct pairing *x = pairing_of(pp, pp->plan.item[k].c);

		if (x && x->t == it->c && pp->plan.item[k].p == it->p)
			return k;
	}
	return pp->plan.n;
}

/* Every row: dpkit's blocks in order, each block's twins in plan order with their peers.
 * 0 or -ENOMEM. */
static int make_rows(struct peers *pp, const struct dpk_session *s)
{
	const struct dpk_bench_suite *ts;

	pp->tab = (struct dpk_peer_table){
	        .noise = pp->noise, .processes = 1, .mhz = (double)s->runner.clock.hz / 1e6};
	pp->tab.row = calloc(pp->plan.n ? pp->plan.n : 1, sizeof(*pp->tab.row));
	if (!pp->tab.row)
		return -ENOMEM;
	for (unsigned b = 0; (ts = dpk_bench_dpkit_suites[b]); b++)
		for (size_t i = 0; i < pp->plan.n; i++) {
			if (pp->plan.item[i].s != ts)
				continue;
			for (size_t k = next_peer(pp, i, 0); k < pp->plan.n;
			     k = next_peer(pp, i, k + 1))
				row_of(pp, i, k, &pp->tab.row[pp->tab.n++]);
		}
	return 0;
}

/* ---- the JSON ------------------------------------------------------------------------ */

static void json_peers(struct dpk_json *j, void *ctx)
{
	const struct peers *pp = ctx;

	dpk_peers_json(j, &pp->tab);
}

/* Write --json, if asked for: every case's results and the rows. 0 or 2. */
static int write_json(struct peers *pp, struct dpk_session *s)
{
	FILE *f;

	if (!pp->json.path)
		return 0;
	if (!(f = dpk_output_open(&pp->json)))
		return 2;
	if (dpk_report_json_more(f, &s->meta, pp->res, pp->plan.n, json_peers, pp) |
	    (fclose(f) != 0)) {
		fprintf(stderr, "dpk-bench peers: writing '%s' failed\n", pp->json.path);
		return 2;
	}
	return 0;
}

/* ---- the command -------------------------------------------------------------------- */

static void peers_free(struct peers *pp)
{
	for (size_t i = 0; pp->res && i < pp->plan.n; i++)
		dpk_bench_result_free(&pp->res[i]);
	free(pp->res);
	free(pp->tab.row);
	free(pp->pr);
	free(pp->sel);
	dpk_bench_plan_free(&pp->plan);
	dpk_output_release(&pp->json);
}

/* 1 when a case failed, else 0 (a skipped case says why in its row). */
static int status_of(const struct peers *pp)
{
	for (size_t i = 0; i < pp->plan.n; i++)
		if (pp->res[i].status == DPK_RESULT_FAILED)
			return 1;
	return 0;
}

/* The plan of the pairings, each peer under its twin. 0 or 2. */
static int make_plan(struct peers *pp, struct dpk_session *s)
{
	if (dpk_bench_plan_make(&pp->plan, &s->runner, pp->cli->suites, select_sel, pp, true))
		return dpk_cli_fail(pp->cli, "the pairings have no case to run on the chosen "
		                             "placements");
	regroup(pp, &pp->plan);
	return 0;
}

/* The environment block and the plan's size, unless --quiet. */
static void preamble(const struct peers *pp, const struct dpk_session *s, unsigned np)
{
	if (pp->cli->quiet)
		return;
	dpk_report_env(pp->out, &s->env, &s->runner.clock);
	dpk_report_placements(pp->out, &s->meta);
	fprintf(pp->out, "plan\n  %zu case runs in %zu pairings", pp->plan.n, pp->npr);
	if (np > 1)
		fprintf(pp->out, ", in each of %u processes (%.3g s a case each)", np,
		        pp->cli->opt.time_s / np);
	fprintf(pp->out, "\n");
	fflush(pp->out);
}

static int peers_run(struct peers *pp, struct dpk_session *s)
{
	uint64_t t0;
	int rc;

	if ((rc = make_plan(pp, s)))
		return rc;
	pp->res = calloc(pp->plan.n, sizeof(*pp->res));
	if (!pp->res)
		return dpk_cli_fail(pp->cli, "out of memory");
	preamble(pp, s, 1);
	t0 = dpk_tsc();
	run(pp, s, &pp->plan, pp->res);
	s->meta.wall_s = (double)(dpk_tsc() - t0) / (double)s->runner.clock.hz;
	if (make_rows(pp, s))
		return dpk_cli_fail(pp->cli, "out of memory");
	dpk_peers_print(pp->out, &pp->tab, pp->cli->suites);
	fflush(pp->out);
	rc = write_json(pp, s);
	return rc ? rc : status_of(pp);
}

/* --processes N above 1: the plan checked and announced here, run by N processes of this
 * program in turn (peers_procs.c). */
static int peers_processes(struct peers *pp, unsigned np)
{
	struct dpk_session s;
	double mhz;
	int rc;

	if (pp->cli->opt.time_s / np < DPK_CLI_TIME_MIN)
		return dpk_cli_fail(pp->cli,
		                    "--time %g s over %u processes leaves each under 1 ms a case; "
		                    "give a longer --time or fewer --processes",
		                    pp->cli->opt.time_s, np);
	if ((rc = dpk_session_start(pp->cli, &s)))
		return rc;
	if ((rc = make_plan(pp, &s)) == 0)
		preamble(pp, &s, np);
	mhz = (double)s.runner.clock.hz / 1e6;
	dpk_session_stop(&s);
	return rc ? rc : dpk_peers_processes(pp->cli, np, &pp->json, pp->out, mhz);
}

int dpk_cmd_peers(struct dpk_cli *cli)
{
	struct peers pp = {
	        .cli = cli, .noise = dpk_cli_or(cli->noise, DPK_CLI_NOISE), .json.fifo = -1};
	const unsigned np = cli->processes ? cli->processes : DPK_PEERS_PROCESSES;
	struct dpk_session s;
	char err[512];
	int rc;

	if (dpk_cli_check_patterns(cli, err, sizeof(err)))
		return dpk_cli_fail(cli, "%s", err);
	if ((rc = dpk_session_check_lcores(cli)))
		return rc;
	if (dpk_output_prepare(&pp.json, "--json", cli->json, err, sizeof(err)))
		return dpk_cli_fail(cli, "%s", err);
	pp.out = pp.json.to_stdout ? stderr : stdout;
	if (find_pairings(&pp)) {
		peers_free(&pp);
		return dpk_cli_fail(cli, "out of memory");
	}
	if (pp.npr == 0) {
		peers_free(&pp);
		return dpk_cli_fail(cli, "no peer case (DPDK's, ck's) with a dpkit twin is "
		                         "selected: is a peer library built into this program?");
	}
	if (np > 1) {
		rc = peers_processes(&pp, np);
	} else if ((rc = dpk_session_start(cli, &s)) == 0) {
		rc = peers_run(&pp, &s);
		dpk_session_stop(&s);
	}
	peers_free(&pp);
	return rc;
}
