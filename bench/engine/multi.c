/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * multi.c - multi-lcore cases: every role on its lcore from a common start, warm-up, a
 * measurement window the main lcore ends with the stop flag, per-role and pooled figures.
 *
 * Memory orders (labels of this file):
 *   A1  the start barrier: each role's release increment of ready pairs with the main
 *       lcore's acquire load of it, and the main lcore's release store of phase
 *       (PHASE_WARM) with each role's acquire load, so what setup() wrote is visible to
 *       every role before its first body call.
 *   W2  the main lcore's relaxed futex wait on woken; pairs with W1 in run.c
 *       (dpk_bench_fail()), relaxed for the reasons given there.
 * The later phase change (PHASE_MEASURE) and the stop flag are relaxed: they carry no
 * data, and the roles are joined before anything they wrote is read.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <dpk/cycles.h>

#include "engine_int.h"

/* ---- multi-lcore ------------------------------------------------------------------ */

enum { PHASE_START, PHASE_WARM, PHASE_MEASURE };

struct multi;

struct role_ctx {
	struct multi *m;
	unsigned role;
	struct dpk_sample *samples;
	size_t nsamples;
	uint64_t ops;    /* completed in the measurement window */
	uint64_t window; /* ticks of the measurement window */
	uint64_t batch;
};

struct multi {
	struct dpk_bench_ctl *x;
	const struct dpk_bench_runner *r;
	atomic_uint ready;
	atomic_int phase;
	bool check_ctx;
	struct role_ctx role[DPK_BENCH_ROLES_MAX];
};

static void spin_wait_relax(unsigned *spins)
{
	/* Yield now and then: on an oversubscribed CPU the thread we wait for may need this
	 * CPU to make progress. */
	if (++*spins % 256 == 0)
		sched_yield();
	else
		dpk_pause();
}

static int role_main(void *arg)
{
	struct role_ctx *rc = arg;
	struct multi *m = rc->m;
	struct dpk_bench_ctl *x = m->x;
	struct dpk_bench_run *run = &x->run;
	const struct dpk_bench_runner *r = m->r;
	unsigned mult = run->c->ops_multiple ? run->c->ops_multiple : 1, spins = 0;
	uint64_t n = dpk_bench_round_ops(1, mult), warm_ops = 0, warm_t0, t0, now;
	double ticks, overhead = r->clock.read_cost, warm_ticks = 0;
	size_t cap = r->opt.max_samples;

	/* A1: the start barrier. The release increment pairs with the acquire load of
	 * ready in run_multi(); the acquire load of phase pairs with its release store, so
	 * the state that setup() wrote is visible here before the first body call. */
	atomic_fetch_add_explicit(&m->ready, 1, memory_order_release);
	while (atomic_load_explicit(&m->phase, memory_order_acquire) == PHASE_START)
		spin_wait_relax(&spins);

	/* Warm-up: run and learn the rate, until the main lcore opens the window. Batches
	 * start at the smallest size and double while short, so a case that moves only at
	 * context switches (an oversubscribed pair) still completes batches. */
	warm_t0 = dpk_tsc();
	while (atomic_load_explicit(&m->phase, memory_order_relaxed) == PHASE_WARM &&
	       !dpk_bench_stopped(run)) {
		uint64_t done = dpk_bench_time_batch(x, rc->role, n, overhead, NULL, false, &ticks);
		warm_ops += done;
		warm_ticks += ticks;
		if (done < n)
			break;
		if (ticks < r->clock.target_multi / 4 && n < (UINT64_C(1) << 40))
			n = dpk_bench_round_ops(n * 2, mult);
	}
	if ((double)(dpk_tsc() - warm_t0) > 0 && warm_ops > 0 && warm_ticks > 0) {
		double rate = (double)warm_ops / warm_ticks; /* ops per tick */
		double want = rate * r->clock.target_multi;
		if (want > (double)n)
			n = dpk_bench_round_ops((uint64_t)want, mult);
	}
	rc->batch = n;

	/* Measure until stopped. */
	t0 = dpk_tsc();
	now = t0;
	while (!dpk_bench_stopped(run)) {
		struct dpk_sample *s = rc->nsamples < cap ? &rc->samples[rc->nsamples] : NULL;
		struct dpk_sample scratch;
		uint64_t done = dpk_bench_time_batch(x, rc->role, n, overhead, s ? s : &scratch,
		                                     m->check_ctx, &ticks);
		now = dpk_tsc();
		rc->ops += done;
		if (done < n)
			break; /* stopped inside the batch: the partial sample is dropped */
		if (s)
			rc->nsamples++;
	}
	rc->window = now - t0;
	return 0;
}

static_assert(sizeof(atomic_uint) == 4, "a futex word is 32 bits");

/*
 * Sleep @p s seconds, returning early once a role has failed (dpk_bench_fail() raises the
 * stop flag and wakes this futex word). One wait for the whole budget: the main lcore
 * shares a CPU with a worker in the default set (and in the core placement, with a
 * measured role), and a wake-up every few milliseconds there would preempt that role and
 * cost it a sample each time. The deadline is absolute (FUTEX_WAIT_BITSET on
 * CLOCK_MONOTONIC), so a wait taken again after EINTR or a spurious return keeps it.
 */
static void sleep_unless_stopped(struct dpk_bench_ctl *x, double s)
{
	struct timespec end;

	if (s <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)s;
	end.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	/* W2: pairs with W1 in dpk_bench_fail(); relaxed for the reasons given there. */
	while (!dpk_bench_stopped(&x->run) &&
	       !atomic_load_explicit(&x->woken, memory_order_relaxed)) {
		if (syscall(SYS_futex, &x->woken, FUTEX_WAIT_BITSET_PRIVATE, 0u, &end, NULL,
		            FUTEX_BITSET_MATCH_ANY) == 0 ||
		    errno == EINTR || errno == EAGAIN) /* woken, or the word is 1 already */
			continue;
		/* ETIMEDOUT: the budget is spent. Anything else (no futex here): the budget is
		 * slept out whole, without the early return. */
		if (errno != ETIMEDOUT)
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
				;
		return;
	}
}

static void run_multi(struct dpk_bench_runner *r, struct dpk_bench_ctl *x, const unsigned *lcores,
                      unsigned nroles, struct dpk_bench_result *res)
{
	const struct dpk_bench_case *c = x->run.c;
	struct multi *m = calloc(1, sizeof(*m));
	size_t cap = r->opt.max_samples;
	unsigned spins = 0, launched = 0;
	uint64_t counted = c->counted_roles;
	size_t total_kept = 0;

	if (!m) {
		dpk_bench_result_fail(res, "out of memory");
		return;
	}
	m->x = x;
	m->r = r;
	/* Two lcores sharing a CPU preempt each other by design; counting those switches
	 * as spoiled samples would reject every sample. */
	m->check_ctx = x->run.placement != DPK_PLACE_OVERSUB;
	atomic_init(&m->ready, 0);
	atomic_init(&m->phase, PHASE_START);
	res->nroles = nroles;
	for (unsigned i = 0; i < nroles; i++) {
		m->role[i].m = m;
		m->role[i].role = i;
		m->role[i].samples = calloc(cap ? cap : 1, sizeof(struct dpk_sample));
		if (!m->role[i].samples) {
			dpk_bench_result_fail(res, "out of memory");
			goto out_free;
		}
	}
	for (unsigned i = 0; i < nroles; i++) {
		int rc = dpk_lcore_launch(lcores[i], role_main, &m->role[i]);
		if (rc) {
			dpk_bench_result_fail(res, "launch on lcore %u: %s", lcores[i],
			                      strerror(-rc));
			dpk_bench_ctl_stop(x);
			atomic_store_explicit(&m->phase, PHASE_WARM, memory_order_release);
			goto out_wait;
		}
		launched++;
	}
	/* A1's pair: every role has arrived (acquire), then open the start gate (release). */
	while (atomic_load_explicit(&m->ready, memory_order_acquire) < nroles)
		spin_wait_relax(&spins);
	atomic_store_explicit(&m->phase, PHASE_WARM, memory_order_release);
	sleep_unless_stopped(x, r->opt.warmup_s);
	atomic_store_explicit(&m->phase, PHASE_MEASURE, memory_order_relaxed);
	sleep_unless_stopped(x, r->opt.time_s);
	dpk_bench_ctl_stop(x);

out_wait:
	for (unsigned i = 0; i < launched; i++)
		dpk_lcore_wait(lcores[i]);
	if (res->status != DPK_RESULT_OK)
		goto out_free;

	/* Per-role figures, then the counted roles' samples pooled for the case's row. */
	{
		size_t pooled_n = 0;
		struct dpk_sample *pooled;
		uint64_t batches[DPK_BENCH_ROLES_MAX];
		unsigned nb = 0;

		for (unsigned i = 0; i < nroles; i++)
			if (!counted || (counted >> i) & 1)
				pooled_n += m->role[i].nsamples;
		pooled = calloc(pooled_n ? pooled_n : 1, sizeof(*pooled));
		if (!pooled) {
			dpk_bench_result_fail(res, "out of memory");
			goto out_free;
		}
		pooled_n = 0;
		res->mops = 0;
		for (unsigned i = 0; i < nroles; i++) {
			struct role_ctx *rc = &m->role[i];
			struct dpk_bench_role_result *rr = &res->role[i];
			size_t rej[DPK_REJECT_COUNT] = {0};
			bool is_counted = !counted || (counted >> i) & 1;

			rr->lcore = lcores[i];
			rr->cpu = dpk_lcore_cpu(lcores[i]);
			rr->name = i < 2 && c->role_names[i] ? c->role_names[i] : NULL;
			rr->counted = is_counted;
			rr->ops = rc->ops;
			rr->window_s = (double)rc->window / (double)r->clock.hz;
			rr->mops = rr->window_s > 0 ? (double)rc->ops / rr->window_s / 1e6 : 0;
			rr->batch_ops = rc->batch;
			rr->samples = rc->nsamples;
			if (is_counted) {
				memcpy(pooled + pooled_n, rc->samples,
				       rc->nsamples * sizeof(*pooled));
				pooled_n += rc->nsamples;
				res->mops += rr->mops;
				batches[nb++] = rc->batch;
			}
			if (!dpk_bench_summarise(rc->samples, rc->nsamples, m->check_ctx, 0, NULL,
			                         NULL, rej, &rr->ticks, NULL, NULL))
				dpk_bench_result_fail(res, "out of memory");
			rr->kept = rej[0];
		}
		res->samples = pooled_n;
		if (!dpk_bench_summarise(pooled, pooled_n, m->check_ctx, 0, NULL, NULL, res->reject,
		                         &res->ticks, r->opt.raw ? &res->raw : NULL, &res->nraw))
			dpk_bench_result_fail(res, "out of memory");
		total_kept = res->reject[0];
		for (unsigned i = 1; i < nb; i++)
			for (unsigned j = i; j > 0 && batches[j - 1] > batches[j]; j--) {
				uint64_t t = batches[j];
				batches[j] = batches[j - 1];
				batches[j - 1] = t;
			}
		res->batch_ops = nb ? batches[nb / 2] : 0;
		free(pooled);
	}
	if (total_kept == 0 && !dpk_bench_ctl_failed(x)) {
		res->status = DPK_RESULT_EMPTY;
		snprintf(res->reason, sizeof(res->reason),
		         "no complete sample within %.3f s (a pair sharing one CPU may only move "
		         "at context switches)",
		         r->opt.time_s);
	}

out_free:
	for (unsigned i = 0; i < nroles; i++)
		free(m->role[i].samples);
	free(m);
}

void dpk_bench_run_case(struct dpk_bench_runner *r, const struct dpk_bench_suite *s,
                        const struct dpk_bench_case *c, enum dpk_placement p, unsigned repeat,
                        struct dpk_bench_result *res)
{
	unsigned lcores[DPK_BENCH_ROLES_MAX], nroles = 0;
	uint64_t t0 = dpk_tsc();
	struct dpk_bench_ctl *x;
	char why[160];

	/* A single-lcore case alone runs as a suite of one, in rounds like any other. */
	if (c->kind == DPK_BENCH_SINGLE) {
		dpk_bench_run_rounds(r, &s, &c, 1, repeat, res, NULL, NULL);
		return;
	}
	dpk_bench_result_init(res, s, c, p, repeat);
	if (c->kind == DPK_BENCH_PAIR) {
		if (!dpk_bench_placement_available(r, p, &lcores[0], &lcores[1], why,
		                                   sizeof(why))) {
			res->status = DPK_RESULT_SKIPPED;
			snprintf(res->reason, sizeof(res->reason), "%s", why);
			return;
		}
		nroles = 2;
	} else {
		for (unsigned i = 0; i < r->nworkers && nroles < DPK_BENCH_ROLES_MAX; i++)
			if (r->all_member[i])
				lcores[nroles++] = r->workers[i];
		if (nroles == 0) {
			res->status = DPK_RESULT_SKIPPED;
			snprintf(res->reason, sizeof(res->reason), "no worker lcores");
			return;
		}
	}
	x = malloc(sizeof(*x));
	if (!x) {
		dpk_bench_result_fail(res, "out of memory");
		return;
	}
	dpk_bench_ctl_init(x, c, p, nroles);
	if (dpk_bench_ctl_setup(x, 0, res)) {
		run_multi(r, x, lcores, nroles, res);
		dpk_bench_ctl_teardown(x, res);
	}
	res->elapsed_s = (double)(dpk_tsc() - t0) / (double)r->clock.hz;
	free(x);
}
