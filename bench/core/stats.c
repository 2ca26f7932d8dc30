/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stats.c - order statistics, moments, the median's confidence interval and the rejection
 * of spoiled samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* Medians of up to this many samples use a buffer on the stack. */
#define STACK_VALUES 256

const char *dpk_reject_name(enum dpk_reject r)
{
	switch (r) {
	case DPK_REJECT_NONE:
		return "none";
	case DPK_REJECT_MIGRATION:
		return "migration";
	case DPK_REJECT_CTX_SWITCH:
		return "ctx_switch";
	case DPK_REJECT_GAP:
		return "gap";
	case DPK_REJECT_SLOW:
		return "slow";
	case DPK_REJECT_FLOOR:
		return "floor";
	case DPK_REJECT_ALONE:
		return "alone";
	default:
		return "invalid";
	}
}

/* Ascending order with NaN after every number, so that a NaN cannot break the sort. */
static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

void dpk_stats_sort(double *v, size_t n)
{
	if (v && n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
}

double dpk_stats_select(double *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1;
	const ptrdiff_t want = (ptrdiff_t)k;

	if (!v || k >= n)
		return 0.0;
	/* Hoare's selection: split [lo, hi] around the median of its ends and middle, then go
	 * on in the part that holds rank k. */
	while (lo < hi) {
		const double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
		const double pivot =
		        a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		ptrdiff_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				const double t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		/* Now v[lo..j] <= pivot <= v[i..hi], and anything between equals the pivot. */
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

double dpk_stats_median(double *v, size_t n)
{
	dpk_stats_sort(v, n);
	return dpk_stats_quantile(v, n, 0.5);
}

double dpk_stats_quantile(const double *sorted, size_t n, double q)
{
	double h, frac;
	size_t lo;

	if (!sorted || n == 0)
		return 0.0;
	if (!(q > 0.0)) /* also catches NaN */
		q = 0.0;
	if (q > 1.0)
		q = 1.0;
	/* Type 7: h = (n - 1) q, interpolate between the order statistics either side. */
	h = (double)(n - 1) * q;
	lo = (size_t)h;
	if (lo >= n - 1)
		return sorted[n - 1];
	frac = h - (double)lo;
	if (frac == 0.0)
		return sorted[lo];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/*
 * With B ~ binomial(n, 1/2) the number of values below the true median, the interval
 * [x(j), x(n - j + 1)] (1-based order statistics) misses the median with probability
 * 2 P(B <= j - 1). The widest-coverage-first search takes the largest j that keeps that
 * at or below 5%. The exact sum works in logs so that 2^-n cannot underflow.
 */
static size_t ci_rank_exact(size_t n)
{
	double logc = 0.0; /* log C(n, i) */
	double log_half_n = (double)n * log(0.5);
	double cdf = 0.0;
	size_t j = 0;

	for (size_t i = 0; i < n / 2; i++) {
		cdf += exp(logc + log_half_n);
		if (cdf > 0.025)
			break;
		j = i + 1;
		logc += log((double)(n - i) / (double)(i + 1));
	}
	return j;
}

/* Normal approximation: j = n/2 - 1.96 sqrt(n)/2, rounded down so coverage stays >= 95%. */
static size_t ci_rank_normal(size_t n)
{
	double j = floor((double)n / 2.0 - 1.96 * sqrt((double)n) / 2.0);

	return j < 1.0 ? 1 : (size_t)j;
}

bool dpk_stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi)
{
	size_t j;

	if (n < 6)
		return false;
	j = n <= DPK_STATS_CI_EXACT_MAX ? ci_rank_exact(n) : ci_rank_normal(n);
	if (j == 0)
		return false;
	if (lo)
		*lo = j - 1;
	if (hi)
		*hi = n - j;
	return true;
}

void dpk_stats_summarise(double *v, size_t n, struct dpk_summary *out)
{
	double sum = 0.0, ss = 0.0;
	size_t lo, hi;

	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!v || n == 0)
		return;

	dpk_stats_sort(v, n);
	out->n = n;
	out->min = v[0];
	out->max = v[n - 1];
	out->p50 = dpk_stats_quantile(v, n, 0.50);
	out->p90 = dpk_stats_quantile(v, n, 0.90);
	out->p99 = dpk_stats_quantile(v, n, 0.99);

	/* Two passes: the squared deviations from the mean lose less than sum(x^2) - n m^2. */
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	out->mean = sum / (double)n;
	if (n >= 2) {
		for (size_t i = 0; i < n; i++)
			ss += (v[i] - out->mean) * (v[i] - out->mean);
		out->stddev = sqrt(ss / (double)(n - 1));
	}
	out->cv = out->mean != 0.0 ? out->stddev / out->mean : 0.0;

	if (dpk_stats_median_ci_ranks(n, &lo, &hi)) {
		out->p50_lo = v[lo];
		out->p50_hi = v[hi];
	} else {
		out->p50_lo = out->p50;
		out->p50_hi = out->p50;
	}
}

size_t dpk_stats_kept_ticks(const struct dpk_sample *s, size_t n, double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i].reject == DPK_REJECT_NONE)
			out[k++] = s[i].ticks_per_op;
	return k;
}

/* The end of the round that starts at sample @p a: a round's samples are stored one after
 * another. */
static size_t round_end(const struct dpk_sample *s, size_t n, size_t a)
{
	size_t b = a + 1;

	while (b < n && s[b].round == s[a].round)
		b++;
	return b;
}

/* Whether sample @p x is kept, or set aside as slow and @p slow_too: the samples of a round
 * as the machine ran it. */
static bool in_round(const struct dpk_sample *x, bool slow_too)
{
	return x->reject == DPK_REJECT_NONE || (slow_too && x->reject == DPK_REJECT_SLOW);
}

static bool timed_kept(const struct dpk_sample *x)
{
	return x->reject == DPK_REJECT_NONE && x->clk > 0;
}

/* The clock timings of the kept samples over DPK_CORECLOCK_TRIM times their median are
 * left out of the paces: that cut, or NaN when no sample has a timing (or no memory). */
static double clock_cut(const struct dpk_sample *s, size_t n)
{
	size_t timed = 0;
	double *v, cut;

	for (size_t i = 0; i < n; i++)
		timed += timed_kept(&s[i]);
	if (!timed || !(v = malloc(timed * sizeof(*v))))
		return NAN;
	for (size_t i = 0, j = 0; i < n; i++)
		if (timed_kept(&s[i]))
			v[j++] = s[i].clk;
	cut = dpk_stats_median(v, timed) * DPK_CORECLOCK_TRIM;
	free(v);
	return cut;
}

/* Core cycles per tick in the round of samples s[a..b), or NaN when it has no pace. */
static double round_ratio(const struct dpk_sample *s, size_t a, size_t b, double cut,
                          double chain_cycles, double read_cost, bool slow_too)
{
	double sum = 0, pace;
	size_t m = 0;

	for (size_t i = a; i < b; i++)
		if (in_round(&s[i], slow_too) && s[i].clk > 0 && s[i].clk <= cut) {
			sum += s[i].clk;
			m++;
		}
	pace = m ? sum / (double)m - read_cost : NAN;
	/* A chain takes longer than an empty fenced window: one that read no longer was not
	 * timed whole (or was folded away), and its round has no pace. */
	if (!(pace > read_cost && pace > 0))
		return NAN;
	return chain_cycles / pace;
}

size_t dpk_stats_kept_cycles(const struct dpk_sample *s, size_t n, double chain_cycles,
                             double read_cost, double *out, double *ratio_p50)
{
	const double cut = clock_cut(s, n);
	size_t k = 0, used = 0, rounds = 0;
	double *v;

	if (ratio_p50)
		*ratio_p50 = NAN;
	if (isnan(cut))
		return 0;
	for (size_t a = 0; a < n; a = round_end(s, n, a))
		rounds++;
	if (!(v = malloc(rounds * sizeof(*v))))
		return 0;
	for (size_t a = 0, b; a < n; a = b) {
		double ratio;

		b = round_end(s, n, a);
		ratio = round_ratio(s, a, b, cut, chain_cycles, read_cost, false);
		if (isnan(ratio))
			continue;
		v[used++] = ratio;
		for (size_t i = a; i < b; i++)
			if (s[i].reject == DPK_REJECT_NONE)
				out[k++] = s[i].ticks_per_op * ratio;
	}
	if (ratio_p50 && used)
		*ratio_p50 = dpk_stats_median(v, used);
	free(v);
	return k;
}

void dpk_stats_round_ratios(const struct dpk_sample *s, size_t n, double chain_cycles,
                            double read_cost, unsigned nrounds, bool slow_too, double *ratio)
{
	const double cut = clock_cut(s, n);

	for (unsigned q = 0; q < nrounds; q++)
		ratio[q] = NAN;
	if (isnan(cut))
		return;
	for (size_t a = 0, b; a < n; a = b) {
		b = round_end(s, n, a);
		if (s[a].round < nrounds)
			ratio[s[a].round] =
			        round_ratio(s, a, b, cut, chain_cycles, read_cost, slow_too);
	}
}

/* The median of the samples not yet rejected, or NAN when there is none or no memory. */
static double kept_median(const struct dpk_sample *s, size_t n, size_t kept)
{
	double stack[STACK_VALUES], *v = stack, m;

	if (kept == 0)
		return NAN;
	if (kept > STACK_VALUES) {
		v = malloc(kept * sizeof(*v));
		if (!v)
			return NAN;
	}
	m = dpk_stats_median(v, dpk_stats_kept_ticks(s, n, v));
	if (v != stack)
		free(v);
	return m;
}

size_t dpk_stats_give_switches(struct dpk_sample *const *sets, unsigned k, size_t n,
                               uint32_t switches)
{
	double *med = switches && k && n ? malloc((k + n) * sizeof(*med)) : NULL, *v;
	size_t given = 0;

	if (!med)
		return 0;
	v = med + k;
	for (unsigned i = 0; i < k; i++) {
		for (size_t q = 0; q < n; q++)
			v[q] = sets[i][q].ticks_per_op;
		med[i] = dpk_stats_median(v, n);
	}
	for (; given < switches; given++) {
		struct dpk_sample *pick = NULL;
		double most = DPK_SWITCH_FACTOR;

		for (unsigned i = 0; i < k; i++)
			for (size_t q = 0; med[i] > 0 && q < n; q++) {
				double rel = sets[i][q].ticks_per_op / med[i];

				if (sets[i][q].ivcsw == 0 && rel > most) {
					pick = &sets[i][q];
					most = rel;
				}
			}
		if (!pick)
			break;
		pick->ivcsw = 1;
	}
	free(med);
	return given;
}

size_t dpk_stats_reject(struct dpk_sample *s, size_t n, bool check_ctx_switch,
                        size_t counts[DPK_REJECT_COUNT])
{
	size_t c[DPK_REJECT_COUNT] = {0};
	size_t kept = 0;
	double median;

	if (!s)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i].cpu_begin != s[i].cpu_end)
			s[i].reject = DPK_REJECT_MIGRATION;
		else if (check_ctx_switch && s[i].ivcsw > 0)
			s[i].reject = DPK_REJECT_CTX_SWITCH;
		else
			s[i].reject = DPK_REJECT_NONE;
		c[s[i].reject]++;
	}
	kept = c[DPK_REJECT_NONE];

	/* One pass against one threshold; see the header for why it is not iterated. */
	median = kept_median(s, n, kept);
	if (median > 0.0) {
		double limit = DPK_GAP_FACTOR * median;

		for (size_t i = 0; i < n; i++) {
			if (s[i].reject == DPK_REJECT_NONE && s[i].ticks_per_op > limit) {
				s[i].reject = DPK_REJECT_GAP;
				c[DPK_REJECT_GAP]++;
				kept--;
			}
		}
	}

	c[DPK_REJECT_NONE] = kept;
	if (counts)
		memcpy(counts, c, sizeof(c));
	return kept;
}

/* The median of the kept samples of s[0..n-1] into *out; false when none is kept. */
static bool range_median(const struct dpk_sample *s, size_t n, double *scratch, size_t *kept,
                         double *out)
{
	size_t k = dpk_stats_kept_ticks(s, n, scratch);

	*kept = k;
	if (k == 0)
		return false;
	*out = dpk_stats_median(scratch, k);
	return true;
}

/* A steady round's median and how many kept samples it rests on. */
struct round_median {
	double median;
	size_t kept;
};

static int round_median_cmp(const void *a, const void *b)
{
	const double x = ((const struct round_median *)a)->median;
	const double y = ((const struct round_median *)b)->median;

	return (x > y) - (x < y);
}

/* The reference of @p n steady rounds (n > 0): sorted by median, the first round at which
 * the rounds so far hold at least 1 / DPK_SLOW_REF_RANK of all n rounds' kept samples.
 * Reorders @p r. */
static double slow_reference(struct round_median *r, size_t n)
{
	size_t total = 0, acc = 0, i;

	qsort(r, n, sizeof(*r), round_median_cmp);
	for (i = 0; i < n; i++)
		total += r[i].kept;
	for (i = 0; i + 1 < n; i++) {
		acc += r[i].kept;
		if (acc * DPK_SLOW_REF_RANK >= total)
			break;
	}
	return r[i].median;
}

size_t dpk_stats_reject_slow(struct dpk_sample *s, size_t n, double limit,
                             size_t counts[DPK_REJECT_COUNT])
{
	size_t kept_total = 0, rounds = 0, nslow = 0, q = 0, k, steady = 0;
	double ref = 0, *scratch, *med;
	struct round_median *order;
	uint8_t *slow;

	for (size_t i = 0; s && i < n; i++) {
		kept_total += s[i].reject == DPK_REJECT_NONE;
		rounds += i == 0 || s[i].round != s[i - 1].round;
		if ((size_t)s[i].round + 1 > nslow)
			nslow = (size_t)s[i].round + 1;
	}
	if (!s || limit <= 0 || rounds < DPK_SLOW_MIN_ROUNDS)
		return kept_total;
	scratch = malloc(n * sizeof(*scratch));
	med = malloc(rounds * sizeof(*med));
	order = malloc(rounds * sizeof(*order));
	slow = calloc(nslow, 1);
	if (!scratch || !med || !order || !slow)
		goto out;

	/* Each round's median once (NaN when nothing in it is kept); the rounds with enough
	 * kept samples for a steady median set the reference. */
	for (size_t a = 0, b; a < n; a = b, q++) {
		b = round_end(s, n, a);
		if (!range_median(s + a, b - a, scratch, &k, &med[q]))
			med[q] = NAN;
		else if (k >= DPK_SLOW_MIN_SAMPLES && isfinite(med[q]))
			order[steady++] = (struct round_median){.median = med[q], .kept = k};
	}
	if (steady >= DPK_SLOW_MIN_ROUNDS)
		ref = slow_reference(order, steady);
	if (ref > 0) {
		/* Compare each round with the reference, in the same order as above. */
		q = 0;
		for (size_t a = 0; a < n; a = round_end(s, n, a), q++)
			slow[s[a].round] = med[q] > ref * (1.0 + limit);
		kept_total = dpk_stats_mark_slow(s, n, slow, nslow, counts);
	}
out:
	free(scratch);
	free(med);
	free(order);
	free(slow);
	return kept_total;
}

/* Set kept sample @p x aside as slow, counting it. */
static void set_aside_slow(struct dpk_sample *x, size_t counts[DPK_REJECT_COUNT])
{
	x->reject = DPK_REJECT_SLOW;
	if (counts) {
		counts[DPK_REJECT_NONE]--;
		counts[DPK_REJECT_SLOW]++;
	}
}

size_t dpk_stats_mark_witness(struct dpk_sample *s, size_t n, double limit,
                              size_t counts[DPK_REJECT_COUNT])
{
	size_t kept = 0;

	for (size_t i = 0; s && i < n; i++) {
		if (s[i].reject != DPK_REJECT_NONE)
			continue;
		if (s[i].wit > limit)
			set_aside_slow(&s[i], counts);
		else
			kept++;
	}
	return kept;
}

size_t dpk_stats_mark_slow(struct dpk_sample *s, size_t n, const uint8_t *slow, size_t nrounds,
                           size_t counts[DPK_REJECT_COUNT])
{
	size_t kept = 0;

	for (size_t i = 0; s && i < n; i++) {
		if (s[i].reject != DPK_REJECT_NONE)
			continue;
		if (slow && s[i].round < nrounds && slow[s[i].round])
			set_aside_slow(&s[i], counts);
		else
			kept++;
	}
	return kept;
}

/* Each round's median of the samples' ticks per unit, or with @p wit of their witness
 * timings (those without one left out): dpk_stats_round_medians(). */
static bool round_medians_of(const struct dpk_sample *s, size_t n, unsigned nrounds, bool slow_too,
                             bool wit, double *p50, uint32_t *kept);

bool dpk_stats_round_medians(const struct dpk_sample *s, size_t n, unsigned nrounds, bool slow_too,
                             double *p50, uint32_t *kept)
{
	return round_medians_of(s, n, nrounds, slow_too, false, p50, kept);
}

bool dpk_stats_round_witness(const struct dpk_sample *s, size_t n, unsigned nrounds, double *p50)
{
	uint32_t *count = malloc((nrounds ? nrounds : 1) * sizeof(*count));
	bool ok = count && round_medians_of(s, n, nrounds, true, true, p50, count);

	free(count);
	return ok;
}

static bool round_medians_of(const struct dpk_sample *s, size_t n, unsigned nrounds, bool slow_too,
                             bool wit, double *p50, uint32_t *kept)
{
	size_t *start = calloc((size_t)nrounds + 1, sizeof(*start));
	size_t *fill = calloc((size_t)nrounds + 1, sizeof(*fill));
	double *v = malloc((n ? n : 1) * sizeof(*v));
	bool ok = start && fill && v;

	/* Count each round's kept samples, lay the rounds out one after another, then take
	 * each round's median in place. */
	for (size_t i = 0; ok && i < n; i++)
		if (in_round(&s[i], slow_too) && s[i].round < nrounds && (!wit || s[i].wit > 0))
			start[s[i].round + 1]++;
	for (unsigned r = 0; ok && r < nrounds; r++) {
		kept[r] = (uint32_t)start[r + 1];
		start[r + 1] += start[r];
		fill[r] = start[r];
	}
	for (size_t i = 0; ok && i < n; i++)
		if (in_round(&s[i], slow_too) && s[i].round < nrounds && (!wit || s[i].wit > 0))
			v[fill[s[i].round]++] = wit ? s[i].wit : s[i].ticks_per_op;
	for (unsigned r = 0; ok && r < nrounds; r++)
		p50[r] = kept[r] ? dpk_stats_median(v + start[r], kept[r]) : NAN;
	free(start);
	free(fill);
	free(v);
	return ok;
}

void dpk_stats_alone(const uint64_t *const *spans, const size_t *ns, unsigned nroles, unsigned i,
                     bool *alone)
{
	size_t at[DPK_STATS_ROLES_MAX] = {0};

	/* Each role's spans come in time order, so one pointer per other role moves forward:
	 * past the spans that ended before this one began. */
	for (size_t j = 0; j < ns[i]; j++) {
		const uint64_t b = spans[i][2 * j], e = spans[i][2 * j + 1];
		bool met = false;

		for (unsigned k = 0; k < nroles && k < DPK_STATS_ROLES_MAX && !met; k++) {
			if (k == i)
				continue;
			while (at[k] < ns[k] && spans[k][2 * at[k] + 1] < b)
				at[k]++;
			met = at[k] < ns[k] && spans[k][2 * at[k]] <= e;
		}
		alone[j] = !met;
	}
}

/* Move kept sample @p x to reason @p why, and its count with it. */
static void take(struct dpk_sample *x, enum dpk_reject why, size_t counts[DPK_REJECT_COUNT])
{
	x->reject = (uint8_t)why;
	if (counts) {
		counts[DPK_REJECT_NONE]--;
		counts[why]++;
	}
}

size_t dpk_stats_mark_alone(struct dpk_sample *s, size_t n, const bool *alone,
                            size_t counts[DPK_REJECT_COUNT])
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i].reject == DPK_REJECT_NONE) {
			if (alone[i])
				take(&s[i], DPK_REJECT_ALONE, counts);
			else
				kept++;
		}
	return kept;
}

size_t dpk_stats_mark_rounds(struct dpk_sample *s, size_t n, const bool *aside, unsigned nrounds,
                             enum dpk_reject why, size_t counts[DPK_REJECT_COUNT])
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i].reject == DPK_REJECT_NONE) {
			if (s[i].round < nrounds && aside[s[i].round])
				take(&s[i], why, counts);
			else
				kept++;
		}
	return kept;
}

/* Split sorted @p v[a..b) at its widest gap over @p gap, if both sides keep @p min_n; the
 * index of the first value of the upper side, or 0 when there is no such gap. */
static size_t widest_gap(const double *v, size_t a, size_t b, double gap, size_t min_n)
{
	size_t at = 0;
	double best = 1.0 + gap;

	for (size_t i = a + min_n; i + min_n <= b; i++) {
		double g = v[i - 1] > 0 ? v[i] / v[i - 1] : 0;

		if (g > best) {
			best = g;
			at = i;
		}
	}
	return at;
}

unsigned dpk_stats_clusters(const double *v, size_t n, double gap, size_t min_n,
                            struct dpk_stats_cluster *out, unsigned max)
{
	size_t cut[DPK_STATS_CLUSTERS_MAX + 1];
	unsigned nc = 1;
	double *w;

	if (n == 0 || max == 0 || !(w = malloc(n * sizeof(*w))))
		return 0;
	memcpy(w, v, n * sizeof(*w));
	dpk_stats_sort(w, n);
	if (min_n < 1)
		min_n = 1;
	if (max > DPK_STATS_CLUSTERS_MAX)
		max = DPK_STATS_CLUSTERS_MAX;
	cut[0] = 0;
	cut[1] = n;
	/* Split the cluster whose widest gap is widest, while there is room. */
	while (nc < max) {
		size_t best_at = 0, best_c = 0;
		double best_g = 0;

		for (unsigned c = 0; c < nc; c++) {
			size_t at = widest_gap(w, cut[c], cut[c + 1], gap, min_n);
			double g = at ? w[at] / w[at - 1] : 0;

			if (at && g > best_g) {
				best_g = g;
				best_at = at;
				best_c = c;
			}
		}
		if (!best_at)
			break;
		memmove(&cut[best_c + 2], &cut[best_c + 1], (nc - best_c) * sizeof(cut[0]));
		cut[best_c + 1] = best_at;
		nc++;
	}
	for (unsigned c = 0; c < nc; c++) {
		out[c].lo = w[cut[c]];
		out[c].hi = w[cut[c + 1] - 1];
		out[c].n = cut[c + 1] - cut[c];
		out[c].p50 = dpk_stats_quantile(w + cut[c], out[c].n, 0.5);
	}
	free(w);
	return nc;
}

unsigned dpk_stats_regimes(const double *v, size_t n, struct dpk_stats_cluster *out, unsigned max)
{
	return dpk_stats_clusters(v, n, DPK_STATS_REGIME_GAP, n / 10 > 2 ? n / 10 : 2, out, max);
}

bool dpk_stats_apart(double x, double y, double r)
{
	return fmax(x, y) > fmin(x, y) * (1.0 + r);
}
