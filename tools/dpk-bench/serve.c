/* SPDX-License-Identifier: BSD-3-Clause */
/* serve.c - a build's side of dpk-bench ab: its sets, round by round, over a pipe. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>

#include "output.h"
#include "serve.h"

/* Whether plan item @p b runs in the same set as item @p a. */
static bool same_set(const struct dpk_bench_item *a, const struct dpk_bench_item *b)
{
	const bool ma = a->c->kind != DPK_BENCH_SINGLE, mb = b->c->kind != DPK_BENCH_SINGLE;

	return a->s == b->s && ma == mb && (!ma || a->p == b->p);
}

unsigned dpk_serve_sets(const struct dpk_bench_plan *plan, struct dpk_serve_set **out)
{
	struct dpk_serve_set *sets = calloc(plan->n ? plan->n : 1, sizeof(*sets));
	bool *taken = calloc(plan->n ? plan->n : 1, sizeof(*taken));
	unsigned n = 0;

	for (size_t i = 0; sets && taken && i < plan->n; i++) {
		struct dpk_serve_set *s = &sets[n];

		if (taken[i])
			continue;
		s->at = calloc(plan->n, sizeof(*s->at));
		if (!s->at) {
			dpk_serve_sets_free(sets, n);
			sets = NULL;
			break;
		}
		s->multi = plan->item[i].c->kind != DPK_BENCH_SINGLE;
		s->placement = plan->item[i].p;
		for (size_t j = i; j < plan->n; j++)
			if (!taken[j] && same_set(&plan->item[i], &plan->item[j])) {
				taken[j] = true;
				s->at[s->k++] = j;
			}
		n++;
	}
	free(taken);
	*out = sets;
	return sets ? n : 0;
}

void dpk_serve_sets_free(struct dpk_serve_set *sets, unsigned n)
{
	for (unsigned i = 0; sets && i < n; i++)
		free(sets[i].at);
	free(sets);
}

static int cmp_param(const void *a, const void *b)
{
	const struct dpk_bench_param *x = a, *y = b;

	return strcmp(x->name, y->name);
}

char *dpk_serve_case_id(const struct dpk_bench_item *it, char *buf, size_t len)
{
	struct dpk_bench_param ps[DPK_BENCH_PARAMS_MAX];
	unsigned np = 0;
	size_t off;

	while (np < DPK_BENCH_PARAMS_MAX && it->c->params[np].name) {
		ps[np] = it->c->params[np];
		np++;
	}
	/* Sorted by name, as the results reader orders them. */
	qsort(ps, np, sizeof(ps[0]), cmp_param);
	off = (size_t)snprintf(buf, len, "%s/%s", it->s->name, it->c->name);
	for (unsigned i = 0; i < np && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "/%s:%ld", ps[i].name, ps[i].value);
	if (off < len)
		snprintf(buf + off, len - off, "/placement:%s", dpk_placement_name(it->p));
	return buf;
}

/* What a serving child keeps. */
struct serve {
	struct dpk_bench_runner *r;
	const struct dpk_bench_plan *plan;
	struct dpk_serve_set *sets;
	unsigned nsets;
	struct dpk_bench_set **open;   /* per set, while open */
	struct dpk_bench_result **res; /* per set, its results while open */
	bool *closed;
	struct dpk_bench_result *all; /* per plan item, the results of closed sets */
	bool *have;                   /* all[i] is filled */
	FILE *out;
};

static void announce(const struct serve *sv)
{
	char id[320];

	fprintf(sv->out, "dpk-bench-serve %d %d %s %s\n", DPK_SERVE_PROTOCOL,
	        DPK_BENCH_SCHEMA_VERSION, dpk_version(), dpk_bench_git_rev);
	for (unsigned i = 0; i < sv->nsets; i++) {
		const struct dpk_serve_set *s = &sv->sets[i];

		const unsigned rounds = s->multi ? dpk_bench_multi_rounds_of(sv->r, s->placement)
		                                 : dpk_bench_rounds_of(sv->r);
		const struct dpk_bench_options *o = &sv->r->opt;

		/* A round's expected length, for the parent's patience: every case's share of
		 * its time and warm-up, and some set-up. */
		fprintf(sv->out, "set %u %s %s %u %u %.3f\n", i, s->multi ? "multi" : "single",
		        dpk_placement_name(s->placement), s->k, rounds,
		        s->k * ((o->time_s + o->warmup_s) / rounds + 0.01));
		for (unsigned j = 0; j < s->k; j++)
			fprintf(sv->out, "case %u %s\n", i,
			        dpk_serve_case_id(&sv->plan->item[s->at[j]], id, sizeof(id)));
	}
	fprintf(sv->out, "ready\n");
	fflush(sv->out);
}

/* Open set @p i (its items into a set of the engine) unless it is open or closed. */
static bool open_set(struct serve *sv, unsigned i)
{
	const struct dpk_serve_set *s = &sv->sets[i];
	struct dpk_bench_item *items;

	if (sv->open[i] || sv->closed[i])
		return sv->open[i] != NULL;
	items = malloc((s->k ? s->k : 1) * sizeof(*items));
	sv->res[i] = calloc(s->k ? s->k : 1, sizeof(*sv->res[i]));
	if (!items || !sv->res[i]) {
		free(items);
		return false;
	}
	for (unsigned j = 0; j < s->k; j++)
		items[j] = sv->plan->item[s->at[j]];
	sv->open[i] = dpk_bench_set_open(sv->r, items, s->k, 0, sv->res[i]);
	free(items);
	return sv->open[i] != NULL;
}

/* Round @p q of set @p i; says done, or the first case that failed. */
static bool do_round(struct serve *sv, unsigned i, unsigned q)
{
	const struct dpk_serve_set *s = &sv->sets[i];
	char id[320];

	if (i >= sv->nsets || sv->closed[i] || !open_set(sv, i))
		return false;
	dpk_bench_set_round(sv->open[i], q);
	for (unsigned j = 0; j < s->k; j++)
		if (sv->res[i][j].status == DPK_RESULT_FAILED) {
			fprintf(sv->out, "failed %u %u %s %s\n", i, q,
			        dpk_serve_case_id(&sv->plan->item[s->at[j]], id, sizeof(id)),
			        sv->res[i][j].reason);
			fflush(sv->out);
			return true;
		}
	fprintf(sv->out, "done %u %u\n", i, q);
	fflush(sv->out);
	return true;
}

/* Close set @p i: judge it and keep its results. */
static bool do_close(struct serve *sv, unsigned i)
{
	const struct dpk_serve_set *s;

	if (i >= sv->nsets || sv->closed[i] || !open_set(sv, i))
		return false;
	s = &sv->sets[i];
	dpk_bench_set_close(sv->open[i]);
	sv->open[i] = NULL;
	sv->closed[i] = true;
	for (unsigned j = 0; j < s->k; j++) {
		sv->all[s->at[j]] = sv->res[i][j];
		sv->have[s->at[j]] = true;
	}
	free(sv->res[i]);
	sv->res[i] = NULL;
	fprintf(sv->out, "closed %u\n", i);
	fflush(sv->out);
	return true;
}

/* Write the results of the closed sets, in plan order. */
static int write_results(struct serve *sv, struct dpk_bench_meta *meta, struct dpk_output *json)
{
	struct dpk_bench_result *res = calloc(sv->plan->n ? sv->plan->n : 1, sizeof(*res));
	size_t n = 0;
	FILE *f;
	int rc = 2;

	if (!res)
		return 2;
	for (size_t i = 0; i < sv->plan->n; i++)
		if (sv->have[i])
			res[n++] = sv->all[i];
	dpk_bench_witness_finish(sv->r, res, n);
	f = dpk_output_open(json);
	if (f && (dpk_report_json(f, meta, res, n) | fclose(f)) == 0)
		rc = 0;
	free(res);
	return rc;
}

/* Read and carry out commands until finish; the exit status. */
static int serve_loop(struct serve *sv, struct dpk_bench_meta *meta, struct dpk_output *json,
                      FILE *in)
{
	char line[128];
	unsigned i, q;

	while (fgets(line, sizeof(line), in)) {
		char extra;

		if (sscanf(line, "round %u %u %c", &i, &q, &extra) == 2) {
			if (!do_round(sv, i, q))
				return 2;
		} else if (sscanf(line, "close %u %c", &i, &extra) == 1) {
			if (!do_close(sv, i))
				return 2;
		} else if (strcmp(line, "finish\n") == 0) {
			int rc = write_results(sv, meta, json);

			fprintf(sv->out, rc ? "error writing %s\n" : "finished\n", json->path);
			fflush(sv->out);
			return rc;
		} else {
			return 2;
		}
	}
	return 2; /* the parent went away */
}

int dpk_serve(struct dpk_bench_runner *r, const struct dpk_bench_plan *plan,
              struct dpk_bench_meta *meta, struct dpk_output *json, FILE *in, FILE *out)
{
	struct serve sv = {.r = r, .plan = plan, .out = out};
	int rc = 2;

	sv.nsets = dpk_serve_sets(plan, &sv.sets);
	sv.open = calloc(sv.nsets ? sv.nsets : 1, sizeof(*sv.open));
	sv.res = calloc(sv.nsets ? sv.nsets : 1, sizeof(*sv.res));
	sv.closed = calloc(sv.nsets ? sv.nsets : 1, sizeof(*sv.closed));
	sv.all = calloc(plan->n ? plan->n : 1, sizeof(*sv.all));
	sv.have = calloc(plan->n ? plan->n : 1, sizeof(*sv.have));
	if (sv.nsets && sv.open && sv.res && sv.closed && sv.all && sv.have) {
		announce(&sv);
		rc = serve_loop(&sv, meta, json, in);
	}
	for (unsigned i = 0; i < sv.nsets && sv.open; i++) {
		dpk_bench_set_close(sv.open ? sv.open[i] : NULL);
		for (unsigned j = 0; sv.res && sv.res[i] && j < sv.sets[i].k; j++)
			dpk_bench_result_free(&sv.res[i][j]);
		free(sv.res ? sv.res[i] : NULL);
	}
	for (size_t i = 0; sv.all && sv.have && i < plan->n; i++)
		if (sv.have[i])
			dpk_bench_result_free(&sv.all[i]);
	dpk_serve_sets_free(sv.sets, sv.nsets);
	free(sv.open);
	free(sv.res);
	free(sv.closed);
	free(sv.all);
	free(sv.have);
	return rc;
}
