/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stats_rounds.c - a summary of kept samples in which every round weighs the same.
 *
 * A multi-lcore case's rounds each set it up afresh, and each may fall into a regime of
 * its own (docs/pairs.md). A round in a fast regime takes more batches in its time than
 * one in a slow regime, so pooled samples give the fast rounds more say, and a few fast
 * rounds make the median theirs (docs/verdicts.md, "The row's figure"). Here each kept
 * sample weighs 1 / (kept samples of its round), so the figure is that of a set-up drawn
 * at random.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

struct wv {
	double v, w;
};

static int wv_cmp(const void *a, const void *b)
{
	const double x = ((const struct wv *)a)->v, y = ((const struct wv *)b)->v;

	return (x > y) - (x < y);
}

/* The weighted quantile @p q of @p p (n, sorted, weights summing to 1): sample i stands at
 * the middle of its weight, (C_i - w_i / 2), and values between two such points are
 * interpolated; below the first and above the last, the extremes. With equal weights the
 * median is the usual one. */
static double wquantile(const struct wv *p, size_t n, double q)
{
	double c = 0, prev_at = 0;

	for (size_t i = 0; i < n; i++) {
		const double at = c + p[i].w / 2;

		if (q <= at) {
			if (i == 0 || at <= prev_at)
				return p[i].v;
			return p[i - 1].v + (q - prev_at) / (at - prev_at) * (p[i].v - p[i - 1].v);
		}
		prev_at = at;
		c += p[i].w;
	}
	return p[n - 1].v;
}

/* Fill @p out from @p p (n values with weights summing to 1, sorted) over @p m rounds. */
static void wsummarise(const struct wv *p, size_t n, unsigned m, struct dpk_summary *out)
{
	double mean = 0, var = 0;
	size_t lo, hi;

	out->n = n;
	out->min = p[0].v;
	out->max = p[n - 1].v;
	out->p50 = wquantile(p, n, 0.50);
	out->p90 = wquantile(p, n, 0.90);
	out->p99 = wquantile(p, n, 0.99);
	for (size_t i = 0; i < n; i++)
		mean += p[i].w * p[i].v;
	for (size_t i = 0; i < n; i++)
		var += p[i].w * (p[i].v - mean) * (p[i].v - mean);
	out->mean = mean;
	out->stddev = n >= 2 ? sqrt(var * (double)n / (double)(n - 1)) : 0;
	out->cv = mean != 0 ? out->stddev / mean : 0;
	/* The rounds are what is replicated: the median's interval is that of a median of m
	 * draws, its ranks turned into weight fractions. Under six draws no two ranks cover
	 * 95%: the interval is then all the samples span. */
	if (m >= 2 && dpk_stats_median_ci_ranks(m, &lo, &hi)) {
		out->p50_lo = fmin(out->p50, wquantile(p, n, (double)lo / (double)(m - 1)));
		out->p50_hi = fmax(out->p50, wquantile(p, n, (double)hi / (double)(m - 1)));
	} else {
		out->p50_lo = out->min;
		out->p50_hi = out->max;
	}
}

bool dpk_stats_summarise_rounds(const struct dpk_sample *s, size_t n, unsigned nrounds,
                                struct dpk_summary *out)
{
	size_t *kept = calloc((size_t)nrounds + 1, sizeof(*kept));
	struct wv *p = malloc((n ? n : 1) * sizeof(*p));
	unsigned m = 0;
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	if (!kept || !p) {
		free(kept);
		free(p);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (s[i].reject == DPK_REJECT_NONE)
			kept[s[i].round < nrounds ? s[i].round : nrounds]++;
	for (unsigned r = 0; r <= nrounds; r++)
		m += kept[r] > 0;
	for (size_t i = 0; i < n; i++)
		if (s[i].reject == DPK_REJECT_NONE) {
			const size_t c = kept[s[i].round < nrounds ? s[i].round : nrounds];

			p[k].v = s[i].ticks_per_op;
			p[k++].w = 1.0 / ((double)c * (double)m);
		}
	if (k) {
		qsort(p, k, sizeof(*p), wv_cmp);
		wsummarise(p, k, m, out);
	}
	free(kept);
	free(p);
	return true;
}
