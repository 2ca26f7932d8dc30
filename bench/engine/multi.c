/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * multi.c - one round (slice) of a multi-lcore case: the roles start on their lcores from a
 * barrier, roles 0 and 1 bounce a cache line of the harness's (the floor bracket), every
 * role warms up and measures until the main lcore raises the stop flag, roles 0 and 1
 * bounce the line again, and the main lcore joins them.
 *
 * Memory orders (labels of this file):
 *   A1  the start barrier: each role's release increment of ready pairs with the main
 *       lcore's acquire load of it, and the main lcore's release store of phase
 *       (PHASE_FLOOR) with each role's acquire load, so what setup() wrote is visible to
 *       every role before its first body call.
 *   F1  ping's release store of an odd count (or FLOOR_DONE) on a floor line; pairs with
 *       F2 in pong, which must see the count before answering it.
 *   F2  pong's acquire load of the line; pairs with F1.
 *   F3  pong's release store of the answer (count + 1); pairs with F4.
 *   F4  ping's acquire load waiting for the answer; pairs with F3. The line carries no
 *       other data; the pairs keep the bracket a hand-off of the kind a pair case makes.
 *       Ping and pong move from line to line at the same counts (trip_line()), and a count
 *       is sent on one line only, so each line's pairs are those of a single-line bracket.
 *   W2  the main lcore's relaxed futex wait on woken; pairs with W1 in run.c
 *       (dpk_bench_fail()), relaxed for the reasons given there.
 * The count of roles past the first bracket (floored), the later phases (PHASE_WARM,
 * PHASE_MEASURE) and the stop flag are relaxed: they carry no data, and the roles are
 * joined before anything they wrote (samples, floor timings) is read.
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

enum { PHASE_START, PHASE_FLOOR, PHASE_WARM, PHASE_MEASURE };

/* The value ping leaves on a floor line to end the bracket: never a count it sends. */
#define FLOOR_DONE UINT64_MAX

/* A cache line the two roles of a bracket bounce, alone on its line pair. */
struct floor_line {
	_Alignas(128) atomic_uint_fast64_t flag; /* odd: ping sent, even: pong answered */
	unsigned char pad[128 - sizeof(atomic_uint_fast64_t)];
};

/*
 * The lines a bracket takes in turn, a batch of DPK_BENCH_FLOOR_TRIPS round trips on each,
 * on the arena's harness page, whose frame moves from round to round as the case's do
 * (arena.c). A line's round trip depends on where its physical address is homed (which
 * slice of the last-level cache, how far across the die), and a line the process kept for
 * its whole run would give every round the same luck, and another run another: a floor is
 * the mean over lines of the round's frame.
 */
#define FLOOR_LINES 8
#define FLOOR_PAGE  4096u
static_assert(2 * FLOOR_LINES * sizeof(struct floor_line) <= FLOOR_PAGE, "one page holds both");

/* The line of bracket trip @p v (an odd count: 2 t + 1 for trip t). */
static struct floor_line *trip_line(struct floor_line *lines, uint64_t v)
{
	return &lines[((v - 1) / 2 / DPK_BENCH_FLOOR_TRIPS) % FLOOR_LINES];
}

struct slice;

struct slice_role {
	struct slice *sl;
	unsigned role;
	struct dpk_bench_mrole *mr; /* the case's state of this role across rounds */
};

/* What the roles of one slice share with the main lcore. */
struct slice {
	struct dpk_bench_ctl *x;
	const struct dpk_bench_runner *r;
	unsigned q;     /* the round */
	bool first;     /* the case's first round: a full warm-up, batch sizes learnt */
	bool floors;    /* roles 0 and 1 bracket the round with the floor */
	bool check_ctx; /* count involuntary switches (not where roles share a CPU) */
	unsigned nroles;
	atomic_uint ready;       /* A1 */
	atomic_int phase;        /* A1 */
	atomic_uint floored;     /* futex word: roles past the first bracket */
	struct floor_line *line; /* FLOOR_LINES per bracket, on the harness page; NULL: none */
	double floor[2];         /* ticks per round trip, before and after; 0: none */
	struct slice_role role[DPK_BENCH_ROLES_MAX];
};

static_assert(sizeof(atomic_uint) == 4, "a futex word is 32 bits");

static void spin_wait_relax(unsigned *spins)
{
	/* Yield now and then: on an oversubscribed CPU the thread we wait for may need this
	 * CPU to make progress. */
	if (++*spins % 256 == 0)
		sched_yield();
	else
		dpk_pause();
}

/* One round trip of ping's on its line of @p lines: send count @p v, wait for its answer. */
static inline void floor_trip(struct floor_line *lines, uint64_t v)
{
	struct floor_line *l = trip_line(lines, v);

	atomic_store_explicit(&l->flag, v, memory_order_release);             /* F1 */
	while (atomic_load_explicit(&l->flag, memory_order_acquire) != v + 1) /* F4 */
		dpk_pause();
}

/* The mean of the middle of @p v (sorted in place): a tenth left out at each end. */
static double trimmed_mean(double *v, unsigned n)
{
	const unsigned cut = n / 10;
	double sum = 0;

	dpk_stats_sort(v, n);
	for (unsigned i = cut; i < n - cut; i++)
		sum += v[i];
	return n > 2 * cut ? sum / (double)(n - 2 * cut) : 0;
}

/*
 * Ping's side of a bracket: DPK_BENCH_FLOOR_SKIP untimed round trips, then batches of
 * DPK_BENCH_FLOOR_TRIPS, up to DPK_BENCH_FLOOR_BATCHES of them or DPK_BENCH_FLOOR_MAX_S;
 * the trimmed mean of the batches' ticks per round trip. Single round trips fall in
 * several modes far apart, so a median of few of them jumps between modes where a mean of
 * many does not (docs/method.md, "The floor"). The time limit is checked between round
 * trips only, so none is in flight when FLOOR_DONE goes out.
 */
static double floor_ping(struct floor_line *l, const struct dpk_bench_runner *r)
{
	const uint64_t limit = (uint64_t)(DPK_BENCH_FLOOR_MAX_S * (double)r->clock.hz);
	double t[DPK_BENCH_FLOOR_BATCHES];
	uint64_t v = 1, start = dpk_tsc();
	unsigned nb = 0;

	for (unsigned i = 0; i < DPK_BENCH_FLOOR_SKIP && dpk_tsc() - start < limit; i++, v += 2)
		floor_trip(l, v);
	while (nb < DPK_BENCH_FLOOR_BATCHES && dpk_tsc() - start < limit) {
		uint64_t t0 = dpk_tsc_begin();

		for (unsigned i = 0; i < DPK_BENCH_FLOOR_TRIPS; i++, v += 2)
			floor_trip(l, v);
		t[nb++] =
		        ((double)(dpk_tsc_end() - t0) - r->clock.read_cost) / DPK_BENCH_FLOOR_TRIPS;
	}
	/* On the line pong watches for the next count. */
	atomic_store_explicit(&trip_line(l, v)->flag, FLOOR_DONE, memory_order_release); /* F1 */
	return nb ? trimmed_mean(t, nb) : 0;
}

/* Pong's side: answer every count, each on its line of @p lines, until FLOOR_DONE. */
static void floor_pong(struct floor_line *lines)
{
	uint64_t want = 1;

	for (;;) {
		struct floor_line *l = trip_line(lines, want);
		uint64_t v = atomic_load_explicit(&l->flag, memory_order_acquire); /* F2 */

		if (v == FLOOR_DONE)
			return;
		if (v != want) {
			dpk_pause();
			continue;
		}
		atomic_store_explicit(&l->flag, v + 1, memory_order_release); /* F3 */
		want += 2;
	}
}

static void bracket(struct slice_role *sr, unsigned which)
{
	struct slice *sl = sr->sl;

	if (!sl->floors || sr->role > 1)
		return;
	if (sr->role == 0)
		sl->floor[which] = floor_ping(&sl->line[which * FLOOR_LINES], sl->r);
	else
		floor_pong(&sl->line[which * FLOOR_LINES]);
}

/* The first round's warm-up: batches start at the smallest size and double while short,
 * so a case that moves only at context switches still completes batches; the rate they
 * show sizes the batches to the multi-lcore sample target. */
static uint64_t learn_batch(struct slice_role *sr, unsigned mult)
{
	struct slice *sl = sr->sl;
	const struct dpk_bench_runner *r = sl->r;
	uint64_t n = dpk_bench_round_ops(1, mult), ops = 0;
	double ticks, sum = 0;

	while (atomic_load_explicit(&sl->phase, memory_order_relaxed) == PHASE_WARM &&
	       !dpk_bench_stopped(&sl->x->run)) {
		uint64_t done = dpk_bench_time_batch(sl->x, sr->role, n, r->clock.read_cost, NULL,
		                                     false, &ticks);
		ops += done;
		sum += ticks;
		if (done < n)
			break;
		if (ticks < r->clock.target_multi / 4 && n < (UINT64_C(1) << 40))
			n = dpk_bench_round_ops(n * 2, mult);
	}
	if (ops > 0 && sum > 0) {
		double want = (double)ops / sum * r->clock.target_multi;

		if (want > (double)n)
			n = dpk_bench_round_ops((uint64_t)want, mult);
	}
	return n;
}

/* A later round's warm-up: batches of the size the case has. */
static void rewarm_batches(struct slice_role *sr, uint64_t n)
{
	struct slice *sl = sr->sl;
	double ticks;

	while (atomic_load_explicit(&sl->phase, memory_order_relaxed) == PHASE_WARM &&
	       !dpk_bench_stopped(&sl->x->run))
		if (dpk_bench_time_batch(sl->x, sr->role, n, sl->r->clock.read_cost, NULL, false,
		                         &ticks) < n)
			break;
}

/* Measure until stopped: samples of round q, and the operations and window. */
static void measure(struct slice_role *sr)
{
	struct slice *sl = sr->sl;
	struct dpk_bench_mrole *mr = sr->mr;
	const uint64_t n = mr->batch;
	uint64_t t0 = dpk_tsc(), now = t0, ops = 0;
	double ticks;

	while (!dpk_bench_stopped(&sl->x->run)) {
		struct dpk_sample scratch, *s = mr->ns < mr->cap ? &mr->samples[mr->ns] : &scratch;
		const uint64_t begin = now;
		uint64_t done = dpk_bench_time_batch(sl->x, sr->role, n, sl->r->clock.read_cost, s,
		                                     sl->check_ctx, &ticks);

		now = dpk_tsc();
		ops += done;
		if (done < n)
			break; /* stopped inside the batch: the partial sample is dropped */
		s->round = (uint16_t)sl->q;
		if (s != &scratch) {
			/* The counter is one clock on every CPU (invariant TSC): the roles'
			 * spans compare, for the "alone" rule of multiset.c. */
			mr->span[2 * mr->ns] = begin;
			mr->span[2 * mr->ns + 1] = now;
			mr->ns++;
		}
	}
	mr->ops[sl->q] = ops;
	mr->window[sl->q] = now - t0;
}

static int role_main(void *arg)
{
	struct slice_role *sr = arg;
	struct slice *sl = sr->sl;
	const struct dpk_bench_case *c = sl->x->run.c;
	unsigned spins = 0, mult = c->ops_multiple ? c->ops_multiple : 1;

	atomic_fetch_add_explicit(&sl->ready, 1, memory_order_release);               /* A1 */
	while (atomic_load_explicit(&sl->phase, memory_order_acquire) == PHASE_START) /* A1 */
		spin_wait_relax(&spins);
	bracket(sr, 0);
	if (atomic_fetch_add_explicit(&sl->floored, 1, memory_order_relaxed) + 1 == sl->nroles)
		syscall(SYS_futex, &sl->floored, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	while (atomic_load_explicit(&sl->phase, memory_order_relaxed) == PHASE_FLOOR)
		spin_wait_relax(&spins);
	if (sl->first)
		sr->mr->batch = learn_batch(sr, mult);
	else
		rewarm_batches(sr, sr->mr->batch);
	measure(sr);
	bracket(sr, 1);
	return 0;
}

/* Wait until every role is past the first bracket, which ends within
 * DPK_BENCH_FLOOR_MAX_S of its start plus one round trip. */
static void wait_floored(struct slice *sl)
{
	unsigned v;

	while ((v = atomic_load_explicit(&sl->floored, memory_order_relaxed)) < sl->nroles) {
		struct timespec ts = {0, 1000000}; /* re-check now and then all the same */

		syscall(SYS_futex, &sl->floored, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
	}
}

/*
 * Sleep @p s seconds, returning early once a role has failed (dpk_bench_fail() raises the
 * stop flag and wakes this futex word). One wait for the whole span: the main lcore
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
		/* ETIMEDOUT: the time is spent. Anything else (no futex here): it is slept out
		 * whole, without the early return. */
		if (errno != ETIMEDOUT)
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
				;
		return;
	}
}

/* Launch every role; false (and the launched ones stopped and joined) when one fails. */
static bool launch(struct slice *sl, const unsigned *lcores, struct dpk_bench_result *res)
{
	for (unsigned i = 0; i < sl->nroles; i++) {
		int rc = dpk_lcore_launch(lcores[i], role_main, &sl->role[i]);

		if (rc == 0)
			continue;
		dpk_bench_result_fail(res, "launch on lcore %u: %s", lcores[i], strerror(-rc));
		dpk_bench_ctl_stop(sl->x);
		sl->floors = false;
		atomic_store_explicit(&sl->phase, PHASE_WARM, memory_order_release); /* A1 */
		for (unsigned j = 0; j < i; j++)
			dpk_lcore_wait(lcores[j]);
		return false;
	}
	return true;
}

/* Drive the phases of a launched slice and join its roles. */
static void drive(struct slice *sl, const unsigned *lcores, double warm_s, double slice_s)
{
	unsigned spins = 0;

	/* A1's pair: every role has arrived (acquire), then open the start gate (release). */
	while (atomic_load_explicit(&sl->ready, memory_order_acquire) < sl->nroles)
		spin_wait_relax(&spins);
	atomic_store_explicit(&sl->phase, PHASE_FLOOR, memory_order_release);
	wait_floored(sl);
	atomic_store_explicit(&sl->phase, PHASE_WARM, memory_order_relaxed);
	sleep_unless_stopped(sl->x, warm_s);
	atomic_store_explicit(&sl->phase, PHASE_MEASURE, memory_order_relaxed);
	sleep_unless_stopped(sl->x, slice_s);
	dpk_bench_ctl_stop(sl->x);
	for (unsigned i = 0; i < sl->nroles; i++)
		dpk_lcore_wait(lcores[i]);
}

bool dpk_bench_multi_slice(const struct dpk_bench_runner *r, struct dpk_bench_mcase *mc, unsigned q,
                           double warm_s, double slice_s, struct dpk_bench_round *out,
                           struct dpk_bench_result *res)
{
	struct dpk_bench_ctl *x = malloc(sizeof(*x));
	struct slice *sl = calloc(1, sizeof(*sl));
	bool ok = x && sl;

	if (!ok) {
		dpk_bench_result_fail(res, "out of memory");
		free(x);
		free(sl);
		return false;
	}
	dpk_bench_ctl_init(x, mc->c, mc->placement, mc->nroles);
	*sl = (struct slice){.x = x,
	                     .r = r,
	                     .q = q,
	                     .first = mc->slices == 0,
	                     .floors = mc->floors,
	                     .nroles = mc->nroles,
	                     .check_ctx = mc->placement != DPK_PLACE_OVERSUB};
	atomic_init(&sl->ready, 0);
	atomic_init(&sl->phase, PHASE_START);
	atomic_init(&sl->floored, 0);
	for (unsigned i = 0; i < mc->nroles; i++)
		sl->role[i] = (struct slice_role){.sl = sl, .role = i, .mr = &mc->role[i]};
	x->arena_round = q;
	ok = dpk_bench_ctl_setup(x, res);
	/* Every flag starts at 0, which no count is. */
	if (ok && sl->floors)
		sl->line = dpk_bench_arena_harness_page(x);
	for (unsigned i = 0; sl->line && i < 2 * FLOOR_LINES; i++)
		atomic_init(&sl->line[i].flag, 0);
	sl->floors = sl->line != NULL;
	if (ok && launch(sl, mc->lcores, res))
		drive(sl, mc->lcores, warm_s, slice_s);
	for (unsigned w = 0; r->floor_script && sl->floors && w < 2; w++)
		sl->floor[w] = r->floor_script(q, w);
	if (ok)
		ok = dpk_bench_ctl_teardown(x, res) && res->status == DPK_RESULT_OK;
	out->floor = sl->floor[0] > sl->floor[1] ? sl->floor[0] : sl->floor[1];
	mc->slices++;
	free(sl);
	free(x);
	return ok;
}

void dpk_bench_run_case(struct dpk_bench_runner *r, const struct dpk_bench_suite *s,
                        const struct dpk_bench_case *c, enum dpk_placement p, unsigned repeat,
                        struct dpk_bench_result *res)
{
	const struct dpk_bench_item it = {s, c, p};

	/* A case alone runs as a set of one, in rounds like any other. */
	if (c->kind == DPK_BENCH_SINGLE)
		dpk_bench_run_rounds(r, &s, &c, 1, repeat, res, NULL, NULL);
	else
		dpk_bench_run_multi_rounds(r, &it, 1, repeat, res, NULL, NULL);
}
