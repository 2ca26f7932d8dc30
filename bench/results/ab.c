/* SPDX-License-Identifier: BSD-3-Clause */
/* ab.c - dpk-bench ab's paired verdicts (ab.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "json.h"
#include "stats.h"
#include "witness.h"

/* The entry of @p r with id @p id, or NULL. */
static const struct dpk_res_entry *find(const struct dpk_results *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->e[i].id, id) == 0)
			return &r->e[i];
	return NULL;
}

static int push(const char ***arr, size_t *n, const char *s)
{
	const char **na = realloc(*arr, (*n + 1) * sizeof(**arr));

	if (!na)
		return -ENOMEM;
	*arr = na;
	(*arr)[(*n)++] = s;
	return 0;
}

/* Round @p q's figure of @p e in core cycles (@p cycles) or in ticks: with @p whole the
 * round as run, slow samples included (a slow phase of the host falls on both rounds of a
 * pair, and setting one round's samples aside would lose the pair), else its kept
 * samples' median; NaN when left out. */
static double round_value(const struct dpk_res_entry *e, size_t q, bool cycles, bool whole)
{
	const double m = e->round_p50[q];

	if (whole)
		return cycles ? e->round_whole_cycles[q] : e->round_whole[q];
	if (cycles)
		return isfinite(m) ? e->round_cycles[q] : NAN;
	return m;
}

/* Whether the two rounds' floors are apart: the host moved the lcores between them. */
static bool floors_apart(const struct dpk_res_entry *a, const struct dpk_res_entry *b, size_t q)
{
	const double x = a->round_floor[q], y = b->round_floor[q];

	return x > 0 && y > 0 && dpk_stats_apart(x, y, DPK_CMP_FLOOR_MOVED);
}

/* Widen @p c's interval by the between-program term for its unit (ab.h). */
static void widen(struct dpk_ab_case *c, const struct dpk_ab_options *o)
{
	const double sigma = o->process_sigma >= 0 ? o->process_sigma
	                     : c->cycles           ? DPK_AB_PROCESS_SIGMA_CYCLES
	                                           : DPK_AB_PROCESS_SIGMA_TICKS;
	const double s = 1.96 * sigma, l = log(c->p50);
	const double hl = l - log(c->lo), hh = log(c->hi) - l;

	c->lo = exp(l - sqrt(hl * hl + s * s));
	c->hi = exp(l + sqrt(hh * hh + s * s));
}

/* Pair the rounds of @p c into c->ratio (NaN: a dropped pair) and @p sorted (the pairs
 * kept), on their kept samples or, with c->whole, as run, pair of processes after pair of
 * processes, each one's median into c->gen_p50; returns how many pairs. */
static size_t pair_up(struct dpk_ab_case *c, double *sorted)
{
	size_t pairs = 0, at = 0;

	/* In core cycles where both have them: the host's clock moves both rounds of a pair
	 * less than it moves two runs, but it moves them still. */
	c->cycles = true;
	for (size_t g = 0; g < c->ngen; g++)
		c->cycles = c->cycles &&
		            (c->whole ? c->gbase[g]->round_whole_cycles &&
		                                c->gnew[g]->round_whole_cycles
		                      : c->gbase[g]->round_cycles && c->gnew[g]->round_cycles);
	c->speed_apart = 0;
	for (size_t g = 0; g < c->ngen; g++) {
		const struct dpk_res_entry *a = c->gbase[g], *b = c->gnew[g];
		const size_t n = a->rounds_run < b->rounds_run ? a->rounds_run : b->rounds_run;
		const size_t from = pairs;

		for (size_t q = 0; q < n; q++, at++) {
			double x = round_value(a, q, c->cycles, c->whole),
			       y = round_value(b, q, c->cycles, c->whole);

			c->ratio[at] = x > 0 && y > 0 ? y / x : NAN;
			if (c->floors && floors_apart(a, b, q))
				c->ratio[at] = NAN;
			if (c->whole && a->round_whole_wit && b->round_whole_wit &&
			    dpk_bench_witness_apart(a->round_whole_wit[q], b->round_whole_wit[q])) {
				c->ratio[at] = NAN;
				c->speed_apart++;
			}
			if (isfinite(c->ratio[at]))
				sorted[pairs++] = c->ratio[at];
		}
		c->gen_pairs[g] = pairs - from;
		c->gen_p50[g] = pairs > from ? dpk_stats_median(sorted + from, pairs - from) : NAN;
	}
	return pairs;
}

/* Whether every pair of processes' median ratio lies above @p above (when > 1) or below
 * it (when < 1): the effect is found in each, not drawn by one pair of programs. */
static bool in_every_pair(const struct dpk_ab_case *c, double above)
{
	for (size_t g = 0; g < c->ngen; g++) {
		const double m = c->gen_p50[g];

		if (!(above > 1.0 ? m > above : m < above))
			return false;
	}
	return true;
}

/* The interval of @p c's @p n sorted pairs, widened; its verdict by @p o, kept only when
 * each pair of processes finds it too. */
static void verdict(struct dpk_ab_case *c, const double *sorted, size_t lo, size_t hi,
                    const struct dpk_ab_options *o)
{
	c->lo = sorted[lo];
	c->hi = sorted[hi];
	widen(c, o);
	if (c->hi < 1.0 - o->noise)
		c->verdict = DPK_CMP_FASTER;
	else if (c->lo > 1.0 + o->noise)
		c->verdict = DPK_CMP_SLOWER;
	if (c->verdict != DPK_CMP_WITHIN_NOISE &&
	    !in_every_pair(c, c->verdict == DPK_CMP_FASTER ? 1.0 - o->noise : 1.0 + o->noise)) {
		double mn = c->gen_p50[0], mx = c->gen_p50[0];

		for (size_t g = 1; g < c->ngen; g++) {
			mn = fmin(mn, c->gen_p50[g]);
			mx = fmax(mx, c->gen_p50[g]);
		}
		c->verdict = DPK_CMP_WITHIN_NOISE;
		c->unreplicated = true;
		snprintf(c->note, sizeof(c->note),
		         "the pairs of processes' medians run from x%.4f to x%.4f, not all beyond "
		         "the noise: within noise",
		         mn, mx);
	}
	c->gate_failed = o->fail_above >= 0 && c->lo > 1.0 + o->fail_above &&
	                 in_every_pair(c, 1.0 + o->fail_above);
}

/* Whether any of @p c's processes saw its rounds fall into regimes apart. */
static bool regimes_apart(const struct dpk_ab_case *c, unsigned *nb, unsigned *nn)
{
	*nb = *nn = 1;
	for (size_t g = 0; g < c->ngen; g++) {
		*nb = c->gbase[g]->nregimes > *nb ? c->gbase[g]->nregimes : *nb;
		*nn = c->gnew[g]->nregimes > *nn ? c->gnew[g]->nregimes : *nn;
	}
	return *nb > 1 || *nn > 1;
}

/*
 * Whether every kept pair of @p c's rounds has its ratio beyond @p noise, all on the same
 * side: whatever regimes the two rounds of each pair drew, the new build's was the faster
 * (or the slower) one. The pairs share their moment and lcores, so a move of the host
 * between rounds falls on both rounds of a pair.
 */
static bool pairs_one_side(const struct dpk_ab_case *c, double noise)
{
	size_t below = 0, above = 0;

	for (size_t i = 0; i < c->nratio; i++) {
		if (!isfinite(c->ratio[i]))
			continue;
		below += c->ratio[i] < 1.0 - noise;
		above += c->ratio[i] > 1.0 + noise;
	}
	return c->pairs > 0 && (below == c->pairs || above == c->pairs);
}

/* The note of a case whose rounds fell into @p nb and @p nn regimes: what its verdict, or
 * the lack of one, rests on. A note verdict() left stays. */
static void regimes_note(struct dpk_ab_case *c, unsigned nb, unsigned nn)
{
	if (c->note[0])
		return;
	snprintf(c->note, sizeof(c->note),
	         c->has_verdict
	                 ? "the rounds fell into regimes apart (base %u, new %u), every pair "
	                   "of rounds beyond the noise on one side"
	                 : "the rounds fell into regimes apart (base %u, new %u), pairs of "
	                   "rounds on both sides of the noise: no verdict",
	         nb, nn);
}

/* Pair the rounds of @p c and judge them by @p o: on the rounds' kept samples, which the
 * figures rest on, unless those give fewer than DPK_AB_MIN_PAIRS pairs or fewer than half
 * the pairs of the rounds as run (the host slowed most rounds). Returns 0 or -ENOMEM. */
static int judge(struct dpk_ab_case *c, const struct dpk_ab_options *o)
{
	size_t n = 0, lo, hi;
	bool whole = true;
	unsigned nb, nn;
	double *sorted;

	c->floors = true;
	for (size_t g = 0; g < c->ngen; g++) {
		const struct dpk_res_entry *a = c->gbase[g], *b = c->gnew[g];

		n += a->rounds_run < b->rounds_run ? a->rounds_run : b->rounds_run;
		c->floors = c->floors && a->round_floor && b->round_floor;
		whole = whole && a->round_whole && b->round_whole;
	}
	c->ratio = calloc(n ? n : 1, sizeof(*c->ratio));
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!c->ratio || !sorted) {
		free(sorted);
		return -ENOMEM;
	}
	c->nratio = n;
	c->whole = false;
	c->pairs = pair_up(c, sorted);
	if (whole) {
		const size_t kept = c->pairs;

		c->whole = true;
		c->pairs = pair_up(c, sorted);
		if (!dpk_bench_pair_as_run(kept, c->pairs, DPK_AB_MIN_PAIRS)) {
			c->whole = false;
			c->pairs = pair_up(c, sorted);
		}
	}
	c->p50 = c->lo = c->hi = NAN;
	c->verdict = DPK_CMP_WITHIN_NOISE;
	if (c->pairs)
		c->p50 = dpk_stats_median(sorted, c->pairs);
	c->has_verdict =
	        c->pairs >= DPK_AB_MIN_PAIRS && dpk_stats_median_ci_ranks(c->pairs, &lo, &hi);
	/* One-lcore rounds fall into regimes with the host's phases and their code's pages,
	 * which the pairing takes out; a pair case's regimes are states of the case. */
	if (c->has_verdict && !c->whole && regimes_apart(c, &nb, &nn)) {
		c->has_verdict = pairs_one_side(c, o->noise);
		if (c->has_verdict)
			verdict(c, sorted, lo, hi, o);
		regimes_note(c, nb, nn);
	} else if (c->has_verdict) {
		verdict(c, sorted, lo, hi, o);
	} else if (!c->note[0]) {
		snprintf(c->note, sizeof(c->note),
		         "%zu paired rounds kept of %zu (%zu dropped: the machine ran them at two "
		         "speeds); %d are needed",
		         c->pairs, n, c->speed_apart, DPK_AB_MIN_PAIRS);
	}
	free(sorted);
	return 0;
}

static void count(struct dpk_ab_report *r)
{
	double logsum = 0;
	size_t nlog = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_ab_case *c = &r->c[i];

		if (!c->has_verdict) {
			r->none++;
			continue;
		}
		r->faster += c->verdict == DPK_CMP_FASTER;
		r->slower += c->verdict == DPK_CMP_SLOWER;
		r->within += c->verdict == DPK_CMP_WITHIN_NOISE;
		r->gate_failures += c->gate_failed;
		r->unreplicated += c->unreplicated;
		logsum += log(c->p50);
		nlog++;
	}
	r->geomean = nlog ? exp(logsum / (double)nlog) : NAN;
}

/* Whether @p id is ok, in rounds, in every pair of processes of @p base and @p new (from
 * the second on: the first is @p a and @p b), into @p c. */
static bool in_every_process(const struct dpk_results *base, const struct dpk_results *new,
                             size_t n, const struct dpk_res_entry *a, const struct dpk_res_entry *b,
                             struct dpk_ab_case *c)
{
	c->ngen = n;
	for (size_t g = 0; g < n; g++) {
		const struct dpk_res_entry *x = g ? find(&base[g], a->id) : a,
		                           *y = g ? find(&new[g], a->id) : b;

		if (!x || !y || !x->ok || !y->ok || !x->round_p50 || !y->round_p50)
			return false;
		c->gbase[g] = x;
		c->gnew[g] = y;
	}
	c->base = a;
	c->new = b;
	return true;
}

/* The geometric mean of the processes' p50s of one side (@p side: the entries). */
static double mean_p50(const struct dpk_res_entry *const *side, size_t n)
{
	double l = 0;

	for (size_t g = 0; g < n; g++)
		l += log(side[g]->ticks.p50);
	return exp(l / (double)n);
}

/* Add every case of @p base that @p new has, ok in every pair of processes, to @p out;
 * the others of base to only_base. */
static int match(const struct dpk_results *base, const struct dpk_results *new, size_t ngen,
                 const struct dpk_ab_options *o, struct dpk_ab_report *out)
{
	for (size_t i = 0; i < base->n; i++) {
		const struct dpk_res_entry *a = &base->e[i], *b;
		struct dpk_ab_case c;

		if (a->repeat != 0 || !dpk_results_selected(o->patterns, o->npatterns, a))
			continue;
		b = find(new, a->id);
		if (!b) {
			if (push(&out->only_base, &out->n_only_base, a->id))
				return -ENOMEM;
			continue;
		}
		memset(&c, 0, sizeof(c));
		if (!in_every_process(base, new, ngen, a, b, &c))
			continue;
		c.base_p50 = mean_p50(c.gbase, ngen);
		c.new_p50 = mean_p50(c.gnew, ngen);
		struct dpk_ab_case *nc = realloc(out->c, (out->n + 1) * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		out->c = nc;
		nc[out->n] = c;
		if (judge(&nc[out->n++], o))
			return -ENOMEM;
	}
	for (size_t i = 0; i < new->n; i++)
		if (new->e[i].repeat == 0 &&
		    dpk_results_selected(o->patterns, o->npatterns, &new->e[i]) &&
		    !find(base, new->e[i].id) &&
		    push(&out->only_new, &out->n_only_new, new->e[i].id))
			return -ENOMEM;
	return 0;
}

int dpk_ab_compare_processes(const struct dpk_results *base, const struct dpk_results *new,
                             size_t n, const struct dpk_ab_options *o, struct dpk_ab_report *out,
                             char *err, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (n < 1 || n > DPK_AB_PROCESSES_MAX) {
		snprintf(err, errlen, "%zu pairs of processes: from 1 to %d", n,
		         DPK_AB_PROCESSES_MAX);
		return -EINVAL;
	}
	out->noise = o->noise;
	out->fail_above = o->fail_above;
	out->process_sigma = o->process_sigma;
	out->processes = n;
	rc = match(base, new, n, o, out);
	if (rc) {
		dpk_ab_report_free(out);
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	if (out->n == 0) {
		/* The ids only one side has are kept, for nothing: the caller frees nothing. */
		dpk_ab_report_free(out);
		snprintf(err, errlen, "no case ran in rounds in both builds");
		return -EINVAL;
	}
	count(out);
	return 0;
}

int dpk_ab_compare(const struct dpk_results *base, const struct dpk_results *new,
                   const struct dpk_ab_options *o, struct dpk_ab_report *out, char *err,
                   size_t errlen)
{
	return dpk_ab_compare_processes(base, new, 1, o, out, err, errlen);
}

void dpk_ab_report_free(struct dpk_ab_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->c[i].ratio);
	free(r->c);
	free(r->only_base);
	free(r->only_new);
	memset(r, 0, sizeof(*r));
}

static const char *verdict_of(const struct dpk_ab_case *c)
{
	return c->has_verdict ? dpk_cmp_verdict_name(c->verdict) : "no verdict";
}

void dpk_ab_print(FILE *f, const char *base_name, const char *new_name,
                  const struct dpk_ab_report *r)
{
	fprintf(f,
	        "ab: base %s, new %s\n"
	        "ratio = new/base of paired rounds' medians (in core cycles where both have "
	        "them; a pair whose two\nfloors are apart by over %.0f%% is dropped; \"as run\": "
	        "too few rounds kept samples, and\nthe rounds are paired slow samples and all, "
	        "those the host's speed split dropped; below 1\nis faster), with the 95%% "
	        "sign-test interval of the median pair; a verdict needs the interval\nbeyond "
	        "%.1f%%\n\n",
	        base_name, new_name, DPK_CMP_FLOOR_MOVED * 100.0, r->noise * 100.0);
	int w = 4;

	/* The id column as wide as the longest id, up to 80. */
	for (size_t i = 0; i < r->n; i++)
		w = (int)fmax(w, fmin(80, (double)strlen(r->c[i].base->id)));
	fprintf(f, "  %-*s %10s %10s %8s  %-19s %5s  %s\n", w, "case", "base ticks", "new ticks",
	        "ratio", "95% interval", "pairs", "verdict");
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_ab_case *c = &r->c[i];
		char iv[40];

		if (c->has_verdict)
			snprintf(iv, sizeof(iv), "[%.4f, %.4f]", c->lo, c->hi);
		else
			snprintf(iv, sizeof(iv), "-");
		fprintf(f, "  %-*.*s %10.2f %10.2f %8.4f  %-19s %5zu  %s%s%s\n", w, w, c->base->id,
		        c->base_p50, c->new_p50, c->p50, iv, c->pairs, verdict_of(c),
		        c->floors               ? " (ticks, floors)"
		        : c->cycles && c->whole ? " (cycles, as run)"
		        : c->cycles             ? " (cycles)"
		        : c->whole              ? " (as run)"
		                                : "",
		        c->gate_failed ? "  FAIL" : "");
		if (c->note[0])
			fprintf(f, "      %s\n", c->note);
	}
	for (size_t i = 0; i < r->n_only_base; i++)
		fprintf(f, "  %-*s only in base: not judged\n", w, r->only_base[i]);
	for (size_t i = 0; i < r->n_only_new; i++)
		fprintf(f, "  %-*s only in new: not judged\n", w, r->only_new[i]);
	fprintf(f,
	        "\n%zu cases: %u faster, %u slower, %u within noise, %u without a verdict; "
	        "geometric mean of the ratios x%.4f\n",
	        r->n, r->faster, r->slower, r->within, r->none, r->geomean);
	fprintf(f, "verdicts rest on rounds of both builds run in turn, in a random order per "
	           "pair, on the same lcores in one session: drift and slow phases fall on both\n");
	if (r->processes > 1)
		fprintf(f,
		        "each build ran as %zu processes, one of each at a time; a verdict needs "
		        "each pair's median ratio beyond the noise too (%u case%s found in some "
		        "pairs only)\n",
		        r->processes, r->unreplicated, r->unreplicated == 1 ? "" : "s");
	if (r->process_sigma >= 0)
		fprintf(f, "intervals widened by a between-program sigma of %.1f%% (--run-sigma)\n",
		        r->process_sigma * 100.0);
	else
		fprintf(f,
		        "intervals widened by a between-program sigma of %.1f%% in core cycles, "
		        "%.1f%% in ticks (two runs of one build differ by that much; "
		        "--run-sigma)\n",
		        DPK_AB_PROCESS_SIGMA_CYCLES * 100.0, DPK_AB_PROCESS_SIGMA_TICKS * 100.0);
	if (r->fail_above >= 0)
		fprintf(f, "gate: %s, %u case%s slower by more than %.1f%%\n",
		        r->gate_failures ? "FAILED" : "passed", r->gate_failures,
		        r->gate_failures == 1 ? "" : "s", r->fail_above * 100.0);
}

static void json_case(struct dpk_json *j, const struct dpk_ab_case *c)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "id", c->base->id);
	dpk_json_string(j, "suite", c->base->suite);
	dpk_json_string(j, "case", c->base->name);
	dpk_json_string(j, "params", c->base->params);
	dpk_json_string(j, "placement", c->base->placement);
	dpk_json_string(j, "unit", c->base->unit);
	dpk_json_double(j, "base_p50", c->base_p50);
	dpk_json_double(j, "new_p50", c->new_p50);
	dpk_json_bool(j, "per_floor", c->floors);
	dpk_json_bool(j, "in_cycles", c->cycles);
	dpk_json_bool(j, "whole_rounds", c->whole);
	dpk_json_uint(j, "speed_apart", c->speed_apart);
	dpk_json_uint(j, "pairs", c->pairs);
	dpk_json_double(j, "ratio", c->p50);
	dpk_json_double(j, "ci95_lo", c->lo);
	dpk_json_double(j, "ci95_hi", c->hi);
	dpk_json_string(j, "verdict", verdict_of(c));
	dpk_json_bool(j, "gate_failed", c->gate_failed);
	if (c->note[0])
		dpk_json_string(j, "note", c->note);
	dpk_json_bool(j, "unreplicated", c->unreplicated);
	dpk_json_array_begin(j, "processes");
	for (size_t g = 0; g < c->ngen; g++) {
		dpk_json_object_begin(j, NULL);
		dpk_json_double(j, "base_p50", c->gbase[g]->ticks.p50);
		dpk_json_double(j, "new_p50", c->gnew[g]->ticks.p50);
		dpk_json_uint(j, "pairs", c->gen_pairs[g]);
		dpk_json_double(j, "ratio", c->gen_p50[g]);
		dpk_json_object_end(j);
	}
	dpk_json_array_end(j);
	dpk_json_array_begin(j, "round_ratios");
	for (size_t q = 0; q < c->nratio; q++)
		dpk_json_double(j, NULL, c->ratio[q]); /* NaN: null, a dropped pair */
	dpk_json_array_end(j);
	dpk_json_object_end(j);
}

int dpk_ab_write_json(FILE *f, const struct dpk_results *base, const struct dpk_results *new,
                      const struct dpk_ab_report *r, int exit_status)
{
	struct dpk_json j;

	dpk_json_init(&j, f, true);
	dpk_json_object_begin(&j, NULL);
	dpk_json_string(&j, "schema", DPK_AB_SCHEMA);
	dpk_json_int(&j, "schema_version", DPK_AB_SCHEMA_VERSION);
	dpk_json_string(&j, "base", base->path);
	dpk_json_string(&j, "new", new->path);
	dpk_json_double(&j, "noise", r->noise);
	dpk_json_double(&j, "fail_above", r->fail_above);
	if (r->process_sigma >= 0)
		dpk_json_double(&j, "process_sigma", r->process_sigma);
	dpk_json_uint(&j, "processes", r->processes);
	dpk_json_int(&j, "exit_status", exit_status);
	dpk_json_array_begin(&j, "cases");
	for (size_t i = 0; i < r->n; i++)
		json_case(&j, &r->c[i]);
	dpk_json_array_end(&j);
	dpk_json_array_begin(&j, "only_base");
	for (size_t i = 0; i < r->n_only_base; i++)
		dpk_json_string(&j, NULL, r->only_base[i]);
	dpk_json_array_end(&j);
	dpk_json_array_begin(&j, "only_new");
	for (size_t i = 0; i < r->n_only_new; i++)
		dpk_json_string(&j, NULL, r->only_new[i]);
	dpk_json_array_end(&j);
	dpk_json_object_begin(&j, "summary");
	dpk_json_uint(&j, "faster", r->faster);
	dpk_json_uint(&j, "slower", r->slower);
	dpk_json_uint(&j, "within_noise", r->within);
	dpk_json_uint(&j, "no_verdict", r->none);
	dpk_json_double(&j, "geomean", r->geomean);
	dpk_json_uint(&j, "gate_failures", r->gate_failures);
	dpk_json_uint(&j, "unreplicated", r->unreplicated);
	dpk_json_object_end(&j);
	dpk_json_object_end(&j);
	return dpk_json_finish(&j);
}

int dpk_ab_to_cmp(const struct dpk_ab_report *ab, struct dpk_cmp_report *out)
{
	memset(out, 0, sizeof(*out));
	out->c = calloc(ab->n ? ab->n : 1, sizeof(*out->c));
	if (!out->c)
		return -ENOMEM;
	out->n = ab->n;
	for (size_t i = 0; i < ab->n; i++) {
		const struct dpk_ab_case *a = &ab->c[i];
		struct dpk_cmp_case *c = &out->c[i];

		c->base.first = a->base;
		c->new.first = a->new;
		c->base.p50 = a->base_p50;
		c->new.p50 = a->new_p50;
		c->ratio = a->p50;
		c->lo = a->has_verdict ? a->lo : a->p50;
		c->hi = a->has_verdict ? a->hi : a->p50;
		c->p = NAN;
		c->significant = a->has_verdict && (a->lo > 1.0 || a->hi < 1.0);
		c->method = DPK_CMP_PAIRED;
		c->verdict = a->has_verdict ? a->verdict : DPK_CMP_NO_VERDICT;
		c->gate_failed = a->gate_failed;
		snprintf(c->note, sizeof(c->note), "%zu paired rounds%s%s", a->pairs,
		         a->floors   ? ", in ticks, floors checked"
		         : a->cycles ? ", in core cycles"
		                     : "",
		         a->note[0] ? "; " : "");
		snprintf(c->note + strlen(c->note), sizeof(c->note) - strlen(c->note), "%s",
		         a->note);
	}
	out->faster = ab->faster;
	out->slower = ab->slower;
	out->within = ab->within;
	out->geomean = ab->geomean;
	out->noise = ab->noise;
	out->fail_above = ab->fail_above;
	out->gate_failures = ab->gate_failures;
	return 0;
}
