/* SPDX-License-Identifier: BSD-3-Clause */
/* The regimes of a case over several runs (spread.h, dpk__spread_regimes()). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "spread.h"
#include "stats.h"

/* Round @p q of @p e over its floor; NaN when left out, without a floor, or with one over
 * DPK_CMP_FLOOR_MOVED off @p ref, the median of the case's floors over the runs: such a
 * round ran where the host had put the lcores for a while (SMT siblings, another cache),
 * which scales a pair case's cost otherwise than its floor's, and would pass for a regime. */
static double over_floor(const struct dpk_res_entry *e, size_t q, double ref)
{
	const double m = e->round_p50[q], f = e->round_floor[q];

	if (!(isfinite(m) && f > 0) || dpk_stats_apart(f, ref, DPK_CMP_FLOOR_MOVED))
		return NAN;
	return m / f;
}

/* Every run's rounds of @p ent over their floors into @p v; how many. */
static size_t pool(const struct dpk_spread *s, const struct dpk_res_entry *const *ent, double ref,
                   double *v)
{
	size_t n = 0;

	for (unsigned q = 0; q < s->nruns; q++)
		for (size_t r = 0; r < ent[q]->rounds_run; r++) {
			const double x = over_floor(ent[q], r, ref);

			if (isfinite(x))
				v[n++] = x;
		}
	return n;
}

/* Regime @p k (cluster @p cl) of row @p c: each run's median there and their spread; whether
 * that spread is at or over the limit. @p ref as for over_floor(); @p w has room for any
 * run's rounds. */
static bool take_regime(struct dpk_spread *s, size_t c, unsigned k,
                        const struct dpk_stats_cluster *cl, const struct dpk_res_entry *const *ent,
                        double ref, double *w)
{
	const size_t row = (c * DPK_SPREAD_REGIMES_MAX + k) * s->nruns;
	double lo = INFINITY, hi = 0;
	unsigned counted = 0;

	for (unsigned q = 0; q < s->nruns; q++) {
		size_t m = 0;

		for (size_t r = 0; r < ent[q]->rounds_run; r++) {
			const double x = over_floor(ent[q], r, ref);

			if (x >= cl->lo && x <= cl->hi)
				w[m++] = s->per_floor ? x : ent[q]->round_p50[r];
		}
		s->regime_rounds[row + q] = (unsigned)m;
		if (m < DPK_SPREAD_REGIME_ROUNDS)
			continue;
		s->regime_p50[row + q] = dpk_stats_median(w, m);
		if (!dpk_spread_counts(s, c, q))
			continue;
		lo = fmin(lo, s->regime_p50[row + q]);
		hi = fmax(hi, s->regime_p50[row + q]);
		counted++;
	}
	if (counted < 2)
		return false;
	s->regime_spread[c * DPK_SPREAD_REGIMES_MAX + k] = (hi - lo) / lo;
	return (hi - lo) / lo >= s->limit;
}

int dpk__spread_regimes(struct dpk_spread *s, size_t c, const struct dpk_res_entry *const *ent)
{
	struct dpk_stats_cluster cl[DPK_SPREAD_REGIMES_MAX];
	size_t total = 0, most = 1, n;
	bool over = false;
	double *v, *w, ref;
	unsigned nc, nf;

	s->nregimes[c] = 0;
	for (unsigned k = 0; k < DPK_SPREAD_REGIMES_MAX; k++) {
		s->regime_spread[c * DPK_SPREAD_REGIMES_MAX + k] = NAN;
		for (unsigned q = 0; q < s->nruns; q++)
			s->regime_p50[(c * DPK_SPREAD_REGIMES_MAX + k) * s->nruns + q] = NAN;
	}
	if (s->cycles)
		return 0;
	for (unsigned q = 0; q < s->nruns; q++) {
		if (!ent[q]->round_floor)
			return 0;
		total += ent[q]->rounds_run;
		most = ent[q]->rounds_run > most ? ent[q]->rounds_run : most;
	}
	v = malloc((total ? total : 1) * sizeof(*v));
	w = malloc(most * sizeof(*w));
	if (!v || !w) {
		free(v);
		free(w);
		return -ENOMEM;
	}
	ref = dpk__spread_floor_ref(s, c, &nf);
	n = pool(s, ent, ref, v);
	nc = dpk_stats_regimes(v, n, cl, DPK_SPREAD_REGIMES_MAX);
	if (nc > 1) {
		s->nregimes[c] = nc;
		for (unsigned k = 0; k < nc; k++)
			over = take_regime(s, c, k, &cl[k], ent, ref, w) || over;
		s->with_regimes++;
		s->regimes_over += over;
	}
	free(v);
	free(w);
	return 0;
}
