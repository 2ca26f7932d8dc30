/* SPDX-License-Identifier: BSD-3-Clause */
/* The spread of several runs of the same cases (see spread.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spread.h"
#include "stats.h"

/* Every distinct repeat of every file, in order, into s->runs. */
static int find_runs(const struct dpk_results *files, unsigned nfiles, struct dpk_spread *s,
                     char *err, size_t errlen)
{
	s->runs = calloc(DPK_SPREAD_RUNS_MAX, sizeof(*s->runs));
	if (!s->runs)
		return -ENOMEM;
	for (unsigned f = 0; f < nfiles; f++) {
		for (size_t i = 0; i < files[f].n; i++) {
			bool seen = false;

			for (unsigned q = 0; q < s->nruns && !seen; q++)
				seen = s->runs[q].file == &files[f] &&
				       s->runs[q].repeat == files[f].e[i].repeat;
			if (seen)
				continue;
			if (s->nruns == DPK_SPREAD_RUNS_MAX) {
				snprintf(err, errlen, "more than %d runs", DPK_SPREAD_RUNS_MAX);
				return -E2BIG;
			}
			s->runs[s->nruns++] =
			        (struct dpk_spread_run){&files[f], files[f].e[i].repeat};
		}
	}
	if (s->nruns < 2) {
		snprintf(
		        err, errlen,
		        "%u run%s found; give two or more files, or a file written with --repeat 2 "
		        "or more",
		        s->nruns, s->nruns == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}

/* The median of case @p id in @p run in the unit of @p s, or NaN when it did not run ok
 * there (or has no figure in that unit); its slow_only, slices and floor go to
 * @p slow_only, @p slices and @p floor, its result to @p entry (NULL: none). */
static double run_p50(const struct dpk_spread *s, const struct dpk_spread_run *run, const char *id,
                      bool *slow_only, double *slices, double *floor,
                      const struct dpk_res_entry **entry)
{
	*entry = NULL;
	for (size_t i = 0; i < run->file->n; i++) {
		const struct dpk_res_entry *e = &run->file->e[i];

		if (e->repeat == run->repeat && e->ok && strcmp(e->id, id) == 0) {
			*entry = e;
			*slow_only = e->witness_slow_only;
			*slices = e->witness_kept_rounds;
			*floor = e->floor_rt > 0 ? e->floor_rt : NAN;
			if (s->cycles)
				return e->cycles.p50;
			return s->per_floor ? e->ticks.p50 / *floor : e->ticks.p50;
		}
	}
	*slow_only = false;
	*slices = *floor = NAN;
	return NAN;
}

/* @p e's kept rounds' floors, sorted, in a new array (*n of them); NULL when out of memory. */
static double *sorted_floors(const struct dpk_res_entry *e, size_t *n)
{
	double *f = malloc((e->rounds_run ? e->rounds_run : 1) * sizeof(*f));

	*n = f ? dpk_cmp_round_floors(e, f) : 0;
	dpk_stats_sort(f, *n);
	return f;
}

double dpk__spread_floor_ref(const struct dpk_spread *s, size_t c, unsigned *nf)
{
	double f[DPK_SPREAD_RUNS_MAX];

	*nf = 0;
	for (unsigned q = 0; q < s->nruns; q++)
		if (isfinite(s->floor[c * s->nruns + q]))
			f[(*nf)++] = s->floor[c * s->nruns + q];
	return *nf ? dpk_stats_median(f, *nf) : NAN;
}

/* Mark the runs of row @p c (results @p ent) whose floor lies off the median of the row's
 * floors beyond noise (dpk_cmp_floor_off()). -ENOMEM, or how many were marked. */
static int mark_moved(struct dpk_spread *s, size_t c, const struct dpk_res_entry *const *ent)
{
	const size_t at = c * s->nruns;
	unsigned nf;
	const double m = dpk__spread_floor_ref(s, c, &nf);
	double *fq;
	size_t nq;
	int moved = 0;

	if (nf < 2)
		return 0;
	for (unsigned q = 0; q < s->nruns; q++) {
		if (!isfinite(s->floor[at + q]))
			continue;
		fq = sorted_floors(ent[q], &nq);
		if (!fq)
			return -ENOMEM;
		s->moved[at + q] = dpk_cmp_floor_off(s->floor[at + q], fq, nq, m);
		moved += s->moved[at + q];
		free(fq);
	}
	return moved;
}

bool dpk_spread_counts(const struct dpk_spread *s, size_t c, unsigned q)
{
	return !(s->moved[c * s->nruns + q] && !s->per_floor && !s->cycles &&
	         s->nmoved[c] + 2 <= s->nruns);
}

/* Fill row s->ncases from case @p id: 1 when it ran ok in every run, 0 when not, -ENOMEM. */
static int take_case(struct dpk_spread *s, const char *id)
{
	const size_t at = s->ncases * s->nruns;
	const struct dpk_res_entry *ent[DPK_SPREAD_RUNS_MAX];
	double lo = INFINITY, hi = 0;
	int moved;

	for (unsigned q = 0; q < s->nruns; q++) {
		double v = run_p50(s, &s->runs[q], id, &s->slow_only[at + q], &s->slices[at + q],
		                   &s->floor[at + q], &ent[q]);

		if (!(isfinite(v) && v > 0))
			return 0;
		s->p50[at + q] = v;
	}
	moved = mark_moved(s, s->ncases, ent);
	if (moved < 0)
		return moved;
	s->nmoved[s->ncases] = (unsigned)moved;
	for (unsigned q = 0; q < s->nruns; q++)
		if (dpk_spread_counts(s, s->ncases, q)) {
			lo = fmin(lo, s->p50[at + q]);
			hi = fmax(hi, s->p50[at + q]);
		}
	s->with_moved += moved > 0;
	s->id[s->ncases] = id;
	s->spread[s->ncases] = (hi - lo) / lo;
	return dpk__spread_regimes(s, s->ncases, ent) < 0 ? -ENOMEM : 1;
}

static int alloc_matrices(struct dpk_spread *s, size_t rows)
{
	const size_t cells = (rows ? rows : 1) * s->nruns;

	s->id = calloc(rows ? rows : 1, sizeof(*s->id));
	s->spread = calloc(rows ? rows : 1, sizeof(*s->spread));
	s->p50 = calloc(cells, sizeof(*s->p50));
	s->slices = calloc(cells, sizeof(*s->slices));
	s->slow_only = calloc(cells, sizeof(*s->slow_only));
	s->flagged = calloc(s->nruns, sizeof(*s->flagged));
	s->floor = calloc(cells, sizeof(*s->floor));
	s->moved = calloc(cells, sizeof(*s->moved));
	s->nmoved = calloc(rows ? rows : 1, sizeof(*s->nmoved));
	s->nregimes = calloc(rows ? rows : 1, sizeof(*s->nregimes));
	s->regime_p50 = calloc(cells * DPK_SPREAD_REGIMES_MAX, sizeof(*s->regime_p50));
	s->regime_rounds = calloc(cells * DPK_SPREAD_REGIMES_MAX, sizeof(*s->regime_rounds));
	s->regime_spread =
	        calloc((rows ? rows : 1) * DPK_SPREAD_REGIMES_MAX, sizeof(*s->regime_spread));
	return s->id && s->spread && s->p50 && s->slices && s->slow_only && s->flagged &&
	                       s->floor && s->moved && s->nmoved && s->nregimes && s->regime_p50 &&
	                       s->regime_rounds && s->regime_spread
	               ? 0
	               : -ENOMEM;
}

/* The cases of the first run, each once (at its first ok appearance), with their medians.
 * 0 or -ENOMEM. */
static int take_cases(struct dpk_spread *s, const struct dpk_spread_options *o)
{
	const struct dpk_results *first = s->runs[0].file;

	for (size_t i = 0; i < first->n; i++) {
		const struct dpk_res_entry *e = &first->e[i];
		int rc;

		if (e->repeat != s->runs[0].repeat || !e->ok ||
		    !dpk_results_selected(o->patterns, o->npatterns, e))
			continue;
		rc = take_case(s, e->id);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			s->partial++;
			continue;
		}
		for (unsigned q = 0; q < s->nruns; q++)
			s->flagged[q] += s->slow_only[s->ncases * s->nruns + q];
		if (s->spread[s->ncases] >= s->limit)
			s->over++;
		if (s->ncases == 0 || s->spread[s->ncases] > s->spread[s->worst])
			s->worst = s->ncases;
		s->ncases++;
	}
	return 0;
}

int dpk_spread_compute(const struct dpk_results *files, unsigned nfiles,
                       const struct dpk_spread_options *o, struct dpk_spread *s, char *err,
                       size_t errlen)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->limit = o->limit;
	s->cycles = o->cycles;
	s->per_floor = o->per_floor && !o->cycles;
	rc = find_runs(files, nfiles, s, err, errlen);
	if (rc == 0)
		rc = alloc_matrices(s, s->runs[0].file->n);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc)
		return rc;
	rc = take_cases(s, o);
	if (rc) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	if (s->ncases == 0) {
		snprintf(err, errlen, "no case ran ok%s in every run%s",
		         o->cycles      ? " with figures in cycles"
		         : o->per_floor ? " with a floor of its own"
		                        : "",
		         o->npatterns ? " among those the patterns select" : "");
		return -ENOENT;
	}
	{
		double *sorted = malloc(s->ncases * sizeof(*sorted));

		if (!sorted) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		memcpy(sorted, s->spread, s->ncases * sizeof(*sorted));
		s->median = dpk_stats_median(sorted, s->ncases);
		free(sorted);
	}
	return 0;
}

void dpk_spread_free(struct dpk_spread *s)
{
	free(s->runs);
	free(s->id);
	free(s->p50);
	free(s->slow_only);
	free(s->slices);
	free(s->spread);
	free(s->flagged);
	free(s->floor);
	free(s->moved);
	free(s->nmoved);
	free(s->nregimes);
	free(s->regime_p50);
	free(s->regime_rounds);
	free(s->regime_spread);
	memset(s, 0, sizeof(*s));
}

double dpk_spread_choose(unsigned n, unsigned k)
{
	double c = 1;

	for (unsigned i = 0; i < k; i++)
		c = c * (double)(n - i) / (double)(i + 1);
	return c;
}

/* Whether every case stays under the limit over the runs @p idx[0..k); counts the cases
 * that do not in @p miss. */
static bool set_holds(const struct dpk_spread *s, const unsigned *idx, unsigned k, size_t *miss)
{
	bool ok = true;

	for (size_t c = 0; c < s->ncases; c++) {
		const double *v = s->p50 + c * s->nruns;
		double lo = INFINITY, hi = 0;

		for (unsigned j = 0; j < k; j++)
			if (dpk_spread_counts(s, c, idx[j])) {
				lo = fmin(lo, v[idx[j]]);
				hi = fmax(hi, v[idx[j]]);
			}
		if (isfinite(lo) && (hi - lo) / lo >= s->limit) {
			miss[c]++;
			ok = false;
		}
	}
	return ok;
}

int dpk_spread_sets(const struct dpk_spread *s, unsigned k, struct dpk_spread_sets *out)
{
	unsigned idx[DPK_SPREAD_RUNS_MAX];

	memset(out, 0, sizeof(*out));
	if (k < 2 || k > s->nruns)
		return -EINVAL;
	if (dpk_spread_choose(s->nruns, k) > DPK_SPREAD_SETS_MAX)
		return -E2BIG;
	out->k = k;
	out->miss = calloc(s->ncases ? s->ncases : 1, sizeof(*out->miss));
	if (!out->miss)
		return -ENOMEM;
	for (unsigned i = 0; i < k; i++)
		idx[i] = i;
	for (;;) {
		int i;

		out->good += set_holds(s, idx, k, out->miss);
		out->total++;
		/* The next set, in lexicographic order. */
		for (i = (int)k - 1; i >= 0 && idx[i] == s->nruns - k + (unsigned)i; i--)
			;
		if (i < 0)
			break;
		idx[i]++;
		for (unsigned j = (unsigned)i + 1; j < k; j++)
			idx[j] = idx[j - 1] + 1;
	}
	return 0;
}
