/* SPDX-License-Identifier: BSD-3-Clause */
/* compare_stats.c - the tests compare and ab rest on: Mann-Whitney U, a bootstrap of a ratio
 * of medians, whether two floors lie apart (compare.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "compare.h"
#include "stats.h"

/* ---- statistics ----------------------------------------------------------------- */

double dpk_cmp_median(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double dpk_cmp_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u_out)
{
	size_t i = 0, j = 0;
	double next_rank = 1.0, rank_sum_a = 0.0, ties = 0.0;
	double n1 = (double)na, n2 = (double)nb, n = n1 + n2;

	if (u_out)
		*u_out = NAN;
	/* Sorted with NaN last: a NaN has no rank, and would stop the merge below. */
	if (na == 0 || nb == 0 || isnan(a[na - 1]) || isnan(b[nb - 1]))
		return NAN;
	/* Merge the two sorted sides; a run of equal values shares its mean rank. */
	while (i < na || j < nb) {
		double v = (j >= nb || (i < na && a[i] <= b[j])) ? a[i] : b[j];
		double ca = 0, cb = 0, t;

		while (i < na && a[i] == v) {
			i++;
			ca++;
		}
		while (j < nb && b[j] == v) {
			j++;
			cb++;
		}
		t = ca + cb;
		rank_sum_a += ca * (next_rank + (t - 1.0) / 2.0);
		next_rank += t;
		ties += t * t * t - t;
	}
	double u1 = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
	double u2 = n1 * n2 - u1;
	double u = u1 > u2 ? u1 : u2;
	double var = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));

	if (u_out)
		*u_out = u1;
	if (!(var > 0))
		return 1.0;
	/* scipy's asymptotic method: z of the larger U with a continuity correction of
	 * one half, and p = 2 * P(Z > z). */
	double z = (u - n1 * n2 / 2.0 - 0.5) / sqrt(var);
	double p = erfc(z / sqrt(2.0));
	return p > 1.0 ? 1.0 : p;
}

/* splitmix64: a small, well-mixed generator; one stream per case. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform on (0, 1), never 0 so logarithms are safe. */
static double rng_unit(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal by the polar method. */
static double rng_normal(uint64_t *s)
{
	double x, y, r;

	do {
		x = 2.0 * rng_unit(s) - 1.0;
		y = 2.0 * rng_unit(s) - 1.0;
		r = x * x + y * y;
	} while (r >= 1.0 || r == 0.0);
	return x * sqrt(-2.0 * log(r) / r);
}

/* Gamma(shape, 1) for shape >= 1, Marsaglia and Tsang (2000). */
static double rng_gamma(uint64_t *s, double shape)
{
	double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);

	for (;;) {
		double x = rng_normal(s), v = 1.0 + c * x;
		if (v <= 0)
			continue;
		v = v * v * v;
		double u = rng_unit(s);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

/*
 * The median of a bootstrap resample of sorted @p v: the resample's k-th order
 * statistic is v[ceil(n U) - 1] with U the k-th order statistic of n uniforms, which is
 * Beta(k, n + 1 - k). One draw replaces resampling n values.
 */
static double boot_median(uint64_t *s, const double *v, size_t n)
{
	size_t k = (n + 1) / 2;
	double g1, g2, u;
	size_t idx;

	if (n == 1)
		return v[0];
	g1 = rng_gamma(s, (double)k);
	g2 = rng_gamma(s, (double)(n + 1 - k));
	u = g1 / (g1 + g2);
	idx = (size_t)ceil((double)n * u);
	if (idx < 1)
		idx = 1;
	if (idx > n)
		idx = n;
	return v[idx - 1];
}

int dpk_cmp_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb,
                            unsigned resamples, uint64_t seed, double conf, double *lo, double *hi)
{
	double *r;
	uint64_t s = seed;

	if (na == 0 || nb == 0 || resamples < 2 || !(conf > 0 && conf < 1))
		return -EINVAL;
	if (!(dpk_cmp_median(a, na) > 0) || !(dpk_cmp_median(b, nb) > 0) || !(a[0] > 0))
		return -EINVAL;
	r = malloc(resamples * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (unsigned i = 0; i < resamples; i++)
		r[i] = boot_median(&s, b, nb) / boot_median(&s, a, na);
	dpk_stats_sort(r, resamples);
	*lo = dpk_stats_quantile(r, resamples, (1.0 - conf) / 2.0);
	*hi = dpk_stats_quantile(r, resamples, 1.0 - (1.0 - conf) / 2.0);
	free(r);
	return 0;
}

/* ---- floors ------------------------------------------------------------------------ */

bool dpk_cmp_floors_apart(double fa, const double *a, size_t na, double fb, const double *b,
                          size_t nb)
{
	if (!(fa > 0) || !(fb > 0))
		return false;
	if (dpk_stats_apart(fa, fb, DPK_CMP_FLOOR_MOVED))
		return true;
	if (na < DPK_CMP_MIN_ROUNDS || nb < DPK_CMP_MIN_ROUNDS)
		return false;
	const double ma = dpk_cmp_median(a, na), mb = dpk_cmp_median(b, nb);

	return dpk_stats_apart(ma, mb, DPK_STATS_FLOOR_STEP) &&
	       dpk_cmp_mann_whitney(a, na, b, nb, NULL) < DPK_CMP_FLOOR_ALPHA;
}

/* Two-sided p-value of the sign test of @p v (@p n) against @p m: values equal to @p m
 * dropped, the normal approximation to the binomial with a continuity correction. */
static double sign_test(const double *v, size_t n, double m)
{
	double above = 0, below = 0, k, z;

	for (size_t i = 0; i < n; i++) {
		above += v[i] > m;
		below += v[i] < m;
	}
	k = above + below;
	if (k == 0)
		return 1.0;
	z = (fabs(above - below) - 1.0) / sqrt(k);
	return z <= 0 ? 1.0 : erfc(z / sqrt(2.0));
}

bool dpk_cmp_floor_off(double f, const double *v, size_t n, double m)
{
	if (!(f > 0) || !(m > 0))
		return false;
	if (dpk_stats_apart(f, m, DPK_CMP_FLOOR_MOVED))
		return true;
	if (n < DPK_CMP_MIN_ROUNDS)
		return false;
	const double mv = dpk_cmp_median(v, n);

	return dpk_stats_apart(mv, m, DPK_STATS_FLOOR_STEP) &&
	       sign_test(v, n, m) < DPK_CMP_FLOOR_ALPHA;
}

size_t dpk_cmp_round_floors(const struct dpk_res_entry *e, double *out)
{
	size_t n = 0;

	if (!e->round_floor || !e->round_p50)
		return 0;
	for (unsigned q = 0; q < e->rounds_run; q++)
		if (isfinite(e->round_p50[q]) && e->round_floor[q] > 0)
			out[n++] = e->round_floor[q];
	return n;
}

uint64_t dpk_cmp_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}
