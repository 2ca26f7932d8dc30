/* SPDX-License-Identifier: BSD-3-Clause */
/* The tables and the "peers" JSON member of dpk-bench peers, from its rows (peers_rows.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peers_rows.h"
#include "report.h"

static const char *const verdict_name[DPK_PV_COUNT] = {"dpkit faster", "dpkit slower",
                                                       "within noise", "no verdict"};

const char *const dpk_peer_verdict_key[DPK_PV_COUNT] = {"dpkit_faster", "dpkit_slower",
                                                        "within_noise", "no_verdict"};

enum dpk_peer_verdict dpk_peer_verdict_of(double lo, double hi, double noise)
{
	if (isnan(lo) || isnan(hi))
		return DPK_PV_NONE;
	if (lo > 1 + noise)
		return DPK_PV_FASTER;
	if (hi < 1 - noise)
		return DPK_PV_SLOWER;
	return DPK_PV_NOISE;
}

enum dpk_peer_verdict dpk_peer_verdict_parse(const char *s)
{
	for (unsigned v = 0; s && v < DPK_PV_COUNT; v++)
		if (strcmp(s, dpk_peer_verdict_key[v]) == 0)
			return (enum dpk_peer_verdict)v;
	return DPK_PV_COUNT;
}

/* A figure in @p buf: two decimals, or four digits when it is large; "-" for none. */
static const char *figure(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, v < 1e5 ? "%.2f" : "%.4g", v);
	return buf;
}

/* Whether row @p b is another peer of row @p a's twin. */
static bool same_twin(const struct dpk_peer_row *a, const struct dpk_peer_row *b)
{
	return strcmp(a->block, b->block) == 0 && strcmp(a->name, b->name) == 0 &&
	       strcmp(a->params, b->params) == 0 && strcmp(a->place, b->place) == 0;
}

/* The ratios of the processes a merged row rests on, after its verdict. */
static void proc_ratios(FILE *f, const struct dpk_peer_row *r)
{
	for (unsigned k = 0; k < r->nproc; k++) {
		if (isnan(r->proc[k].r))
			fprintf(f, " -");
		else
			fprintf(f, " x%.3f", r->proc[k].r);
	}
}

/* One line of the table: row @p r, its twin's columns blank when @p first is false. */
static void line(FILE *f, const struct dpk_peer_row *r, int width, bool first)
{
	char label[160], fig[32], pfig[32], iv[40] = "-";

	snprintf(label, sizeof(label), "%s %s", r->name, r->params);
	if (first)
		fprintf(f, "  %-*s %-8s %-13s %9s", width, label, r->place, r->unit,
		        figure(fig, sizeof(fig), r->t.p50));
	else
		fprintf(f, "  %-*s %-8s %-13s %9s", width, "", "", "", "");
	fprintf(f, "  %-18s", r->p.suite);
	if (!r->ok) {
		fprintf(f, "  %s\n", r->note);
		return;
	}
	if (!isnan(r->lo))
		snprintf(iv, sizeof(iv), "[%.3f..%.3f]", r->lo, r->hi);
	fprintf(f, " %9s  x%-6.3f %-16s %-9s %s", figure(pfig, sizeof(pfig), r->p.p50), r->r, iv,
	        r->how, verdict_name[r->v]);
	proc_ratios(f, r);
	if (r->note[0])
		fprintf(f, " (%s)", r->note);
	fputc('\n', f);
}

/* The table of block @p b: the rows from @p i that are its. The row after them. */
static size_t block(FILE *f, const struct dpk_peer_table *t, size_t i)
{
	const char *b = t->row[i].block;
	unsigned tally[DPK_PV_COUNT] = {0};
	int width = 0;
	size_t end = i;

	for (; end < t->n && strcmp(t->row[end].block, b) == 0; end++) {
		int w = (int)(strlen(t->row[end].name) + 1 + strlen(t->row[end].params));
		width = w > width ? w : width;
	}
	fprintf(f,
	        "\n%s: dpkit's %s against its peers\n"
	        "  %-*s %-8s %-13s %9s  %-18s %9s  %-7s %-16s %-9s %s%s\n",
	        b, b, width, "case", "place", "unit", "dpkit", "peer", "figure", "ratio",
	        "95% interval", "how", "verdict", t->processes > 1 ? "  each process" : "");
	for (size_t k = i; k < end; k++) {
		line(f, &t->row[k], width, k == i || !same_twin(&t->row[k - 1], &t->row[k]));
		tally[t->row[k].v]++;
	}
	fprintf(f, "  %u dpkit faster, %u dpkit slower, %u within noise, %u no verdict\n",
	        tally[DPK_PV_FASTER], tally[DPK_PV_SLOWER], tally[DPK_PV_NOISE],
	        tally[DPK_PV_NONE]);
	return end;
}

/* What the figures and intervals rest on: one process, or several merged. */
static void header(FILE *f, const struct dpk_peer_table *t)
{
	fprintf(f,
	        "\npeers: median TSC ticks per unit (%.2f MHz); ratio = peer / dpkit, above 1 "
	        "dpkit is faster; verdicts beyond +-%.3g%%\n"
	        "how: paired = round by round, on their kept samples; as run = the host slowed "
	        "most rounds, paired slow\nsamples and all (the figures stay the kept samples'); "
	        "unpaired = too few rounds paired, the two figures' ratio\n",
	        t->mhz, t->noise * 100);
	if (t->processes > 1)
		fprintf(f,
		        "%u processes, one after the other: figures and ratios are their geometric "
		        "means, an interval spans\ntheirs, and a verdict needs every process's "
		        "interval beyond the noise on one side (docs/peers.md)\n",
		        t->processes);
	else
		fprintf(f, "intervals cover this process's rounds; a ratio also moves from one "
		           "process to the next, so one\nnear 1 wants a few runs that agree "
		           "(--processes, docs/peers.md)\n");
}

void dpk_peers_print(FILE *f, const struct dpk_peer_table *t,
                     const struct dpk_bench_suite *const *suites)
{
	const struct dpk_bench_suite *s;

	header(f, t);
	for (unsigned k = 0; (s = suites[k]); k++)
		for (size_t i = 0; i < t->n; i++)
			if (strcmp(t->row[i].p.suite, s->name) == 0) {
				fprintf(f, "  %-18s %s\n", s->name, s->desc);
				break;
			}
	for (size_t i = 0; i < t->n;)
		i = block(f, t, i);
}

/* ---- the JSON ------------------------------------------------------------------------ */

static void json_side(struct dpk_json *j, const char *key, const struct dpk_peer_side *s)
{
	dpk_json_object_begin(j, key);
	dpk_json_string(j, "suite", s->suite);
	dpk_json_string(j, "status", s->status);
	dpk_json_double(j, "p50", s->p50); /* NaN: null */
	if (!isnan(s->floor))
		dpk_json_double(j, "floor_ticks", s->floor);
	dpk_json_object_end(j);
}

/* What each process gave a merged row. */
static void json_procs(struct dpk_json *j, const struct dpk_peer_row *r)
{
	dpk_json_array_begin(j, "processes");
	for (unsigned k = 0; k < r->nproc; k++) {
		const struct dpk_peer_proc *q = &r->proc[k];

		dpk_json_object_begin(j, NULL);
		dpk_json_double(j, "dpkit_p50", q->t_p50);
		dpk_json_double(j, "peer_p50", q->p_p50);
		dpk_json_double(j, "ratio", q->r);
		dpk_json_double(j, "ci95_lo", q->lo);
		dpk_json_double(j, "ci95_hi", q->hi);
		dpk_json_string(j, "how", q->how);
		dpk_json_string(j, "verdict", dpk_peer_verdict_key[q->v]);
		dpk_json_object_end(j);
	}
	dpk_json_array_end(j);
}

static void json_row(struct dpk_json *j, const struct dpk_peer_row *r)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "case", r->name);
	dpk_json_string(j, "params", r->params);
	dpk_json_string(j, "placement", r->place);
	dpk_json_string(j, "unit", r->unit);
	json_side(j, "dpkit", &r->t);
	json_side(j, "peer", &r->p);
	dpk_json_double(j, "ratio", r->ok ? r->r : NAN); /* NaN: null */
	dpk_json_double(j, "ci95_lo", r->ok ? r->lo : NAN);
	dpk_json_double(j, "ci95_hi", r->ok ? r->hi : NAN);
	dpk_json_string(j, "how", r->ok ? r->how : NULL);
	dpk_json_string(j, "note", r->note[0] ? r->note : NULL);
	dpk_json_string(j, "verdict", dpk_peer_verdict_key[r->v]);
	if (r->nproc)
		json_procs(j, r);
	dpk_json_object_end(j);
}

/* The end of a block's object: its "pairs" array, then the object. */
static void block_end(struct dpk_json *j)
{
	dpk_json_array_end(j);
	dpk_json_object_end(j);
}

void dpk_peers_json(struct dpk_json *j, const struct dpk_peer_table *t)
{
	unsigned tally[DPK_PV_COUNT] = {0};

	dpk_json_object_begin(j, "peers");
	dpk_json_string(j, "ratio",
	                "peer / dpkit of the median TSC ticks per unit: above 1 "
	                "dpkit is faster");
	dpk_json_double(j, "noise", t->noise);
	dpk_json_uint(j, "processes", t->processes);
	dpk_json_array_begin(j, "blocks");
	for (size_t i = 0; i < t->n; i++) {
		if (i == 0 || strcmp(t->row[i - 1].block, t->row[i].block) != 0) {
			if (i)
				block_end(j);
			dpk_json_object_begin(j, NULL);
			dpk_json_string(j, "block", t->row[i].block);
			dpk_json_array_begin(j, "pairs");
		}
		json_row(j, &t->row[i]);
		tally[t->row[i].v]++;
	}
	if (t->n)
		block_end(j);
	dpk_json_array_end(j);
	dpk_json_object_begin(j, "summary");
	for (unsigned v = 0; v < DPK_PV_COUNT; v++)
		dpk_json_uint(j, dpk_peer_verdict_key[v], tally[v]);
	dpk_json_object_end(j);
	dpk_json_object_end(j);
}
