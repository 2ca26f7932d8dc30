/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * batch.c - one timed batch and how its size is found: fenced counter reads around the
 * body, the stack moved to a chosen offset, the involuntary-switch count kept away from
 * short batches, calibration and the re-warm-up of a fresh set-up.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>

#include <dpk/cycles.h>

#include "engine_int.h"
#include "hotcode.h"

/* The page size that matters for the stack's offset, and the step from one batch's offset
 * to the next: 13 of the page's 256 16-byte places, so any 256 batches in a row take every
 * place once and any 20 in a row are spread over the whole page (see time_batch()). */
#define STACK_PAGE ((uintptr_t)4096)
#define STACK_STEP 208u

unsigned dpk_bench_stack_shift_of(unsigned i)
{
	return (unsigned)(((uintptr_t)i * STACK_STEP) % STACK_PAGE);
}

static struct dpk_bench_switches ivcsw_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return (struct dpk_bench_switches){0, false};
	return (struct dpk_bench_switches){(uint32_t)ru.ru_nivcsw, true};
}

struct dpk_bench_switches dpk_bench_switches_now(const struct dpk_bench_runner *r)
{
	return r->switches ? (struct dpk_bench_switches){r->switches(), true} : ivcsw_now();
}

uint32_t dpk_bench_switches_since(const struct dpk_bench_runner *r,
                                  struct dpk_bench_switches before)
{
	struct dpk_bench_switches now = dpk_bench_switches_now(r);

	return before.ok && now.ok ? now.n - before.n : 0;
}

/* Whether case @p c on placement @p p shares its batches out over its code layouts: one
 * lcore, and copies to share them with. Multi-lcore roles run the plain body. */
static bool layouts_apply(const struct dpk_bench_case *c, enum dpk_placement p)
{
	return p == DPK_PLACE_SINGLE && c->layouts[0];
}

unsigned dpk_bench_code_layouts(const struct dpk_bench_case *c, enum dpk_placement p)
{
	unsigned distinct = 0;

	if (!layouts_apply(c, p))
		return 1;
	for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++) {
		unsigned j = 0;

		while (j < k &&
		       dpk_bench_code_offset(c->layouts[j]) != dpk_bench_code_offset(c->layouts[k]))
			j++;
		distinct += j == k;
	}
	return distinct;
}

/* What @p run's batches come in multiples of: the case's ops_multiple, times the number of
 * layouts where batches share out over them, so that every copy gets the same share and
 * the mix of layouts in a sample does not move with the batch size. */
unsigned dpk_bench_batch_multiple(const struct dpk_bench_ctl *x)
{
	const unsigned m = x->run.c->ops_multiple ? x->run.c->ops_multiple : 1;

	return layouts_apply(x->run.c, x->run.placement) ? m * DPK_BENCH_LAYOUTS : m;
}

/*
 * Run @p n operations of @p role: through the case's body, or, where batches share out
 * over the code layouts, n / DPK_BENCH_LAYOUTS in each copy in turn (n is a multiple of
 * batch_multiple()). A copy that comes back short has failed the case or been stopped;
 * the later copies must not run on what it left, so the batch ends there.
 */
static uint64_t run_body(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	const struct dpk_bench_case *c = run->c;
	uint64_t share, done = 0;

	if (!layouts_apply(c, run->placement))
		return c->body(run, role, n);
	assert(n % dpk_bench_batch_multiple(dpk_bench_ctl_of(run)) == 0);
	share = n / DPK_BENCH_LAYOUTS;
	for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++) {
		const uint64_t got = c->layouts[k](run, role, share);

		done += got;
		if (got < share)
			break;
	}
	return done;
}

/* Time one batch of @p n operations of @p role. Returns completed operations. Called
 * through dpk_bench_time_batch(), which fixes where its stack lies. A body that claims
 * more than it was asked is broken, and so is the case: it fails, and the batch counts
 * as none. */
__attribute__((noinline)) DPK_BENCH_HOT_CODE static uint64_t
time_batch_here(struct dpk_bench_ctl *x, unsigned role, uint64_t n, double overhead,
                struct dpk_sample *s, bool want_ctx, double *ticks_out)
{
	uint32_t cs0 = want_ctx ? ivcsw_now().n : 0;
	unsigned c0 = (unsigned)sched_getcpu(), c1 = 0;
	uint64_t t0 = dpk_tsc_begin();
	uint64_t done = run_body(&x->run, role, n);
	uint64_t t1 = dpk_tsc_end_cpu(&c1);
	double ticks = (double)(t1 - t0) - overhead;

	if (done > n) {
		dpk_bench_fail(&x->run, "the body returned %llu operations for a batch of %llu",
		               (unsigned long long)done, (unsigned long long)n);
		done = 0;
	}
	if (ticks < 0)
		ticks = 0;
	*ticks_out = ticks;
	if (s) {
		s->ticks_per_op = done ? ticks / (double)done : 0;
		s->cpu_begin = c0;
		s->cpu_end = c1;
		s->ivcsw = want_ctx ? ivcsw_now().n - cs0 : 0;
		s->reject = DPK_REJECT_NONE;
		s->wit = 0;
		s->clk = 0;
	}
	return done;
}

/*
 * time_batch_here() with the stack at a chosen offset within its page, whatever the
 * caller's depth: x->stack_shift bytes further below a page boundary than a distance this
 * build fixes (the two functions' frames). A body's stack slots (spilled registers,
 * locals) meet the lines of the case's arena at an offset that decides whether loads and
 * stores whose addresses agree in their low 12 bits stall each other (4K aliasing), and
 * ASLR starts the stack at a random offset within its page (in 16-byte steps); any one
 * offset is luck, good for one body and bad for another (docs/method.md, "Stack offset").
 * So single-lcore callers move the offset from batch to batch (dpk_bench_stack_shift_of()):
 * a round of 256 batches or more mixes all the stack offsets in equal parts, and a figure
 * is the case's cost over stack offsets. Calibration, warm-up and the roles of multi-lcore
 * cases run at shift 0 (the roles share one run, and a shift set by one would race with the
 * others' reads). The padding is taken before the clock starts. ASan builds align their
 * allocas to 32 bytes, so there the offset can move by 16 bytes with ASLR; those builds are
 * not for timing.
 */
__attribute__((noinline)) DPK_BENCH_HOT_CODE uint64_t
dpk_bench_time_batch(struct dpk_bench_ctl *x, unsigned role, uint64_t n, double overhead,
                     struct dpk_sample *s, bool want_ctx, double *ticks_out)
{
	const uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
	char *pad = __builtin_alloca((frame & (STACK_PAGE - 1)) + 16 + x->stack_shift);
	uint64_t done;

	__asm__ volatile("" : : "r"(pad) : "memory"); /* the padding is used... */
	done = time_batch_here(x, role, n, overhead, s, want_ctx, ticks_out);
	__asm__ volatile("" : : "r"(pad) : "memory"); /* ...and lives across the call */
	return done;
}

/*
 * One-lcore batches are a few microseconds, and a getrusage() call just before one leaves
 * its mark on the batch's first operations: the kernel's entry and exit disturb the branch
 * predictors and the return stack (docs/method.md, "Switch counts"). So one-lcore batches
 * are counted over a stretch (a slice), the switches go to the
 * stretch's longest batches (dpk_stats_give_switches()), and this untimed batch takes the
 * reading's after-effects.
 */
bool dpk_bench_settle(struct dpk_bench_ctl *x, uint64_t n)
{
	double ticks;

	return dpk_bench_time_batch(x, 0, n, 0, NULL, false, &ticks) == n &&
	       !dpk_bench_ctl_failed(x);
}

uint64_t dpk_bench_round_ops(uint64_t n, unsigned mult)
{
	if (mult <= 1)
		return n ? n : 1;
	n = (n + mult - 1) / mult * mult;
	return n ? n : mult;
}

/*
 * Size a single-lcore batch: double until one batch reaches the sample target (bounded by
 * the warm-up plus the budget), warm up at that size, then re-size from the warm-up's
 * median batch. Returns false when the case failed or stopped meanwhile.
 */
bool dpk_bench_calibrate(const struct dpk_bench_runner *r, struct dpk_bench_ctl *x, uint64_t *n_out)
{
	const double hz = (double)r->clock.hz;
	const double target = r->clock.target_single, overhead = r->clock.read_cost;
	const uint64_t warm_ticks = (uint64_t)(r->opt.warmup_s * hz);
	const uint64_t budget = (uint64_t)(r->opt.time_s * hz);
	const unsigned mult = dpk_bench_batch_multiple(x);
	uint64_t n = dpk_bench_round_ops(1, mult), t_start = dpk_tsc();
	double ticks, wv[512];
	unsigned nw = 0;

	*n_out = n;
	for (;;) {
		uint64_t done = dpk_bench_time_batch(x, 0, n, overhead, NULL, false, &ticks);
		if (dpk_bench_ctl_failed(x) || done < n)
			return false;
		if (ticks >= target || dpk_tsc() - t_start > warm_ticks + budget)
			break;
		n = dpk_bench_round_ops(
		        ticks > target / 64 ? (uint64_t)((double)n * target / ticks * 1.1) : n * 2,
		        mult);
	}
	*n_out = n;
	uint64_t w0 = dpk_tsc();
	do {
		if (dpk_bench_time_batch(x, 0, n, overhead, NULL, false, &ticks) < n ||
		    dpk_bench_ctl_failed(x))
			return false;
		if (nw < 512)
			wv[nw++] = ticks;
	} while (dpk_tsc() - w0 < warm_ticks);
	dpk_stats_sort(wv, nw);
	if (nw && wv[nw / 2] > 0) {
		double scaled = (double)n * target / wv[nw / 2];
		if (scaled > (double)n)
			n = dpk_bench_round_ops((uint64_t)(scaled + 0.5), mult);
	}
	*n_out = n;
	return true;
}

/* Warm case @p run up again for @p warm ticks at batch size @p n: it starts from a fresh
 * set-up, and other cases evicted its code and branch history meanwhile. @p n may grow. */
bool dpk_bench_rewarm(const struct dpk_bench_runner *r, struct dpk_bench_ctl *x, uint64_t *n,
                      uint64_t warm)
{
	const double target = r->clock.target_single;
	const unsigned mult = dpk_bench_batch_multiple(x);
	uint64_t w0 = dpk_tsc();
	double t[DPK_BENCH_REWARM_KEPT], ticks;
	unsigned nt = 0;

	do {
		if (dpk_bench_time_batch(x, 0, *n, r->clock.read_cost, NULL, false, &ticks) < *n ||
		    dpk_bench_ctl_failed(x))
			return false;
		t[nt++ % DPK_BENCH_REWARM_KEPT] = ticks; /* the last ones, the warmest */
	} while (dpk_tsc() - w0 < warm);
	/* Batches sized while the machine ran slow (a busy host during the first slice)
	 * fall short of the sample target once it runs fast: the read cost and the counter's
	 * step would then weigh more than they should. Grow them back to the target; never
	 * shrink them, or a slow stretch would leave them short when it ends. */
	ticks = dpk_stats_median(t, nt < DPK_BENCH_REWARM_KEPT ? nt : DPK_BENCH_REWARM_KEPT);
	if (ticks > 0 && ticks < DPK_BENCH_REWARM_GROW_BELOW * target) {
		double grow = target / ticks;

		if (grow >
		    DPK_BENCH_REWARM_GROW_MAX) /* a bad reading must not make a slice endless */
			grow = DPK_BENCH_REWARM_GROW_MAX;
		*n = dpk_bench_round_ops((uint64_t)((double)*n * grow + 0.5), mult);
	}
	return true;
}
