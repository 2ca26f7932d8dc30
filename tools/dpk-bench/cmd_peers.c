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

#include "commands.h"
#include "json.h"
#include "output.h"
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

/* ---- the tables --------------------------------------------------------------------- */

/* A ratio peer / dpkit with its interval (NaN bounds: none). */
struct ratio {
	double r, lo, hi;
	const char *how; /* "paired", "as run", "unpaired"; or why there is no ratio */
	char note[96];   /* why there is no interval; "" when there is one */
};

/* The ratio of peer result @p p to twin result @p t; false (and @p q->how the reason)
 * when either has no figure. */
static bool ratio_of(const struct dpk_bench_result *t, const struct dpk_bench_result *p,
                     struct ratio *q)
{
	const struct dpk_summary *a = &t->round_p50, *b = &p->round_p50;

	q->lo = q->hi = NAN;
	q->note[0] = '\0';
	if (t->status != DPK_RESULT_OK || p->status != DPK_RESULT_OK) {
		const struct dpk_bench_result *bad = p->status != DPK_RESULT_OK ? p : t;

		q->how = bad->reason[0] ? bad->reason : dpk_bench_status_name(bad->status);
		return false;
	}
	q->r = p->ticks.p50 / t->ticks.p50;
	q->how = "unpaired";
	if (p->interleaved && p->ref_case == t->c && p->pair_rounds >= DPK_BENCH_PAIR_ROUNDS_MIN) {
		q->r = p->pair_ratio.p50;
		q->lo = p->pair_ratio.p50_lo;
		q->hi = p->pair_ratio.p50_hi;
		q->how = p->pair_as_run ? "as run" : "paired";
	} else if (a->n < 6 || b->n < 6) {
		snprintf(q->note, sizeof(q->note), "%zu and %zu kept rounds, under 6", a->n, b->n);
	} else if (dpk_bench_floors_apart(t->floor_rt, p->floor_rt)) {
		/* the two ran on hand-offs of another cost (verdicts.md: pair figures follow the
		 * round trip from run to run), and their ratio says nothing */
		snprintf(q->note, sizeof(q->note),
		         "a cache-line round trip of %.0f ticks beside dpkit's, %.0f beside the "
		         "peer's",
		         t->floor_rt, p->floor_rt);
	} else {
		/* The figures' ratio, as wide as the rounds' medians spread each side. */
		q->lo = q->r * (b->p50_lo / b->p50) / (a->p50_hi / a->p50);
		q->hi = q->r * (b->p50_hi / b->p50) / (a->p50_lo / a->p50);
	}
	return true;
}

/* A figure in @p buf: two decimals, or four digits when it is large. */
static const char *figure(char *buf, size_t len, double v)
{
	snprintf(buf, len, v < 1e5 ? "%.2f" : "%.4g", v);
	return buf;
}

enum verdict { V_FASTER, V_SLOWER, V_NOISE, V_NONE, V_COUNT };

static const char *const verdict_name[V_COUNT] = {"dpkit faster", "dpkit slower", "within noise",
                                                  "no verdict"};

static enum verdict verdict_of(const struct ratio *q, double noise)
{
	if (isnan(q->lo) || isnan(q->hi))
		return V_NONE;
	if (q->lo > 1 + noise)
		return V_FASTER;
	if (q->hi < 1 - noise)
		return V_SLOWER;
	return V_NOISE;
}

/* One row of a block: dpkit's item @p i against peer item @p k. */
struct row {
	const struct dpk_bench_result *t, *p;
	struct ratio q;
	bool ok; /* a ratio: both cases ran */
	enum verdict v;
};

static void row_of(const struct peers *pp, size_t i, size_t k, struct row *r)
{
	r->t = &pp->res[i];
	r->p = &pp->res[k];
	r->ok = ratio_of(r->t, r->p, &r->q);
	r->v = r->ok ? verdict_of(&r->q, pp->noise) : V_NONE;
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

/* One peer line of twin item @p i; counts its verdict in @p tally. */
static void peer_line(const struct peers *pp, size_t i, size_t k, int width, bool first,
                      unsigned tally[V_COUNT])
{
	const struct dpk_bench_item *it = &pp->plan.item[i];
	char label[160], params[96], fig[32], pfig[32];
	FILE *f = pp->out;
	struct row r;

	row_of(pp, i, k, &r);
	snprintf(label, sizeof(label), "%s %s", it->c->name,
	         dpk_bench_params_str(it->c, params, sizeof(params)));
	if (r.t->status == DPK_RESULT_OK)
		figure(fig, sizeof(fig), r.t->ticks.p50);
	else
		snprintf(fig, sizeof(fig), "-");
	if (first)
		fprintf(f, "  %-*s %-8s %-13s %9s", width, label, dpk_placement_name(it->p),
		        dpk_bench_unit_name(it->c->unit), fig);
	else
		fprintf(f, "  %-*s %-8s %-13s %9s", width, "", "", "", "");
	fprintf(f, "  %-18s", pp->plan.item[k].s->name);
	if (!r.ok) {
		fprintf(f, "  %s\n", r.q.how);
	} else {
		char iv[40] = "-";

		if (!isnan(r.q.lo))
			snprintf(iv, sizeof(iv), "[%.3f..%.3f]", r.q.lo, r.q.hi);
		fprintf(f, " %9s  x%-6.3f %-16s %-9s %s%s%s%s\n",
		        figure(pfig, sizeof(pfig), r.p->ticks.p50), r.q.r, iv, r.q.how,
		        verdict_name[r.v], r.q.note[0] ? " (" : "", r.q.note, r.q.note[0] ? ")" : "");
	}
	tally[r.v]++;
}

/* The table of one dpkit suite @p ts: its twins in plan order, each with its peers. */
static void block(const struct peers *pp, const struct dpk_bench_suite *ts)
{
	unsigned tally[V_COUNT] = {0};
	int width = 0;
	bool any = false;

	for (size_t i = 0; i < pp->plan.n; i++)
		if (pp->plan.item[i].s == ts)
			width = dpk_report_case_width(pp->plan.item[i].c, width);
	for (size_t i = 0; i < pp->plan.n; i++) {
		if (pp->plan.item[i].s != ts)
			continue;
		for (size_t k = next_peer(pp, i, 0); k < pp->plan.n; k = next_peer(pp, i, k + 1)) {
			if (!any)
				fprintf(pp->out,
				        "\n%s: dpkit's %s against its peers\n"
				        "  %-*s %-8s %-13s %9s  %-18s %9s  %-7s %-16s %-9s %s\n",
				        ts->name, ts->name, width, "case", "place", "unit", "dpkit",
				        "peer", "figure", "ratio", "95% interval", "how",
				        "verdict");
			peer_line(pp, i, k, width, k == next_peer(pp, i, 0), tally);
			any = true;
		}
	}
	if (any)
		fprintf(pp->out,
		        "  %u dpkit faster, %u dpkit slower, %u within noise, %u no verdict\n",
		        tally[V_FASTER], tally[V_SLOWER], tally[V_NOISE], tally[V_NONE]);
}

static void print_tables(const struct peers *pp, const struct dpk_session *s)
{
	const struct dpk_bench_suite *ps;

	fprintf(pp->out,
	        "\npeers: median TSC ticks per unit (%.2f MHz); ratio = peer / dpkit, above 1 "
	        "dpkit is faster; verdicts beyond +-%.3g%%\n"
	        "how: paired = round by round, on their kept samples; as run = the host slowed "
	        "most rounds, paired slow\nsamples and all (the figures stay the kept samples'); "
	        "unpaired = too few rounds paired, the two figures' ratio\n"
	        "intervals cover this process's rounds; a ratio also moves from one process to "
	        "the next, so one\nnear 1 wants a few runs that agree (docs/peers.md)\n",
	        (double)s->runner.clock.hz / 1e6, pp->noise * 100);
	for (unsigned k = 0; (ps = pp->cli->suites[k]); k++)
		for (size_t i = 0; i < pp->npr; i++)
			if (pp->pr[i].ps == ps) {
				fprintf(pp->out, "  %-18s %s\n", ps->name, ps->desc);
				break;
			}
	for (unsigned k = 0; dpk_bench_dpkit_suites[k]; k++)
		block(pp, dpk_bench_dpkit_suites[k]);
}

/* ---- the JSON ------------------------------------------------------------------------ */

static const char *const verdict_key[V_COUNT] = {"dpkit_faster", "dpkit_slower", "within_noise",
                                                 "no_verdict"};

/* One side of a row: its suite, status and median ticks per unit (null unless ok). */
static void json_side(struct dpk_json *j, const char *key, const struct dpk_bench_item *it,
                      const struct dpk_bench_result *r)
{
	dpk_json_object_begin(j, key);
	dpk_json_string(j, "suite", it->s->name);
	dpk_json_string(j, "status", dpk_bench_status_name(r->status));
	if (r->status == DPK_RESULT_OK)
		dpk_json_double(j, "p50", r->ticks.p50);
	else
		dpk_json_null(j, "p50");
	if (r->floor_rt > 0)
		dpk_json_double(j, "floor_ticks", r->floor_rt);
	dpk_json_object_end(j);
}

/* Row @p i, @p k as a JSON object; its verdict. */
static enum verdict json_row(struct dpk_json *j, const struct peers *pp, size_t i, size_t k)
{
	const struct dpk_bench_item *it = &pp->plan.item[i];
	char params[96];
	struct row r;

	row_of(pp, i, k, &r);
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "case", it->c->name);
	dpk_json_string(j, "params", dpk_bench_params_str(it->c, params, sizeof(params)));
	dpk_json_string(j, "placement", dpk_placement_name(it->p));
	dpk_json_string(j, "unit", dpk_bench_unit_name(it->c->unit));
	json_side(j, "dpkit", it, r.t);
	json_side(j, "peer", &pp->plan.item[k], r.p);
	if (r.ok) {
		dpk_json_double(j, "ratio", r.q.r);
		dpk_json_double(j, "ci95_lo", r.q.lo); /* NaN: null, no interval */
		dpk_json_double(j, "ci95_hi", r.q.hi);
		dpk_json_string(j, "how", r.q.how);
		dpk_json_string(j, "note", r.q.note[0] ? r.q.note : NULL);
	} else {
		dpk_json_null(j, "ratio");
		dpk_json_null(j, "ci95_lo");
		dpk_json_null(j, "ci95_hi");
		dpk_json_null(j, "how");
		dpk_json_string(j, "note", r.q.how);
	}
	dpk_json_string(j, "verdict", verdict_key[r.v]);
	dpk_json_object_end(j);
	return r.v;
}

/* The "peers" member of the results file: every row of the tables, block by block. */
static void json_peers(struct dpk_json *j, void *ctx)
{
	const struct peers *pp = ctx;
	const struct dpk_bench_suite *ts;
	unsigned tally[V_COUNT] = {0};

	dpk_json_object_begin(j, "peers");
	dpk_json_string(j, "ratio",
	                "peer / dpkit of the median TSC ticks per unit: above 1 "
	                "dpkit is faster");
	dpk_json_double(j, "noise", pp->noise);
	dpk_json_array_begin(j, "blocks");
	for (unsigned b = 0; (ts = dpk_bench_dpkit_suites[b]); b++) {
		bool any = false;

		for (size_t i = 0; i < pp->plan.n; i++) {
			if (pp->plan.item[i].s != ts)
				continue;
			for (size_t k = next_peer(pp, i, 0); k < pp->plan.n;
			     k = next_peer(pp, i, k + 1)) {
				if (!any) {
					dpk_json_object_begin(j, NULL);
					dpk_json_string(j, "block", ts->name);
					dpk_json_array_begin(j, "pairs");
					any = true;
				}
				tally[json_row(j, pp, i, k)]++;
			}
		}
		if (any) {
			dpk_json_array_end(j);
			dpk_json_object_end(j);
		}
	}
	dpk_json_array_end(j);
	dpk_json_object_begin(j, "summary");
	for (unsigned v = 0; v < V_COUNT; v++)
		dpk_json_uint(j, verdict_key[v], tally[v]);
	dpk_json_object_end(j);
	dpk_json_object_end(j);
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

static int peers_run(struct peers *pp, struct dpk_session *s)
{
	uint64_t t0;
	int rc;

	if (dpk_bench_plan_make(&pp->plan, &s->runner, pp->cli->suites, select_sel, pp, true))
		return dpk_cli_fail(pp->cli, "the pairings have no case to run on the chosen "
		                             "placements");
	regroup(pp, &pp->plan);
	pp->res = calloc(pp->plan.n, sizeof(*pp->res));
	if (!pp->res)
		return dpk_cli_fail(pp->cli, "out of memory");
	if (!pp->cli->quiet) {
		dpk_report_env(pp->out, &s->env, &s->runner.clock);
		dpk_report_placements(pp->out, &s->meta);
		fprintf(pp->out, "plan\n  %zu case runs in %zu pairings\n", pp->plan.n, pp->npr);
		fflush(pp->out);
	}
	t0 = dpk_tsc();
	run(pp, s, &pp->plan, pp->res);
	s->meta.wall_s = (double)(dpk_tsc() - t0) / (double)s->runner.clock.hz;
	print_tables(pp, s);
	fflush(pp->out);
	rc = write_json(pp, s);
	return rc ? rc : status_of(pp);
}

int dpk_cmd_peers(struct dpk_cli *cli)
{
	struct peers pp = {
	        .cli = cli, .noise = dpk_cli_or(cli->noise, DPK_CLI_NOISE), .json.fifo = -1};
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
	if ((rc = dpk_session_start(cli, &s)) == 0) {
		rc = peers_run(&pp, &s);
		dpk_session_stop(&s);
	}
	peers_free(&pp);
	return rc;
}
