/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rounds.c - single-lcore cases in rounds: each round gives every case of the set one
 * slice of its time, set up afresh, so a slow phase of the machine falls on all alike and
 * the speed witness next to every batch can tell it from the case's own cost.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>

#include "coreclock.h"
#include "engine_int.h"

static_assert(2 * DPK_BENCH_ROUNDS_MAX <= UINT16_MAX + 1, "a sample's round is 16 bits");

/* One case of dpk_bench_run_rounds(). */
struct round_case {
	const struct dpk_bench_case *c;
	struct dpk_sample *samples;
	size_t ns;        /* samples taken so far */
	uint64_t n;       /* batch size: the first slice's calibration, grown by rewarm() */
	double ops;       /* operations timed in its samples */
	uint64_t spent;   /* ticks of its slices, set-up and tear-down included */
	double sum_ticks; /* ticks of its kept and rejected batches */
	size_t planned;   /* samples taken in the planned rounds */
	unsigned slices;  /* slices run */
	bool live;
};

/* Time batches of case @p x (set up and warmed) for @p slice ticks, from sample index
 * rc->ns on, with a witness timing after each (its readings go to @p log). False when the
 * case failed or the log ran out of memory. */
static bool slice_batches(const struct dpk_bench_runner *r, struct dpk_bench_witness_log *log,
                          struct dpk_bench_witness_block *block, struct dpk_bench_ctl *x,
                          struct round_case *rc, unsigned q, uint64_t slice, size_t cap)
{
	double (*timing)(void) = r->witness_time ? r->witness_time : dpk_bench_witness_timing;
	double ticks, before = timing();
	uint64_t start = dpk_tsc(), now = start;

	if (!dpk_bench_witness_add(block, log, before))
		return false;
	for (unsigned b = 0; rc->ns < cap && (now == start || now - start < slice); b++) {
		struct dpk_sample *sm = &rc->samples[rc->ns];
		double after;

		/* Slice q starts at index q of the sequence, so slices of a few long batches do
		 * not all take the same few places. */
		x->stack_shift = dpk_bench_stack_shift_of(q + b);
		if (dpk_bench_time_batch(x, 0, rc->n, r->clock.read_cost, sm, false, &ticks) <
		            rc->n ||
		    dpk_bench_ctl_failed(x))
			return false;
		after = timing();
		sm->clk = r->clock.cycles_on ? (float)dpk_bench_coreclock_timing() : 0.0f;
		sm->wit = (float)(after > before ? after : before);
		sm->round = (uint16_t)q;
		before = after;
		rc->sum_ticks += ticks;
		rc->ops += (double)rc->n;
		rc->ns++;
		if (!dpk_bench_witness_add(block, log, after))
			return false;
		now = dpk_tsc();
	}
	return true;
}

/*
 * Slice @p q of case @p rc: set it up afresh, calibrate it (first slice) or warm it up
 * again (growing rc->n if need be), read the switch count and settle, time batches for
 * @p slice ticks (slice_batches()), give the switches counted meanwhile to its batches,
 * tear it down. One case is set up at a time, in the arena like a case run alone: the
 * cases of a suite may share global state (service names and ids, lcores). Returns false
 * once the case is over: failed (@p res says why) or out of room for samples or readings.
 */
static bool run_slice(const struct dpk_bench_runner *r, struct dpk_bench_witness_log *log,
                      struct round_case *rc, unsigned q, uint64_t slice, uint64_t warm, size_t cap,
                      struct dpk_bench_result *res)
{
	struct dpk_bench_ctl *x = malloc(sizeof(*x));
	struct dpk_bench_witness_block block = {.n = 0};
	uint64_t t0 = dpk_tsc();
	size_t first = rc->ns;
	struct dpk_bench_switches cs0;
	bool ok;

	if (!x) {
		dpk_bench_result_fail(res, "out of memory");
		return false;
	}
	dpk_bench_ctl_init(x, rc->c, DPK_PLACE_SINGLE, 1);
	x->arena_round = q;
	if (!dpk_bench_ctl_setup(x, res)) {
		free(x);
		return false;
	}
	ok = q == 0 ? dpk_bench_calibrate(r, x, &rc->n) : dpk_bench_rewarm(r, x, &rc->n, warm);
	cs0 = dpk_bench_switches_now(r);
	ok = ok && dpk_bench_settle(x, rc->n) &&
	     slice_batches(r, log, &block, x, rc, q, slice, cap);

	struct dpk_sample *slice_samples = rc->samples + first;

	dpk_stats_give_switches(&slice_samples, 1, rc->ns - first,
	                        dpk_bench_switches_since(r, cs0));
	ok = dpk_bench_ctl_teardown(x, res) && ok;
	free(x);
	rc->spent += dpk_tsc() - t0;
	return ok && rc->ns < cap;
}

/* The rounds (time slices) the kept samples of @p s (n of them) came from. */
static unsigned kept_rounds(const struct dpk_sample *s, size_t n)
{
	uint8_t seen[(UINT16_MAX + 1) / 8] = {0}; /* a sample's round is 16 bits */
	unsigned count = 0;

	for (size_t x = 0; x < n; x++) {
		const unsigned q = s[x].round;

		if (s[x].reject != DPK_REJECT_NONE || (seen[q / 8] & (1u << (q % 8))))
			continue;
		seen[q / 8] |= (uint8_t)(1u << (q % 8));
		count++;
	}
	return count;
}

/* The median witness timing next to the kept samples of @p s; NaN when none is kept (or
 * out of memory). */
static double kept_witness_p50(const struct dpk_sample *s, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v)), m = NAN;
	size_t k = 0;

	if (!v)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (s[i].reject == DPK_REJECT_NONE)
			v[k++] = s[i].wit;
	if (k)
		m = dpk_stats_median(v, k);
	free(v);
	return m;
}

unsigned dpk_bench_witness_finish(struct dpk_bench_runner *r, struct dpk_bench_result *res,
                                  size_t n)
{
	unsigned count = 0;

	r->witness.ref = dpk_bench_witness_ref(&r->witness, &r->witness.ref_check);
	for (size_t i = 0; i < n; i++) {
		/* A result that kept its slow samples stays flagged, as its row says, even where
		 * the final reference rose (it is a rank, not the fastest) so far that those
		 * samples now fall under its limit. */
		res[i].witness_slow_only =
		        res[i].status == DPK_RESULT_OK && res[i].witness_slices > 0 &&
		        (res[i].witness_kept_slow ||
		         !(res[i].witness_kept_p50 <= dpk_bench_witness_limit(r->witness.ref)));
		count += res[i].witness_slow_only;
	}
	r->witness.slow_only_cases = count;
	return count;
}

/* The samples of @p rc next to timings no slower than @p limit. */
static size_t fast_samples(const struct round_case *rc, double limit)
{
	size_t fast = 0;

	for (size_t x = 0; x < rc->ns; x++)
		fast += rc->samples[x].wit <= limit;
	return fast;
}

/* Whether a live case has fewer fast samples than an eighth of its planned rounds' samples
 * (five rounds' worth of forty), by the reference reading @p ref. */
static bool short_of_fast(const struct round_case *rc, unsigned k, double ref)
{
	for (unsigned i = 0; i < k; i++)
		if (rc[i].live &&
		    8 * fast_samples(&rc[i], dpk_bench_witness_limit(ref)) < rc[i].planned)
			return true;
	return false;
}

bool dpk_bench_single_open(struct dpk_bench_set *set)
{
	struct dpk_bench_runner *r = set->r;
	const size_t cap = r->opt.max_samples ? r->opt.max_samples : 1;
	struct round_case *rc = calloc(set->k ? set->k : 1, sizeof(*rc));

	set->planned = dpk_bench_rounds_of(r);
	/* Rounds for cases short of fast samples: only with the slow rules on, at most as
	 * many again. */
	set->most = r->opt.slow_limit > 0 ? 2 * set->planned : set->planned;
	set->rc = rc;
	for (unsigned i = 0; i < set->k; i++) {
		if (rc) {
			rc[i].c = set->items[i].c;
			rc[i].samples = calloc(cap, sizeof(struct dpk_sample));
			rc[i].live = rc[i].samples != NULL;
		}
		if (!rc || !rc[i].live)
			dpk_bench_result_fail(&set->res[i], "out of memory");
	}
	if (!(r->witness.best > 0)) /* a runner set up by hand: no clock-check reading */
		r->witness.best = INFINITY;
	return rc != NULL;
}

bool dpk_bench_single_wants(const struct dpk_bench_set *set, unsigned q)
{
	if (q < set->planned)
		return true;
	return q < set->most &&
	       short_of_fast(set->rc, set->k, dpk_bench_witness_ref(&set->r->witness, NULL));
}

bool dpk_bench_single_round(struct dpk_bench_set *set, unsigned q)
{
	const struct dpk_bench_runner *r = set->r;
	const double hz = (double)r->clock.hz;
	const uint64_t slice = (uint64_t)(r->opt.time_s * hz / set->planned) + 1;
	const uint64_t warm = (uint64_t)(r->opt.warmup_s * hz / set->planned);
	const size_t cap = r->opt.max_samples ? r->opt.max_samples : 1;
	struct round_case *rc = set->rc;
	bool any = false;

	/* Each round visits the cases in turn, starting one case later every round. */
	for (unsigned j = 0; j < set->k; j++) {
		unsigned i = (q + j) % set->k;

		if (!rc[i].live)
			continue;
		/* Out of memory for the log: the case ends with what it has. */
		rc[i].live =
		        run_slice(r, &set->r->witness, &rc[i], q, slice, warm, cap, &set->res[i]);
		rc[i].slices++;
		if (q < set->planned)
			rc[i].planned = rc[i].ns;
		any |= rc[i].live;
	}
	set->ran = q + 1;
	return any;
}

/* Judge case @p i of @p set by the witness reference @p ref and fill its result. */
static void finish_case(struct dpk_bench_set *set, unsigned i)
{
	struct dpk_bench_witness_log *log = &set->r->witness;
	struct round_case *rc = &set->rc[i];
	struct dpk_bench_result *res = &set->res[i];
	struct dpk_bench_witness_rule wit = {.limit = dpk_bench_witness_limit(log->ref)};
	size_t fast = fast_samples(rc, wit.limit);

	res->witness_slices = rc->slices;
	res->witness_fast = fast;
	if (res->status == DPK_RESULT_OK) {
		dpk_bench_finish_single(set->r, rc->c, rc->samples, rc->ns, rc->n, rc->sum_ticks,
		                        rc->ops, &wit, res);
		res->witness_kept_slow = wit.kept_slow;
		res->witness_kept_p50 = kept_witness_p50(rc->samples, rc->ns);
		res->witness_kept_rounds = kept_rounds(rc->samples, rc->ns);
		dpk_bench_single_rounds(set->r, rc->samples, rc->ns, rc->slices, res);
		log->samples += rc->ns;
		log->slow += rc->ns - fast;
		log->set_aside += wit.set_aside;
	}
	res->elapsed_s = (double)rc->spent / (double)set->r->clock.hz;
}

void dpk_bench_single_close(struct dpk_bench_set *set)
{
	struct dpk_bench_witness_log *log = &set->r->witness;

	if (!set->rc)
		return;
	log->rounds += set->ran;
	log->extra += set->ran > set->planned ? set->ran - set->planned : 0;
	/* The samples are judged now, by the reference of the readings so far (this set's
	 * included), and the log counts them as judged: a later reference, lower or higher,
	 * does not judge them again. */
	log->ref = dpk_bench_witness_ref(log, &log->ref_check);
	for (unsigned i = 0; i < set->k; i++) {
		finish_case(set, i);
		free(set->rc[i].samples);
	}
	free(set->rc);
	set->rc = NULL;
}
