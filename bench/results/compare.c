/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench compare: matching, statistics, verdicts, and the table and JSON outputs. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "json.h"
#include "stats.h"
#include "witness.h"

const char *dpk_cmp_verdict_name(enum dpk_cmp_verdict v)
{
	switch (v) {
	case DPK_CMP_FASTER:
		return "faster";
	case DPK_CMP_SLOWER:
		return "slower";
	case DPK_CMP_WITHIN_NOISE:
		return "within noise";
	case DPK_CMP_NO_VERDICT:
		return "no verdict";
	}
	return "?";
}

const char *dpk_cmp_method_name(enum dpk_cmp_method m)
{
	switch (m) {
	case DPK_CMP_TEST:
		return "mann-whitney+bootstrap";
	case DPK_CMP_CI_ONLY:
		return "median-ci";
	case DPK_CMP_TOO_FEW:
		return "too-few-samples";
	case DPK_CMP_REPEATS:
		return "repeat-medians";
	case DPK_CMP_PAIRED:
		return "paired-rounds";
	}
	return "?";
}

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
	if (na == 0 || nb == 0)
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

/* FNV-1a, to give every case its own bootstrap stream independent of the others. */
static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* ---- matching ------------------------------------------------------------------- */

static bool selected(const struct dpk_cmp_options *o, const struct dpk_res_entry *e)
{
	return dpk_results_selected(o->patterns, o->npatterns, e);
}

/* Index of the first selected entry with @p id, or n. */
static size_t find_id(const struct dpk_results *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->e[i].id, id) == 0)
			return i;
	return r->n;
}

static bool first_of_id(const struct dpk_results *r, size_t i)
{
	return find_id(r, r->e[i].id) == i;
}

/*
 * Pool the results of @p id in @p r into @p s. Returns 0, or -EAGAIN with @p why set
 * when the case cannot be compared (it failed or was skipped in some repeat).
 */
static int pool_side(const struct dpk_results *r, const char *id, const char *side, bool cycles,
                     struct dpk_cmp_side *s, char *why, size_t whylen)
{
	double p50s[64], *raw = NULL;
	size_t nraw = 0, np = 0;
	bool all_raw = true;

	memset(s, 0, sizeof(*s));
	s->lo = INFINITY;
	s->hi = -INFINITY;
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_res_entry *e = &r->e[i];
		if (strcmp(e->id, id) != 0)
			continue;
		if (!s->first)
			s->first = e;
		if (!e->ok) {
			snprintf(why, whylen, "%s in %s%s%s", e->status, side,
			         e->reason[0] ? ": " : "", e->reason);
			free(raw);
			return -EAGAIN;
		}
		const struct dpk_res_summary *t = cycles ? &e->cycles : &e->ticks;
		const double *er = cycles ? e->raw_cycles : e->raw;
		const size_t ner = cycles ? e->nraw_cycles : e->nraw;

		if (cycles && !isfinite(e->cycles.p50)) {
			snprintf(why, whylen, "no figures in cycles in %s (repeat %u)", side,
			         e->repeat + 1);
			free(raw);
			return -EAGAIN;
		}
		s->repeats++;
		if (np < sizeof(p50s) / sizeof(p50s[0]))
			p50s[np++] = t->p50;
		if (t->p50_lo < s->lo)
			s->lo = t->p50_lo;
		if (t->p50_hi > s->hi)
			s->hi = t->p50_hi;
		/* In cycles, the samples the cycles rest on (fewer than kept where a round had no
		 * pace; files without the count give kept). */
		const double kept = cycles && !isnan(e->cycles_kept) ? e->cycles_kept : e->kept;

		s->n += isnan(kept) ? (double)ner : kept;
		if (!er || ner == 0) {
			all_raw = false;
			continue;
		}
		double *nr = realloc(raw, (nraw + ner) * sizeof(*raw));
		if (!nr) {
			free(raw);
			snprintf(why, whylen, "out of memory");
			return -ENOMEM;
		}
		raw = nr;
		memcpy(raw + nraw, er, ner * sizeof(*raw));
		nraw += ner;
	}
	memcpy(s->rep, p50s, np * sizeof(p50s[0]));
	s->nrep = (unsigned)np;
	dpk_stats_sort(s->rep, s->nrep);
	if (all_raw && nraw) {
		dpk_stats_sort(raw, nraw);
		s->raw = raw;
		s->nraw = nraw;
		s->n = (double)nraw;
		s->p50 = dpk_cmp_median(raw, nraw);
	} else {
		free(raw);
		dpk_stats_sort(p50s, np);
		s->p50 = dpk_cmp_median(p50s, np);
	}
	if (!isfinite(s->lo) || !isfinite(s->hi)) {
		s->lo = s->p50;
		s->hi = s->p50;
	}
	return 0;
}

static void judge(struct dpk_cmp_case *c, const struct dpk_cmp_options *o, unsigned resamples,
                  uint64_t seed)
{
	double noise = o->noise;

	c->p = NAN;
	c->ratio = c->new.p50 / c->base.p50;
	c->lo = c->hi = c->ratio;
	c->significant = false;
	if (c->base.nrep >= DPK_CMP_MIN_REPEATS &&
	    c->new.nrep >= DPK_CMP_MIN_REPEATS &&dpk_cmp_bootstrap_ratio(
	                           c->base.rep, c->base.nrep, c->new.rep, c->new.nrep, resamples,
	                           seed ^ hash_str(c->base.first->id), 0.95, &c->lo, &c->hi) ==
	            0) {
		/* Judged on the repeats, so drift between runs counts as noise. */
		c->method = DPK_CMP_REPEATS;
		c->ratio = dpk_cmp_median(c->new.rep, c->new.nrep) /
		           dpk_cmp_median(c->base.rep, c->base.nrep);
		if (!(c->lo <= c->ratio))
			c->lo = c->ratio;
		if (!(c->hi >= c->ratio))
			c->hi = c->ratio;
		c->p = dpk_cmp_mann_whitney(c->base.rep, c->base.nrep, c->new.rep, c->new.nrep,
		                            NULL);
		c->significant = c->p < DPK_CMP_ALPHA;
		snprintf(c->note, sizeof(c->note), "judged on %u and %u repeats' medians",
		         c->base.nrep, c->new.nrep);
	} else if (c->base.raw && c->new.raw && c->base.nraw >= DPK_CMP_MIN_SAMPLES &&
	           c->new.nraw >= DPK_CMP_MIN_SAMPLES &&dpk_cmp_bootstrap_ratio(
	                                  c->base.raw, c->base.nraw, c->new.raw, c->new.nraw,
	                                  resamples, seed ^ hash_str(c->base.first->id), 0.95,
	                                  &c->lo, &c->hi) ==
	                   0) {
		c->method = DPK_CMP_TEST;
		c->p = dpk_cmp_mann_whitney(c->base.raw, c->base.nraw, c->new.raw, c->new.nraw,
		                            NULL);
		c->significant = c->p < DPK_CMP_ALPHA;
	} else if (c->base.n < DPK_CMP_MIN_SAMPLES || c->new.n < DPK_CMP_MIN_SAMPLES) {
		c->method = DPK_CMP_TOO_FEW;
		snprintf(c->note, sizeof(c->note),
		         "too few samples to judge (base %.0f, new %.0f; at least %d each)",
		         c->base.n, c->new.n, DPK_CMP_MIN_SAMPLES);
	} else {
		/* No test: the medians' own intervals. Non-overlapping intervals stand in
		 * for significance. */
		c->method = DPK_CMP_CI_ONLY;
		c->lo = c->new.lo / c->base.hi;
		c->hi = c->new.hi / c->base.lo;
		if (!(c->lo <= c->ratio))
			c->lo = c->ratio;
		if (!(c->hi >= c->ratio))
			c->hi = c->ratio;
		c->significant = c->lo > 1.0 || c->hi < 1.0;
		if (c->base.raw && c->new.raw)
			snprintf(c->note, sizeof(c->note),
			         "no test: raw samples are not all positive");
		else
			snprintf(c->note, sizeof(c->note), "no test: %s missing in %s",
			         o->cycles ? "raw samples in cycles (raw_cycles)" : "raw samples",
			         !c->base.raw && !c->new.raw ? "both files"
			         : !c->base.raw              ? "base"
			                                     : "new");
	}
	c->verdict = DPK_CMP_WITHIN_NOISE;
	if (c->significant && c->hi < 1.0 - noise)
		c->verdict = DPK_CMP_FASTER;
	else if (c->significant && c->lo > 1.0 + noise)
		c->verdict = DPK_CMP_SLOWER;
	c->gate_failed = o->fail_above >= 0 && c->significant && c->lo > 1.0 + o->fail_above;
}

static void warn(struct dpk_cmp_report *r, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static void warn(struct dpk_cmp_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nwarn >= DPK_CMP_WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(r->warn[r->nwarn++], sizeof(r->warn[0]), fmt, ap);
	va_end(ap);
}

static void env_differs(struct dpk_cmp_report *r, const struct dpk_results *a,
                        const struct dpk_results *b, const char *key, const char *what)
{
	const struct dpk_res_env *x = dpk_results_env(a, key), *y = dpk_results_env(b, key);
	const char *vx = x && x->value[0] ? x->value : "unknown";
	const char *vy = y && y->value[0] ? y->value : "unknown";

	if (strcmp(vx, vy) != 0)
		warn(r, "different %s: base \"%s\", new \"%s\"", what, vx, vy);
}

/* The code layouts @p e's figures span: files from before the field measured one. */
static double code_layouts(const struct dpk_res_entry *e)
{
	return isnan(e->code_layouts) ? 1 : e->code_layouts;
}

static void env_warnings(struct dpk_cmp_report *r, const struct dpk_results *a,
                         const struct dpk_results *b)
{
	env_differs(r, a, b, "cpu_model", "CPU model");
	/* Figures in cycles do not depend on the counter's rate. */
	if (!r->cycles && isfinite(a->tsc_hz) && isfinite(b->tsc_hz) && a->tsc_hz > 0 &&
	    fabs(b->tsc_hz / a->tsc_hz - 1.0) > 0.001)
		warn(r,
		     "TSC frequency differs by %+.2f%%: base %.6g MHz, new %.6g MHz (ticks are "
		     "not comparable across clocks)",
		     (b->tsc_hz / a->tsc_hz - 1.0) * 100.0, a->tsc_hz / 1e6, b->tsc_hz / 1e6);
	else if (!r->cycles && isfinite(a->tsc_hz) != isfinite(b->tsc_hz))
		warn(r, "TSC frequency is known in only one file");
	/* Figures in cycles rest on a multiply of 3 cycles in both files; the clock check lets
	 * 10% either way pass, and on one machine it read 2.81-3.05. */
	if (r->cycles && isfinite(a->mul_cycles) && isfinite(b->mul_cycles) &&
	    fabs(b->mul_cycles / a->mul_cycles - 1.0) > DPK_CMP_MUL_CYCLES_DIFFER)
		warn(r,
		     "core-clock multiply differs: base %.2f cycles, new %.2f (x%.3f); both "
		     "files' cycles take it as 3, so their ratio carries that factor",
		     a->mul_cycles, b->mul_cycles, b->mul_cycles / a->mul_cycles);
	if (isfinite(a->witness) && isfinite(b->witness) &&
	    fmax(a->witness, b->witness) > dpk_bench_witness_limit(fmin(a->witness, b->witness)))
		warn(r,
		     "speed witness differs: %s base %.2f ticks, new %.2f (x%.2f); the machine was "
		     "slower during the %s run, and its figures with it",
		     a->witness_fastest == b->witness_fastest
		             ? dpk_results_witness_kind(a)
		             : "reading (the fastest in the file from before the reference)",
		     a->witness, b->witness, b->witness / a->witness,
		     b->witness > a->witness ? "new" : "base");
	for (unsigned i = 0; i < 2; i++) {
		const struct dpk_results *x = i == 0 ? a : b;

		if (x->witness_slow_only)
			warn(r,
			     "%s: %u case runs kept mostly samples the speed witness found slow; "
			     "their figures may be slowed",
			     i == 0 ? "base" : "new", x->witness_slow_only);
	}
	/* The store-bypass mitigation on in one run and off in the other, as the item's verdict
	 * says (env.c judges every mitigated form degraded, every unmitigated one ok); only
	 * where both files have the item (older files lack it). The forms' wording differs
	 * among themselves for no effect on the figures. */
	const struct dpk_res_env *sa = dpk_results_env(a, "ssb"), *sb = dpk_results_env(b, "ssb");
	if (sa && sb &&
	    ((strcmp(sa->verdict, "degraded") == 0 && strcmp(sb->verdict, "ok") == 0) ||
	     (strcmp(sa->verdict, "ok") == 0 && strcmp(sb->verdict, "degraded") == 0)))
		warn(r,
		     "speculative store bypass mitigated in one run only: base \"%s\", new \"%s\" "
		     "(ring figures here were up to 3x slower with it)",
		     sa->value, sb->value);
	env_differs(r, a, b, "compiler", "compiler");
	env_differs(r, a, b, "cflags", "compiler flags");
	env_differs(r, a, b, "build_type", "build type");
	if (strcmp(a->lcores, b->lcores) != 0)
		warn(r, "different lcores: base \"%s\", new \"%s\"",
		     a->lcores[0] ? a->lcores : "unknown", b->lcores[0] ? b->lcores : "unknown");
	if (strcmp(a->placements, b->placements) != 0)
		warn(r, "different placement sets: base \"%s\", new \"%s\"",
		     a->placements[0] ? a->placements : "unknown",
		     b->placements[0] ? b->placements : "unknown");
}

static int push_str(const char ***arr, size_t *n, const char *s)
{
	const char **na = realloc(*arr, (*n + 1) * sizeof(**arr));
	if (!na)
		return -ENOMEM;
	*arr = na;
	(*arr)[(*n)++] = s;
	return 0;
}

int dpk_compare(const struct dpk_results *base, const struct dpk_results *new,
                const struct dpk_cmp_options *o, struct dpk_cmp_report *out, char *err,
                size_t errlen)
{
	unsigned resamples = o->resamples ? o->resamples : DPK_CMP_RESAMPLES;
	uint64_t seed = o->seed ? o->seed : DPK_CMP_SEED;
	double logsum = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->noise = o->noise;
	out->cycles = o->cycles;
	out->fail_above = o->fail_above;
	out->resamples = resamples;
	out->geomean = NAN;
	for (unsigned p = 0; p < o->npatterns; p++) {
		bool hit = false;
		for (size_t i = 0; i < base->n && !hit; i++)
			hit = dpk_results_match(o->patterns[p], &base->e[i]);
		for (size_t i = 0; i < new->n && !hit; i++)
			hit = dpk_results_match(o->patterns[p], &new->e[i]);
		if (!hit) {
			snprintf(err, errlen,
			         "--pattern '%s' selects no case in either file (patterns match "
			         "SUITE, SUITE/CASE or SUITE/CASE/PARAM:V/.../placement:P)",
			         o->patterns[p]);
			return -EINVAL;
		}
	}
	env_warnings(out, base, new);

	/* Cases whose figures span different numbers of code layouts, and the first of them. */
	size_t layouts_differ = 0;
	const char *layouts_first = NULL;
	double layouts_base = 1, layouts_new = 1;

	for (size_t i = 0; i < base->n; i++) {
		const struct dpk_res_entry *e = &base->e[i];
		struct dpk_cmp_case c;
		char why[192];

		if (!selected(o, e) || !first_of_id(base, i))
			continue;
		if (find_id(new, e->id) == new->n) {
			if ((rc = push_str(&out->only_base, &out->n_only_base, e->id)))
				goto nomem;
			continue;
		}
		memset(&c, 0, sizeof(c));
		rc = pool_side(base, e->id, "base", o->cycles, &c.base, why, sizeof(why));
		if (rc == 0)
			rc = pool_side(new, e->id, "new", o->cycles, &c.new, why, sizeof(why));
		if (rc == 0 && strcmp(c.base.first->unit, c.new.first->unit) != 0) {
			snprintf(why, sizeof(why), "unit changed from \"%s\" to \"%s\"",
			         c.base.first->unit, c.new.first->unit);
			rc = -EAGAIN;
		}
		if (rc == 0 && !(c.base.p50 > 0 && c.new.p50 > 0)) {
			snprintf(why, sizeof(why), "a median is zero or missing (base %g, new %g)",
			         c.base.p50, c.new.p50);
			rc = -EAGAIN;
		}
		if (rc == -ENOMEM)
			goto nomem_case;
		if (rc) {
			struct dpk_cmp_skip *ns =
			        realloc(out->skip, (out->nskip + 1) * sizeof(*ns));
			free(c.base.raw);
			free(c.new.raw);
			if (!ns)
				goto nomem;
			out->skip = ns;
			out->skip[out->nskip].id = e->id;
			snprintf(out->skip[out->nskip].reason, sizeof(out->skip[0].reason), "%s",
			         why);
			out->nskip++;
			continue;
		}
		const double lb = code_layouts(c.base.first), ln = code_layouts(c.new.first);

		if (lb != ln && !layouts_differ++) {
			layouts_first = e->id;
			layouts_base = lb;
			layouts_new = ln;
		}
		judge(&c, o, resamples, seed);
		struct dpk_cmp_case *nc = realloc(out->c, (out->n + 1) * sizeof(*nc));
		if (!nc)
			goto nomem_case;
		out->c = nc;
		out->c[out->n++] = c;
		continue;
	nomem_case:
		free(c.base.raw);
		free(c.new.raw);
		goto nomem;
	}
	if (layouts_differ)
		warn(out,
		     "%zu case%s measured over different numbers of code layouts (%s: %g in base, "
		     "%g in new): the ratios mix the code's change with the method's",
		     layouts_differ, layouts_differ == 1 ? "" : "s", layouts_first, layouts_base,
		     layouts_new);
	for (size_t i = 0; i < new->n; i++) {
		const struct dpk_res_entry *e = &new->e[i];
		if (selected(o, e) && first_of_id(new, i) && find_id(base, e->id) == base->n &&
		    push_str(&out->only_new, &out->n_only_new, e->id))
			goto nomem;
	}
	if (out->n == 0 && out->nskip == 0) {
		snprintf(err, errlen,
		         "no case in common%s: base has %zu case%s, new has %zu (ids differ, "
		         "e.g. base \"%s\", new \"%s\")",
		         o->npatterns ? " among the selected ones" : "", out->n_only_base,
		         out->n_only_base == 1 ? "" : "s", out->n_only_new,
		         out->n_only_base ? out->only_base[0] : "-",
		         out->n_only_new ? out->only_new[0] : "-");
		dpk_cmp_report_free(out);
		return -EINVAL;
	}
	if (out->n == 0 && o->cycles) {
		/* A gate that compared nothing must not pass: say why instead. */
		snprintf(err, errlen,
		         "no case has figures in cycles in both files (%zu in common, none "
		         "compared: %s)",
		         out->nskip, out->nskip ? out->skip[0].reason : "-");
		dpk_cmp_report_free(out);
		return -EINVAL;
	}
	for (size_t i = 0; i < out->n; i++) {
		const struct dpk_cmp_case *c = &out->c[i];
		logsum += log(c->ratio);
		out->ngeomean++;
		out->faster += c->verdict == DPK_CMP_FASTER;
		out->slower += c->verdict == DPK_CMP_SLOWER;
		out->within += c->verdict == DPK_CMP_WITHIN_NOISE;
		out->gate_failures += c->gate_failed;
	}
	if (out->ngeomean)
		out->geomean = exp(logsum / (double)out->ngeomean);
	return 0;
nomem:
	dpk_cmp_report_free(out);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

void dpk_cmp_report_free(struct dpk_cmp_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->c[i].base.raw);
		free(r->c[i].new.raw);
	}
	free(r->c);
	free(r->only_base);
	free(r->only_new);
	free(r->skip);
	r->c = NULL;
	r->only_base = r->only_new = NULL;
	r->skip = NULL;
	r->n = r->n_only_base = r->n_only_new = r->nskip = 0;
}

/* ---- output --------------------------------------------------------------------- */

static void fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p == 0)
		snprintf(buf, len, "<1e-300");
	else if (p >= 0.001)
		snprintf(buf, len, "%.3f", p);
	else
		snprintf(buf, len, "%.0e", p);
}

static void fmt_ticks(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (v < 1e5)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

static const char *method_mark(const struct dpk_cmp_case *c)
{
	switch (c->method) {
	case DPK_CMP_TEST:
		return "";
	case DPK_CMP_CI_ONLY:
		return " *";
	case DPK_CMP_TOO_FEW:
		return " **";
	case DPK_CMP_REPEATS:
		return " r";
	case DPK_CMP_PAIRED:
		return " p";
	}
	return "";
}

static void describe_file(FILE *f, const char *label, const struct dpk_results *r, bool cycles)
{
	const struct dpk_res_env *d = dpk_results_env(r, "dpkit");
	size_t nraw = 0, nok = 0;

	/* In cycles, the results that have them, and their raw samples in cycles. */
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_res_entry *e = &r->e[i];
		if (!e->ok || (cycles && !isfinite(e->cycles.p50)))
			continue;
		nok++;
		nraw += (cycles ? e->raw_cycles : e->raw) != NULL;
	}
	fprintf(f, "%s %s (%s%s%s, %zu results, %s)\n", label, r->path,
	        r->started[0] ? r->started : "date unknown", d && d->value[0] ? ", dpkit " : "",
	        d && d->value[0] ? d->value : "", r->n,
	        nraw == nok && nok ? "raw samples"
	        : nraw             ? "some raw samples"
	                           : "no raw samples");
}

void dpk_cmp_print(FILE *f, const struct dpk_results *base, const struct dpk_results *new,
                   const struct dpk_cmp_report *r)
{
	size_t wname = strlen("case"), wpar = strlen("params"), wpl = strlen("place");
	bool any_ci = false, any_few = false, any_rep = false, any_one = false;

	describe_file(f, "base:", base, r->cycles);
	describe_file(f, "new: ", new, r->cycles);
	for (unsigned i = 0; i < r->nwarn; i++)
		fprintf(f, "warning: %s\n", r->warn[i]);
	fprintf(f,
	        "ratio = new/base of the median %s per unit (below 1 is faster); a "
	        "verdict needs p < %.2f and the\n95%% interval of the ratio beyond the noise "
	        "threshold of %.1f%%\n\n",
	        r->cycles ? "core cycles" : "TSC ticks", DPK_CMP_ALPHA, r->noise * 100.0);
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_res_entry *e = r->c[i].base.first;
		size_t l = strlen(e->family);
		wname = l > wname ? l : wname;
		l = strlen(e->params);
		wpar = l > wpar ? l : wpar;
		l = strlen(e->placement);
		wpl = l > wpl ? l : wpl;
	}
	if (wname > 40)
		wname = 40;
	if (wpar > 24)
		wpar = 24;
	fprintf(f, "%-*s  %-*s  %-*s %10s %10s  %6s  %-16s %8s  %8s  %s\n", (int)wname, "case",
	        (int)wpar, "params", (int)wpl, "place", "base p50", "new p50", "ratio",
	        "95% interval", "change", "p", "verdict");
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_cmp_case *c = &r->c[i];
		const struct dpk_res_entry *e = c->base.first;
		char b[24], n[24], p[16], ci[40];

		fmt_ticks(b, sizeof(b), c->base.p50);
		fmt_ticks(n, sizeof(n), c->new.p50);
		fmt_p(p, sizeof(p), c->p);
		snprintf(ci, sizeof(ci), "[%.3f, %.3f]", c->lo, c->hi);
		fprintf(f, "%-*.*s  %-*.*s  %-*s %10s %10s  %6.3f  %-16s %+7.1f%%  %8s  %s%s%s\n",
		        (int)wname, (int)wname, e->family, (int)wpar, (int)wpar, e->params,
		        (int)wpl, e->placement, b, n, c->ratio, ci, (c->ratio - 1.0) * 100.0, p,
		        dpk_cmp_verdict_name(c->verdict), method_mark(c),
		        c->gate_failed ? "  FAIL" : "");
		any_ci |= c->method == DPK_CMP_CI_ONLY;
		any_few |= c->method == DPK_CMP_TOO_FEW;
		any_rep |= c->method == DPK_CMP_REPEATS;
		any_one |= c->method == DPK_CMP_TEST && (c->base.repeats < 2 || c->new.repeats < 2);
	}
	if (r->ngeomean)
		fprintf(f,
		        "%-*s  %-*s  %-*s %10s %10s  %6.3f  %-16s %+7.1f%%  %8s  %u faster, %u "
		        "slower, %u within noise\n",
		        (int)wname, "geometric mean", (int)wpar, "", (int)wpl, "", "", "",
		        r->geomean, "", (r->geomean - 1.0) * 100.0, "", r->faster, r->slower,
		        r->within);
	if (any_ci)
		fprintf(f,
		        "\n * no test possible: a file lacks raw samples%s (run both with "
		        "--raw%s); "
		        "decided from each file's\n   95%% interval of the median, "
		        "\"significant\" meaning the two intervals do not overlap\n",
		        r->cycles ? " in cycles" : "",
		        r->cycles ? " on a dpk-bench that writes raw_cycles" : "");
	if (any_few)
		fprintf(f, "\n ** too few samples on a side to judge; reported as within noise\n");
	if (any_rep)
		fprintf(f, "\n r judged on the medians of the repeats (--repeat), so the interval "
		           "includes drift between runs\n");
	if (any_one)
		fprintf(f,
		        "\nnote: one run a side judges the noise within each run only; drift "
		        "between runs (a few percent\n      on a busy machine) can look "
		        "significant. Run both sides with --repeat %d or more to\n      judge "
		        "on the repeats, or compare variants of one build with run --interleave.\n",
		        5);
	if (r->n_only_base) {
		fprintf(f, "\nonly in base (%zu):\n", r->n_only_base);
		for (size_t i = 0; i < r->n_only_base; i++)
			fprintf(f, "  %s\n", r->only_base[i]);
	}
	if (r->n_only_new) {
		fprintf(f, "\nonly in new (%zu):\n", r->n_only_new);
		for (size_t i = 0; i < r->n_only_new; i++)
			fprintf(f, "  %s\n", r->only_new[i]);
	}
	if (r->nskip) {
		fprintf(f, "\nnot compared (%zu):\n", r->nskip);
		for (size_t i = 0; i < r->nskip; i++)
			fprintf(f, "  %s: %s\n", r->skip[i].id, r->skip[i].reason);
	}
	if (r->fail_above >= 0) {
		if (r->gate_failures) {
			fprintf(f, "\ngate: FAILED, %u case%s slower by more than %.1f%%:\n",
			        r->gate_failures, r->gate_failures == 1 ? "" : "s",
			        r->fail_above * 100.0);
			for (size_t i = 0; i < r->n; i++)
				if (r->c[i].gate_failed)
					fprintf(f, "  %s  %+.1f%% (95%% interval from %+.1f%%)\n",
					        r->c[i].base.first->id, (r->c[i].ratio - 1) * 100,
					        (r->c[i].lo - 1) * 100);
		} else {
			fprintf(f, "\ngate: passed, no case is slower by more than %.1f%%\n",
			        r->fail_above * 100.0);
		}
	}
}

static void json_side(struct dpk_json *j, const char *key, const struct dpk_cmp_side *s,
                      bool cycles)
{
	dpk_json_object_begin(j, key);
	dpk_json_double(j, cycles ? "p50_cycles" : "p50_ticks", s->p50);
	dpk_json_double(j, "p50_ci95_lo", s->lo);
	dpk_json_double(j, "p50_ci95_hi", s->hi);
	dpk_json_double(j, "samples", s->n);
	dpk_json_uint(j, "repeats", s->repeats);
	dpk_json_bool(j, "raw", s->raw != NULL);
	dpk_json_object_end(j);
}

static void json_file(struct dpk_json *j, const char *key, const struct dpk_results *r)
{
	const struct dpk_res_env *d = dpk_results_env(r, "dpkit");

	dpk_json_object_begin(j, key);
	dpk_json_string(j, "path", r->path);
	dpk_json_string(j, "started", r->started);
	dpk_json_string(j, "dpkit", d ? d->value : "");
	dpk_json_uint(j, "results", r->n);
	dpk_json_object_end(j);
}

int dpk_cmp_write_json(FILE *f, const struct dpk_results *base, const struct dpk_results *new,
                       const struct dpk_cmp_report *r, int exit_status)
{
	struct dpk_json j;

	dpk_json_init(&j, f, true);
	dpk_json_object_begin(&j, NULL);
	dpk_json_string(&j, "schema", DPK_CMP_SCHEMA);
	dpk_json_int(&j, "schema_version", DPK_CMP_SCHEMA_VERSION);
	json_file(&j, "base", base);
	json_file(&j, "new", new);
	dpk_json_object_begin(&j, "options");
	dpk_json_double(&j, "noise", r->noise);
	dpk_json_string(&j, "unit", r->cycles ? "cycles" : "ticks");
	if (r->fail_above >= 0)
		dpk_json_double(&j, "fail_above", r->fail_above);
	else
		dpk_json_null(&j, "fail_above");
	dpk_json_double(&j, "alpha", DPK_CMP_ALPHA);
	dpk_json_uint(&j, "bootstrap_resamples", r->resamples);
	dpk_json_object_end(&j);
	dpk_json_array_begin(&j, "warnings");
	for (unsigned i = 0; i < r->nwarn; i++)
		dpk_json_string(&j, NULL, r->warn[i]);
	dpk_json_array_end(&j);
	dpk_json_array_begin(&j, "cases");
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_cmp_case *c = &r->c[i];
		const struct dpk_res_entry *e = c->base.first;
		dpk_json_object_begin(&j, NULL);
		dpk_json_string(&j, "id", e->id);
		dpk_json_string(&j, "suite", e->suite);
		dpk_json_string(&j, "case", e->name);
		dpk_json_string(&j, "params", e->params);
		dpk_json_string(&j, "placement", e->placement);
		dpk_json_string(&j, "unit", e->unit);
		json_side(&j, "base", &c->base, r->cycles);
		json_side(&j, "new", &c->new, r->cycles);
		dpk_json_double(&j, "ratio", c->ratio);
		dpk_json_double(&j, "ratio_ci95_lo", c->lo);
		dpk_json_double(&j, "ratio_ci95_hi", c->hi);
		if (isnan(c->p))
			dpk_json_null(&j, "p_value");
		else
			dpk_json_double(&j, "p_value", c->p);
		dpk_json_bool(&j, "significant", c->significant);
		dpk_json_string(&j, "method", dpk_cmp_method_name(c->method));
		dpk_json_string(&j, "verdict", dpk_cmp_verdict_name(c->verdict));
		dpk_json_bool(&j, "gate_failed", c->gate_failed);
		dpk_json_string(&j, "note", c->note);
		dpk_json_object_end(&j);
	}
	dpk_json_array_end(&j);
	dpk_json_object_begin(&j, "geomean");
	dpk_json_double(&j, "ratio", r->geomean);
	dpk_json_uint(&j, "cases", r->ngeomean);
	dpk_json_uint(&j, "faster", r->faster);
	dpk_json_uint(&j, "slower", r->slower);
	dpk_json_uint(&j, "within_noise", r->within);
	dpk_json_object_end(&j);
	dpk_json_array_begin(&j, "only_in_base");
	for (size_t i = 0; i < r->n_only_base; i++)
		dpk_json_string(&j, NULL, r->only_base[i]);
	dpk_json_array_end(&j);
	dpk_json_array_begin(&j, "only_in_new");
	for (size_t i = 0; i < r->n_only_new; i++)
		dpk_json_string(&j, NULL, r->only_new[i]);
	dpk_json_array_end(&j);
	dpk_json_array_begin(&j, "not_compared");
	for (size_t i = 0; i < r->nskip; i++) {
		dpk_json_object_begin(&j, NULL);
		dpk_json_string(&j, "id", r->skip[i].id);
		dpk_json_string(&j, "reason", r->skip[i].reason);
		dpk_json_object_end(&j);
	}
	dpk_json_array_end(&j);
	dpk_json_uint(&j, "gate_failures", r->gate_failures);
	dpk_json_int(&j, "exit_status", exit_status);
	dpk_json_object_end(&j);
	return dpk_json_finish(&j);
}
