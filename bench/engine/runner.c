/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness engine: clock self-check, placements, and the timing method every suite
 * shares (batch sizing, warm-up, fenced samples, rejection, bounded multi-lcore runs).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <dpk/cycles.h>

#include "runner.h"
#include "coreclock.h"
#include "witness.h"

/* Samples are at least this many times the read cost and the tick step, so each of the
 * two stays under 1% of a sample. */
#define TARGET_FACTOR 100.0
/* ... and at least this long, so the per-sample bookkeeping around the window stays
 * small next to it. */
#define SINGLE_MIN_NS 2000.0
/* Multi-lcore samples are longer: a role's bookkeeping between batches (a getrusage
 * call, the sample store) stalls its partner, so it must be a small share of a batch. */
#define MULTI_MIN_NS 200000.0
/* A slice's warm-up judges the batch size by its last few batch timings, and grows
 * batches whose median falls below a share of the sample target. */
#define REWARM_KEPT       64u
#define REWARM_GROW_BELOW 0.9
#define REWARM_GROW_MAX   16.0 /* growth at one warm-up at most */

static const char *const unit_names[DPK_UNIT_COUNT] = {
        [DPK_UNIT_ELEMENT] = "per element",       [DPK_UNIT_CALL] = "per call",
        [DPK_UNIT_PACKET] = "per packet",         [DPK_UNIT_OBJECT] = "per object",
        [DPK_UNIT_ROUND_TRIP] = "per round trip", [DPK_UNIT_ITERATION] = "per iteration",
};

const char *dpk_bench_unit_name(enum dpk_bench_unit u)
{
	return (unsigned)u < DPK_UNIT_COUNT ? unit_names[u] : "per ?";
}

void dpk_bench_fail(struct dpk_bench_run *run, const char *fmt, ...)
{
	bool expected = false;

	/* The first failure claims the message; the CAS keeps a second writer out. */
	if (atomic_compare_exchange_strong_explicit(&run->failed, &expected, true,
	                                            memory_order_relaxed, memory_order_relaxed)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(run->fail_msg, sizeof(run->fail_msg), fmt, ap);
		va_end(ap);
		/* M1: pairs with M2 in fail_message(): the text is complete before it is read. */
		atomic_store_explicit(&run->fail_ready, true, memory_order_release);
	}
	atomic_store_explicit(&run->stop, true, memory_order_relaxed);
	/* W1: pairs with W2 in sleep_unless_stopped(), where the main lcore of a multi-lcore
	 * case sleeps out the budget on this word. Relaxed: the word carries no data (the
	 * message has M1/M2, and the roles are joined before anything is read), and the
	 * kernel compares the word under its own lock, so a wait that begins after this store
	 * sees 1 and returns, and one that began before it is woken by the call below. */
	atomic_store_explicit(&run->woken, 1, memory_order_relaxed);
	syscall(SYS_futex, &run->woken, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* The failure message, or a placeholder if its writer has not finished it yet (only
 * possible when a role is still running, which the callers rule out by joining). */
static const char *fail_message(struct dpk_bench_run *run)
{
	/* M2: pairs with M1 in dpk_bench_fail(). */
	if (atomic_load_explicit(&run->fail_ready, memory_order_acquire))
		return run->fail_msg;
	return "an invariant broke (message still being written)";
}

long dpk_bench_param(const struct dpk_bench_case *c, const char *name, long dflt)
{
	for (unsigned i = 0; i < DPK_BENCH_PARAMS_MAX && c->params[i].name; i++)
		if (strcmp(c->params[i].name, name) == 0)
			return c->params[i].value;
	return dflt;
}

char *dpk_bench_params_str(const struct dpk_bench_case *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < DPK_BENCH_PARAMS_MAX && c->params[i].name; i++) {
		int w = snprintf(buf + off, len - off, "%s%s=%ld", i ? " " : "", c->params[i].name,
		                 c->params[i].value);
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
	}
	return buf;
}

void dpk_bench_options_default(struct dpk_bench_options *o)
{
	memset(o, 0, sizeof(*o));
	o->time_s = 0.2;
	o->warmup_s = 0.03;
	o->repeat = 1;
	o->lcores = NULL;
	for (unsigned p = 0; p < DPK_PLACE_COUNT; p++)
		o->placement_on[p] = true;
	o->max_samples = 200000;
	o->rounds = 40;
	o->slow_limit = 0.05;
	o->witness_check_s = DPK_WITNESS_CHECK_S;
}

/* ---- the case arena ---------------------------------------------------------------- */

#define ARENA_BASE ((uintptr_t)0x5d0000000000ull)
#define ARENA_SIZE ((size_t)64 << 20)
#define ARENA_SLOT ((uintptr_t)1 << 32)

/* The page size that matters for the stack's offset, and the step from one batch's offset
 * to the next: 13 of the page's 256 16-byte places, so any 256 batches in a row take every
 * place once and any 20 in a row are spread over the whole page (see time_batch()). */
#define STACK_PAGE ((uintptr_t)4096)
#define STACK_STEP 208u

/* The stack offset of the @p i-th batch of a sequence. */
static unsigned stack_shift_of(unsigned i)
{
	return (unsigned)(((uintptr_t)i * STACK_STEP) % STACK_PAGE);
}

/* Sanitizer builds keep their own memory layout rules: no fixed address there (the build
 * sets DPK_BENCH_ARENA_FIXED to 0). */
#ifndef DPK_BENCH_ARENA_FIXED
#define DPK_BENCH_ARENA_FIXED 1
#endif

/*
 * Map the arena of interleave slot @p slot at its fixed address (anywhere if taken), in
 * 4 KB pages. The virtual layout is pinned, the physical one is not: which frames hold a
 * case's lines still decides which of them meet in the physically indexed caches, where a
 * neighbour's traffic (a host's other hyperthread shares them) evicts some lines and not
 * others. A one-lcore case run in rounds maps a fresh arena for every slice, and in 4 KB
 * pages each slice's lines land in frames of their own, so a run's figure averages over
 * many physical layouts. A transparent huge page (on by default on some systems, for every
 * mapping as large and aligned as this one) gives a slice one 2 MB frame, most often the
 * one the slice before it freed, and a whole run then keeps one layout. A kernel without
 * transparent huge pages refuses the advice, which is then moot.
 */
static void arena_map(struct dpk_bench_run *run, unsigned slot)
{
	void *want = DPK_BENCH_ARENA_FIXED ? (void *)(ARENA_BASE + slot * ARENA_SLOT) : NULL;
	void *p = mmap(want, ARENA_SIZE, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | (want ? MAP_FIXED_NOREPLACE : 0), -1, 0);

	if (p == MAP_FAILED)
		p = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		         0);
	if (p != MAP_FAILED)
		(void)madvise(p, ARENA_SIZE, MADV_NOHUGEPAGE);
	run->arena = p == MAP_FAILED ? NULL : p;
	run->arena_size = run->arena ? ARENA_SIZE : 0;
	run->arena_used = 0;
	run->arena_pinned = want && p == want;
}

static void arena_unmap(struct dpk_bench_run *run)
{
	if (run->arena)
		munmap(run->arena, run->arena_size);
	run->arena = NULL;
}

void *dpk_bench_alloc(struct dpk_bench_run *run, size_t size, size_t align)
{
	size_t off;

	if (align < 64)
		align = 64;
	if (!run->arena || (align & (align - 1)))
		return NULL;
	off = (run->arena_used + align - 1) & ~(align - 1);
	if (off > run->arena_size || size > run->arena_size - off)
		return NULL;
	run->arena_used = off + size;
	return run->arena + off; /* fresh anonymous pages are zero */
}

/* ---- clock ---------------------------------------------------------------------- */

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/*
 * The mean of the middle half of @p v (sorted in place). A chain timing comes in the
 * counter's steps (24 ticks on the development VM, 4% of a chain), so two chains' medians
 * can differ by a step either way; the mean of many timings taken at every phase of the
 * step resolves finer, and leaving out each quarter at the ends keeps interrupts out.
 */
static double middle_mean(double *v, size_t n)
{
	double sum = 0;
	size_t a = n / 4, b = n - n / 4;

	dpk_stats_sort(v, n);
	for (size_t i = a; i < b; i++)
		sum += v[i];
	return b > a ? sum / (double)(b - a) : NAN;
}

void dpk_bench_counter_resolution(const uint64_t *reads, size_t n, uint64_t *gcd,
                                  uint64_t *min_delta, size_t *bumps)
{
	enum { PROBE = 256 };
	double probe[PROBE];
	uint64_t g = 0, mind = UINT64_MAX, floor_change = 0, last;
	size_t np = 0, nb = 0;

	/* A typical change first: the median of the first few hundred, those of 1 left out, for
	 * a step never is 1 on a counter with bumps, which could be most reads of a fast loop. */
	for (size_t i = 1; i < n && i <= PROBE; i++)
		if (reads[i] - reads[i - 1] > 1)
			probe[np++] = (double)(reads[i] - reads[i - 1]);
	if (np)
		floor_change = (uint64_t)dpk_stats_select(probe, np, np / 2) / 4;

	/* A counter that moves in steps but must never read the same twice (AMD's, and a KVM
	 * guest's on it: steps of 26 ticks, 2.6 GHz counted at 100 MHz) returns one more than
	 * the last read when a read falls in the same step; on the development VM of 2026-12-01
	 * about one change in twenty was such a 1. Such a read is a bump, not a step: skipped,
	 * and the next change taken from the last read that was on a step. A change under a
	 * quarter of the median is a bump. */
	last = n ? reads[0] : 0;
	for (size_t i = 1; i < n; i++) {
		uint64_t d = reads[i] - last;

		if (d == 0)
			continue;
		if (d < floor_change) {
			nb++;
			continue;
		}
		last = reads[i];
		g = gcd64(g, d);
		if (d < mind)
			mind = d;
	}
	*gcd = g ? g : 1;
	*min_delta = mind == UINT64_MAX ? 0 : mind;
	*bumps = nb;
}

void dpk_bench_clock_targets(struct dpk_bench_clock *k)
{
	const double ns_per_tick = 1e9 / (double)k->hz;
	/* The counter's resolution: a counter scaled from a coarser one (a KVM guest's: changes
	 * of 24 and 25 ticks on the development VM of 2026-11-30) has changes whose GCD is 1 while
	 * none is under the smallest, and where a read takes longer than a step, two reads resolve
	 * no finer. */
	const double step = (double)(k->min_delta > k->granularity ? k->min_delta : k->granularity);

	k->target_single = TARGET_FACTOR * (k->read_cost > step ? k->read_cost : step);
	if (k->target_single < SINGLE_MIN_NS / ns_per_tick)
		k->target_single = SINGLE_MIN_NS / ns_per_tick;
	k->target_multi = k->target_single;
	if (k->target_multi < MULTI_MIN_NS / ns_per_tick)
		k->target_multi = MULTI_MIN_NS / ns_per_tick;
}

void dpk_bench_clock_check(struct dpk_bench_clock *k, double witness_s)
{
	enum { N = 20001, RES_READS = 100000 };
	static double cost[N];
	static uint64_t res_reads[RES_READS];

	memset(k, 0, sizeof(*k));
	k->hz = dpk_tsc_hz();
	k->source = dpk_tsc_source_name(dpk_tsc_hz_source());
	k->hz_check = (double)dpk_tsc_calibrate(20);

	/* Cost of the window itself: an empty begin/end pair. */
	for (unsigned i = 0; i < N; i++) {
		uint64_t a = dpk_tsc_begin();
		uint64_t b = dpk_tsc_end();
		cost[i] = (double)(b - a);
	}
	dpk_stats_sort(cost, N);
	k->read_cost = cost[N / 2];
	k->read_cost_min = cost[0];

	/* The counter's resolution, from back-to-back reads (dpk_bench_counter_resolution()). */
	for (unsigned i = 0; i < RES_READS; i++)
		res_reads[i] = dpk_tsc();
	dpk_bench_counter_resolution(res_reads, RES_READS, &k->granularity, &k->min_delta,
	                             &k->bumps);

	dpk_bench_clock_targets(k);

	/* The core-clock chain's multiplies, judged against a chain of adds (coreclock.h).
	 * Taken in turn, so that a change of clock meets both chains alike. A neighbour that
	 * slows one chain's timings more than the other's can move one check by a few percent,
	 * so a check that fails is taken again, up to DPK_CORECLOCK_CHECKS times: a core whose
	 * multiply is not 3 cycles fails every one. */
	double mul[DPK_CORECLOCK_CHECK_TIMINGS], add[DPK_CORECLOCK_CHECK_TIMINGS];

	for (unsigned c = 0; c < DPK_CORECLOCK_CHECKS && !k->cycles_on; c++) {
		for (unsigned i = 0; i < DPK_CORECLOCK_CHECK_TIMINGS; i++) {
			mul[i] = dpk_bench_coreclock_timing();
			add[i] = dpk_bench_coreclock_add_timing();
		}
		k->cycles_on =
		        dpk_bench_coreclock_judge(middle_mean(mul, DPK_CORECLOCK_CHECK_TIMINGS),
		                                  middle_mean(add, DPK_CORECLOCK_CHECK_TIMINGS),
		                                  k->read_cost, &k->mul_cycles);
	}

	/* The witness's readings at the clock check: their fastest stands for full speed in a
	 * run that has no readings of its own, or whose own are slow by it (witness.h). */
	k->witness = INFINITY;
	const uint64_t t0 = dpk_tsc(),
	               span = (uint64_t)((witness_s > 0 ? witness_s : 0) * (double)k->hz);
	k->witness_readings = 0;
	while (k->witness_readings < DPK_WITNESS_CHECK_READINGS || dpk_tsc() - t0 < span) {
		double w = dpk_bench_witness();
		if (w < k->witness)
			k->witness = w;
		k->witness_readings++;
	}
	k->witness_s = (double)(dpk_tsc() - t0) / (double)k->hz;
}

/* ---- lcores and placements ------------------------------------------------------ */

/*
 * The CPUs a default lcore set may use: the online ones this process may run on. A shell's
 * taskset or a container's cpuset narrows the affinity mask, and the user meant it: DPDK's
 * EAL takes its default cores from the same mask. Pinning may widen the mask under
 * taskset, which would then move the run onto CPUs the user kept it off; under a cpuset it
 * fails, and the run with it. A topology read from another tree (DPK_SYSFS_ROOT) describes
 * another machine, whose CPUs this process's mask says nothing about: there the online
 * CPUs stand.
 */
static void default_cpus(const struct dpk_topo *t, struct dpk_cpuset *out)
{
	const struct dpk_cpuset *on = dpk_topo_online(t);
	const char *root = dpk_topo_root(t);
	/* Sized for DPK_CPU_MAX: a fixed cpu_set_t holds 1024 CPUs, and the call fails
	 * outright on a kernel built for more. */
	size_t size = CPU_ALLOC_SIZE(DPK_CPU_MAX);
	cpu_set_t *mask = CPU_ALLOC(DPK_CPU_MAX);

	*out = *on;
	if (!mask)
		return;
	if ((strcmp(root, "/sys") == 0 || strcmp(root, "/sys/") == 0) &&
	    sched_getaffinity(0, size, mask) == 0) {
		for (unsigned c = 0; c < DPK_CPU_MAX; c++)
			if (!CPU_ISSET_S(c, size, mask))
				dpk_cpuset_clear(out, c);
		if (dpk_cpuset_first(out) >= DPK_CPU_MAX) /* no online CPU in the mask */
			*out = *on;
	}
	CPU_FREE(mask);
}

int dpk_bench_default_spec(const struct dpk_cpuset *cpus, char *buf, size_t len)
{
	unsigned cpu, first = dpk_cpuset_first(cpus), id = 0;
	size_t off = 0;
	int n;

	if (first >= DPK_CPU_MAX)
		return -ENODEV;
	/* main on the first CPU, a worker per CPU, one extra worker on the first CPU */
	n = snprintf(buf, len, "%u@%u", id++, first);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	off = (size_t)n;
	DPK_CPUSET_FOREACH(cpu, cpus)
	{
		if (id >= DPK_LCORE_MAX - 1)
			break;
		n = snprintf(buf + off, len - off, ",%u@%u", id++, cpu);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	n = snprintf(buf + off, len - off, ",%u@%u", id, first);
	if (n < 0 || (size_t)n >= len - off)
		return -ENOSPC;
	return 0;
}

int dpk_bench_lcore_spec(const char *spec, struct dpk_lcore_spec *out)
{
	const struct dpk_topo *t = dpk_topo_system();
	char buf[4096];
	int rc;

	if (!spec) {
		struct dpk_cpuset cpus;

		if (!t)
			return -ENODEV;
		default_cpus(t, &cpus);
		rc = dpk_bench_default_spec(&cpus, buf, sizeof(buf));
		if (rc)
			return rc;
		spec = buf;
	}
	rc = dpk_lcore_spec_parse(spec, out);
	if (rc)
		return rc;
	if (out->count < 1)
		return -EINVAL;
	return dpk_lcore_spec_check(out, t);
}

int dpk_bench_runner_init(struct dpk_bench_runner *r, const struct dpk_bench_options *o)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->opt = *o;
	rc = dpk_bench_lcore_spec(o->lcores, &r->spec);
	if (rc)
		return rc;
	rc = dpk_lcore_init_spec(&r->spec);
	if (rc)
		return rc;
	r->main_lcore = dpk_lcore_main();
	dpk_cpuset_zero(&r->cpus_used);
	for (unsigned i = 0; i < r->spec.count; i++) {
		const struct dpk_cpuset *cs = &r->spec.cpus[i];
		unsigned cpu;

		DPK_CPUSET_FOREACH(cpu, cs)
		dpk_cpuset_set(&r->cpus_used, cpu);
		if (r->spec.ids[i] == r->main_lcore)
			continue;
		unsigned w = r->nworkers++;
		r->workers[w] = r->spec.ids[i];
		r->worker_cpu[w] = dpk_cpuset_count(cs) == 1 ? dpk_cpuset_first(cs) : DPK_CPU_MAX;
		/* "all" takes one worker per distinct CPU set, so the extra oversub worker of
		 * the default spec does not turn "all" into an oversubscribed run. */
		r->all_member[w] = true;
		for (unsigned j = 0; j < w; j++)
			if (r->all_member[j]) {
				struct dpk_cpuset other;
				dpk_lcore_cpus(r->workers[j], &other);
				if (dpk_cpuset_equal(&other, cs))
					r->all_member[w] = false;
			}
	}
	dpk_bench_clock_check(&r->clock, r->opt.witness_check_s);
	r->witness.best = r->witness.check = r->clock.witness;
	r->witness_time = dpk_bench_witness_timing;
	return 0;
}

void dpk_bench_runner_fini(struct dpk_bench_runner *r)
{
	dpk_lcore_fini();
	r->nworkers = 0;
	free(r->witness.v);
	memset(&r->witness, 0, sizeof(r->witness));
}

static bool machine_has_smt(const struct dpk_topo *t)
{
	const struct dpk_cpuset *on;
	struct dpk_cpu_info info;
	unsigned cpu;

	if (!t)
		return false;
	on = dpk_topo_online(t);
	DPK_CPUSET_FOREACH(cpu, on)
	if (dpk_topo_cpu(t, cpu, &info) == 0 && dpk_cpuset_count(&info.siblings) > 1)
		return true;
	return false;
}

bool dpk_bench_placement_available(const struct dpk_bench_runner *r, enum dpk_placement p,
                                   unsigned *a, unsigned *b, char *why, size_t whylen)
{
	const struct dpk_topo *t = dpk_topo_system();

	if (p == DPK_PLACE_SINGLE)
		return true;
	if (p == DPK_PLACE_ALL) {
		unsigned n = 0;
		for (unsigned i = 0; i < r->nworkers; i++)
			n += r->all_member[i];
		if (n >= 1)
			return true;
		snprintf(why, whylen, "no worker lcores");
		return false;
	}
	if (p >= DPK_PLACE_COUNT) {
		snprintf(why, whylen, "not a placement");
		return false;
	}
	for (unsigned i = 0; i < r->nworkers; i++) {
		for (unsigned j = i + 1; j < r->nworkers; j++) {
			unsigned ci = r->worker_cpu[i], cj = r->worker_cpu[j];
			if (ci >= DPK_CPU_MAX || cj >= DPK_CPU_MAX || !t)
				continue;
			if (dpk_topo_is_pair(t, p, ci, cj)) {
				*a = r->workers[i];
				*b = r->workers[j];
				return true;
			}
		}
	}
	switch (p) {
	case DPK_PLACE_SMT:
		snprintf(why, whylen, "no two worker lcores are SMT siblings%s",
		         machine_has_smt(t) ? "" : " (the machine has none)");
		break;
	case DPK_PLACE_CORE:
		snprintf(why, whylen, "no two worker lcores on different cores sharing an L3");
		break;
	case DPK_PLACE_LLC:
		snprintf(why, whylen, "no two worker lcores in different L3 domains (%u known)",
		         t ? dpk_topo_llc_count(t) : 0);
		break;
	case DPK_PLACE_NUMA:
		snprintf(why, whylen, "no two worker lcores on different NUMA nodes (%u known)",
		         t ? dpk_topo_numa_count(t) : 0);
		break;
	case DPK_PLACE_OVERSUB:
		snprintf(why, whylen, "no two worker lcores pinned to the same CPU");
		break;
	default:
		snprintf(why, whylen, "unavailable");
		break;
	}
	return false;
}

/* ---- timing ----------------------------------------------------------------------- */

/* A reading of the calling thread's involuntary switches; ok false when getrusage()
 * failed. */
struct switch_count {
	uint32_t n;
	bool ok;
};

static struct switch_count ivcsw_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return (struct switch_count){0, false};
	return (struct switch_count){(uint32_t)ru.ru_nivcsw, true};
}

/* ivcsw_now() as the runner counts it (tests script the count). */
static struct switch_count switches_now(const struct dpk_bench_runner *r)
{
	return r->switches ? (struct switch_count){r->switches(), true} : ivcsw_now();
}

/* Switches since reading @p before; none unless both readings worked. */
static uint32_t switches_since(const struct dpk_bench_runner *r, struct switch_count before)
{
	struct switch_count now = switches_now(r);

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
static unsigned batch_multiple(const struct dpk_bench_run *run)
{
	const unsigned m = run->c->ops_multiple ? run->c->ops_multiple : 1;

	return layouts_apply(run->c, run->placement) ? m * DPK_BENCH_LAYOUTS : m;
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
	assert(n % batch_multiple(run) == 0);
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
 * through time_batch(), which fixes where its stack lies. With @p want_ctx the batch's
 * own involuntary switches are counted around it: only for batches long next to a system
 * call's after-effects (see settle()). */
__attribute__((noinline)) static uint64_t time_batch_here(struct dpk_bench_run *run, unsigned role,
                                                          uint64_t n, double overhead,
                                                          struct dpk_sample *s, bool want_ctx,
                                                          double *ticks_out)
{
	uint32_t cs0 = want_ctx ? ivcsw_now().n : 0;
	unsigned c0 = (unsigned)sched_getcpu(), c1 = 0;
	uint64_t t0 = dpk_tsc_begin();
	uint64_t done = run_body(run, role, n);
	uint64_t t1 = dpk_tsc_end_cpu(&c1);
	double ticks = (double)(t1 - t0) - overhead;

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
 * caller's depth: run->stack_shift bytes further below a page boundary than a distance
 * this build fixes (the two functions' frames). A body's stack slots (spilled registers, locals)
 * meet the lines of the case's arena at an offset that decides whether loads and stores whose
 * addresses agree in their low 12 bits stall each other (4K aliasing), and ASLR starts the
 * stack at a random offset within its page (in 16-byte steps). On the development VM two
 * ring cases (16-byte elements, bulk and burst of 8) each came out at 4.0 or at 4.7 ticks
 * per element depending on the run, one high whenever the other was low; with ASLR off,
 * the same in every run. Any one offset is luck, good for one body and bad for another
 * (DPDK's ring, run through bodies of its own, was the lucky one at one fixed offset), so
 * single-lcore callers move the offset from batch to batch (stack_shift_of()): a round of
 * 256 batches or more mixes all the stack offsets in equal parts, the slow-round rule sees
 * time more than stack offset, and a figure is the case's cost over stack offsets.
 * Calibration, warm-up and the roles of multi-lcore cases run at shift 0 (the roles share
 * one run, and a shift set by one would race with the others' reads). The arena is pinned
 * for the same reason (dpk_bench_alloc()). The padding is taken before the clock starts.
 * ASan builds align their allocas to 32 bytes, so there the offset can move by 16 bytes
 * with ASLR; those builds are not for timing.
 */
__attribute__((noinline)) static uint64_t time_batch(struct dpk_bench_run *run, unsigned role,
                                                     uint64_t n, double overhead,
                                                     struct dpk_sample *s, bool want_ctx,
                                                     double *ticks_out)
{
	const uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
	char *pad = __builtin_alloca((frame & (STACK_PAGE - 1)) + 16 + run->stack_shift);
	uint64_t done;

	__asm__ volatile("" : : "r"(pad) : "memory"); /* the padding is used... */
	done = time_batch_here(run, role, n, overhead, s, want_ctx, ticks_out);
	__asm__ volatile("" : : "r"(pad) : "memory"); /* ...and lives across the call */
	return done;
}

/*
 * One untimed batch of @p n after reading the involuntary-switch count. One-lcore batches
 * are a few microseconds, and a getrusage() call just before one leaves its mark on the
 * batch's first operations: the kernel's entry and exit disturb the branch predictors and
 * the return stack. Read around each batch, the count cost the SP/SC empty dequeue 6% on
 * the development VM (1.75 against 1.64 ticks per call) and moved the cheapest cases from
 * run to run by more than 5%. So one-lcore batches are counted over a stretch (a slice,
 * an interleaved group), the switches go to the stretch's longest batches
 * (dpk_stats_give_switches()), and this batch takes the reading's after-effects.
 */
static bool settle(struct dpk_bench_run *run, uint64_t n)
{
	double ticks;

	return time_batch(run, 0, n, 0, NULL, false, &ticks) == n && !atomic_load(&run->failed);
}

static uint64_t round_ops(uint64_t n, unsigned mult)
{
	if (mult <= 1)
		return n ? n : 1;
	n = (n + mult - 1) / mult * mult;
	return n ? n : mult;
}

/* Which rounds were slow, when decided for a whole interleaved group. */
struct slow_rounds {
	const uint8_t *slow; /* slow[r] non-zero: round r is slow */
	size_t n;
};

/* The speed witness's rule for one set of samples (NULL where the samples have no witness
 * timings): the limit a timing next to a fast sample may reach, and what became of it. */
struct witness_rule {
	double limit;
	size_t set_aside; /* samples the rule set aside */
	bool kept_slow;   /* too few fast samples: the slow ones were kept */
};

/* Set aside, as dpk_stats_mark_witness(), the kept samples of @p s next to a timing over
 * @p w->limit, unless fewer than DPK_WITNESS_MIN_FAST kept samples are fast: then all stay
 * and w->kept_slow says so. Returns the samples still kept. */
static size_t apply_witness(struct dpk_sample *s, size_t n, size_t kept, struct witness_rule *w,
                            size_t counts[DPK_REJECT_COUNT])
{
	size_t fast = 0, before = counts[DPK_REJECT_SLOW];

	for (size_t i = 0; i < n; i++)
		fast += s[i].reject == DPK_REJECT_NONE && s[i].wit <= w->limit;
	w->kept_slow = fast < DPK_WITNESS_MIN_FAST;
	if (w->kept_slow)
		return kept;
	kept = dpk_stats_mark_witness(s, n, w->limit, counts);
	w->set_aside = counts[DPK_REJECT_SLOW] - before;
	return kept;
}

/* Summarise the kept samples of a set, filling the rejection counts. With @p slow_limit > 0
 * the speed witness's rule @p wit (when not NULL) sets slow samples aside first, then the
 * slow-round rule runs on what is left: with the rounds @p given marks when not NULL, else
 * by the set's own round medians. */
static void summarise_samples(struct dpk_sample *s, size_t n, bool check_ctx, double slow_limit,
                              struct witness_rule *wit, const struct slow_rounds *given,
                              size_t *reject, struct dpk_summary *sum, double **keep_out,
                              size_t *nkeep_out)
{
	size_t counts[DPK_REJECT_COUNT] = {0};
	size_t kept = dpk_stats_reject(s, n, check_ctx, counts);

	if (slow_limit > 0 && wit)
		kept = apply_witness(s, n, kept, wit, counts);
	if (slow_limit > 0 && given)
		kept = dpk_stats_mark_slow(s, n, given->slow, given->n, counts);
	else if (slow_limit > 0)
		kept = dpk_stats_reject_slow(s, n, slow_limit, counts);
	double *v = malloc((kept ? kept : 1) * sizeof(double));
	size_t k;

	for (unsigned i = 0; i < DPK_REJECT_COUNT; i++)
		reject[i] += counts[i];
	if (!v) {
		memset(sum, 0, sizeof(*sum));
		return;
	}
	k = dpk_stats_kept_ticks(s, n, v);
	if (keep_out) {
		/* The raw samples stay in the order they were taken (a drift over the run shows
		 * in them); the summary sorts a copy. */
		double *sorted = malloc((k ? k : 1) * sizeof(double));

		*keep_out = v;
		*nkeep_out = k;
		if (!sorted) {
			memset(sum, 0, sizeof(*sum));
			return;
		}
		memcpy(sorted, v, k * sizeof(double));
		v = sorted;
	}
	dpk_stats_summarise(v, k, sum);
	free(v);
}

/*
 * Size a single-lcore batch: double until one batch reaches the sample target (bounded by
 * the warm-up plus the budget), warm up at that size, then re-size from the warm-up's
 * median batch. Returns false when the case failed or stopped meanwhile.
 */
static bool calibrate_single(const struct dpk_bench_runner *r, struct dpk_bench_run *run,
                             uint64_t *n_out)
{
	const double hz = (double)r->clock.hz;
	const double target = r->clock.target_single, overhead = r->clock.read_cost;
	const uint64_t warm_ticks = (uint64_t)(r->opt.warmup_s * hz);
	const uint64_t budget = (uint64_t)(r->opt.time_s * hz);
	const unsigned mult = batch_multiple(run);
	uint64_t n = round_ops(1, mult), t_start = dpk_tsc();
	double ticks, wv[512];
	unsigned nw = 0;

	*n_out = n;
	for (;;) {
		uint64_t done = time_batch(run, 0, n, overhead, NULL, false, &ticks);
		if (atomic_load(&run->failed) || done < n)
			return false;
		if (ticks >= target || dpk_tsc() - t_start > warm_ticks + budget)
			break;
		n = round_ops(ticks > target / 64 ? (uint64_t)((double)n * target / ticks * 1.1)
		                                  : n * 2,
		              mult);
	}
	*n_out = n;
	uint64_t w0 = dpk_tsc();
	do {
		if (time_batch(run, 0, n, overhead, NULL, false, &ticks) < n ||
		    atomic_load(&run->failed))
			return false;
		if (nw < 512)
			wv[nw++] = ticks;
	} while (dpk_tsc() - w0 < warm_ticks);
	dpk_stats_sort(wv, nw);
	if (nw && wv[nw / 2] > 0) {
		double scaled = (double)n * target / wv[nw / 2];
		if (scaled > (double)n)
			n = round_ops((uint64_t)(scaled + 0.5), mult);
	}
	*n_out = n;
	return true;
}

/* The number of rounds a single-lcore case's budget is cut into: opt.rounds, fewer when
 * slices would be shorter than DPK_BENCH_SLICE_MIN_S (a round's median must be steady). */
static unsigned rounds_of(const struct dpk_bench_runner *r)
{
	double most = r->opt.time_s / DPK_BENCH_SLICE_MIN_S;
	unsigned q = r->opt.rounds;

	if (q > DPK_BENCH_ROUNDS_MAX)
		q = DPK_BENCH_ROUNDS_MAX;
	if ((double)q > most)
		q = (unsigned)most;
	return q < 1 ? 1 : q;
}

/* The kept samples of a single-lcore case in core cycles, where they have clock timings
 * (coreclock.h): res->cycles, and res->core_hz from the median round's pace. @p res is as
 * result_init() left those fields (none: cycles.n 0). */
static void summarise_cycles(const struct dpk_bench_runner *r, struct dpk_sample *samples,
                             size_t ns, struct dpk_bench_result *res)
{
	double *v = malloc((res->reject[0] ? res->reject[0] : 1) * sizeof(double)), ratio;
	size_t k = v ? dpk_stats_kept_cycles(samples, ns, DPK_CORECLOCK_CHAIN_CYCLES,
	                                     r->clock.read_cost, v, &ratio)
	             : 0;

	if (k && r->opt.raw) {
		/* In the order taken, as raw; the summary sorts v. */
		res->raw_cycles = malloc(k * sizeof(double));
		if (res->raw_cycles) {
			memcpy(res->raw_cycles, v, k * sizeof(double));
			res->nraw_cycles = k;
		}
	}
	if (k) {
		dpk_stats_summarise(v, k, &res->cycles);
		res->core_hz = ratio * (double)r->clock.hz;
	}
	free(v);
}

/* Fill a single-lcore result from its samples (rejection, summary, rates). */
static void finish_single(const struct dpk_bench_runner *r, const struct dpk_bench_case *c,
                          struct dpk_sample *samples, size_t ns, uint64_t n, double sum_ticks,
                          double sum_ops, struct witness_rule *wit, const struct slow_rounds *given,
                          struct dpk_bench_result *res)
{
	const double hz = (double)r->clock.hz;

	res->nroles = 1;
	res->role[0].lcore = dpk_lcore_id();
	res->role[0].cpu = (unsigned)sched_getcpu();
	res->role[0].name = c->role_names[0] ? c->role_names[0] : "main";
	res->role[0].counted = true;
	res->batch_ops = n;
	res->samples = ns;
	res->role[0].batch_ops = n;
	res->role[0].samples = ns;
	summarise_samples(samples, ns, true, r->opt.slow_limit, wit, given, res->reject,
	                  &res->ticks, r->opt.raw ? &res->raw : NULL, &res->nraw);
	res->role[0].kept = res->reject[0];
	res->role[0].ticks = res->ticks;
	summarise_cycles(r, samples, ns, res);
	res->role[0].ops = (uint64_t)sum_ops;
	res->role[0].window_s = sum_ticks / hz;
	/* The median rate: one preempted batch must not drag the throughput figure the way
	 * it drags a mean (multi-lcore cases count completed operations instead). */
	res->mops = res->ticks.p50 > 0 ? hz / res->ticks.p50 / 1e6 : 0;
	res->role[0].mops = res->mops;
}

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
	struct dpk_bench_run *run;
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
	struct dpk_bench_run *run = m->run;
	const struct dpk_bench_runner *r = m->r;
	unsigned mult = run->c->ops_multiple ? run->c->ops_multiple : 1, spins = 0;
	uint64_t n = round_ops(1, mult), warm_ops = 0, warm_t0, t0, now;
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
		uint64_t done = time_batch(run, rc->role, n, overhead, NULL, false, &ticks);
		warm_ops += done;
		warm_ticks += ticks;
		if (done < n)
			break;
		if (ticks < r->clock.target_multi / 4 && n < (UINT64_C(1) << 40))
			n = round_ops(n * 2, mult);
	}
	if ((double)(dpk_tsc() - warm_t0) > 0 && warm_ops > 0 && warm_ticks > 0) {
		double rate = (double)warm_ops / warm_ticks; /* ops per tick */
		double want = rate * r->clock.target_multi;
		if (want > (double)n)
			n = round_ops((uint64_t)want, mult);
	}
	rc->batch = n;

	/* Measure until stopped. */
	t0 = dpk_tsc();
	now = t0;
	while (!dpk_bench_stopped(run)) {
		struct dpk_sample *s = rc->nsamples < cap ? &rc->samples[rc->nsamples] : NULL;
		struct dpk_sample scratch;
		uint64_t done = time_batch(run, rc->role, n, overhead, s ? s : &scratch,
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
static void sleep_unless_stopped(struct dpk_bench_run *run, double s)
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
	while (!dpk_bench_stopped(run) &&
	       !atomic_load_explicit(&run->woken, memory_order_relaxed)) {
		if (syscall(SYS_futex, &run->woken, FUTEX_WAIT_BITSET_PRIVATE, 0u, &end, NULL,
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

static void run_multi(struct dpk_bench_runner *r, struct dpk_bench_run *run, const unsigned *lcores,
                      unsigned nroles, struct dpk_bench_result *res)
{
	const struct dpk_bench_case *c = run->c;
	struct multi *m = calloc(1, sizeof(*m));
	size_t cap = r->opt.max_samples;
	unsigned spins = 0, launched = 0;
	uint64_t counted = c->counted_roles;
	size_t total_kept = 0;

	if (!m) {
		res->status = DPK_RESULT_FAILED;
		snprintf(res->reason, sizeof(res->reason), "out of memory");
		return;
	}
	m->run = run;
	m->r = r;
	/* Two lcores sharing a CPU preempt each other by design; counting those switches
	 * as spoiled samples would reject every sample. */
	m->check_ctx = run->placement != DPK_PLACE_OVERSUB;
	atomic_init(&m->ready, 0);
	atomic_init(&m->phase, PHASE_START);
	res->nroles = nroles;
	for (unsigned i = 0; i < nroles; i++) {
		m->role[i].m = m;
		m->role[i].role = i;
		m->role[i].samples = calloc(cap ? cap : 1, sizeof(struct dpk_sample));
		if (!m->role[i].samples) {
			res->status = DPK_RESULT_FAILED;
			snprintf(res->reason, sizeof(res->reason), "out of memory");
			goto out_free;
		}
	}
	for (unsigned i = 0; i < nroles; i++) {
		int rc = dpk_lcore_launch(lcores[i], role_main, &m->role[i]);
		if (rc) {
			res->status = DPK_RESULT_FAILED;
			snprintf(res->reason, sizeof(res->reason), "launch on lcore %u: %s",
			         lcores[i], strerror(-rc));
			atomic_store(&run->stop, true);
			atomic_store_explicit(&m->phase, PHASE_WARM, memory_order_release);
			goto out_wait;
		}
		launched++;
	}
	/* A1's pair: every role has arrived (acquire), then open the start gate (release). */
	while (atomic_load_explicit(&m->ready, memory_order_acquire) < nroles)
		spin_wait_relax(&spins);
	atomic_store_explicit(&m->phase, PHASE_WARM, memory_order_release);
	sleep_unless_stopped(run, r->opt.warmup_s);
	atomic_store_explicit(&m->phase, PHASE_MEASURE, memory_order_relaxed);
	sleep_unless_stopped(run, r->opt.time_s);
	atomic_store_explicit(&run->stop, true, memory_order_relaxed);

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
			res->status = DPK_RESULT_FAILED;
			snprintf(res->reason, sizeof(res->reason), "out of memory");
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
			summarise_samples(rc->samples, rc->nsamples, m->check_ctx, 0, NULL, NULL,
			                  rej, &rr->ticks, NULL, NULL);
			rr->kept = rej[0];
		}
		res->samples = pooled_n;
		summarise_samples(pooled, pooled_n, m->check_ctx, 0, NULL, NULL, res->reject,
		                  &res->ticks, r->opt.raw ? &res->raw : NULL, &res->nraw);
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
	if (total_kept == 0 && !atomic_load(&run->failed)) {
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

/* ---- one case ---------------------------------------------------------------------- */

/* A result with its identity filled in and status ok. */
static void result_init(struct dpk_bench_result *res, const struct dpk_bench_suite *s,
                        const struct dpk_bench_case *c, enum dpk_placement p, unsigned repeat)
{
	memset(res, 0, sizeof(*res));
	res->suite = s;
	res->c = c;
	res->placement = p;
	res->repeat = repeat;
	res->status = DPK_RESULT_OK;
	res->witness_kept_p50 = NAN;
}

/* A run of case @p c on placement @p p, nothing failed or stopped yet. */
static void run_init(struct dpk_bench_run *run, const struct dpk_bench_case *c,
                     enum dpk_placement p, unsigned nroles)
{
	run->c = c;
	run->placement = p;
	run->nroles = nroles;
	atomic_init(&run->stop, false);
	atomic_init(&run->failed, false);
	atomic_init(&run->fail_ready, false);
	atomic_init(&run->woken, 0u);
}

static bool is_floor_pingpong(const struct dpk_bench_result *r)
{
	return r->suite && r->c && strcmp(r->suite->name, "floor") == 0 &&
	       strcmp(r->c->name, "pingpong") == 0;
}

double dpk_bench_floor_of(const struct dpk_bench_result *x, const struct dpk_bench_result *res,
                          size_t n)
{
	/* Not oversub: two lcores on one CPU bounce the line only at context switches, so
	 * their round trip is the scheduler's, no floor for a hand-off. */
	if (x->status != DPK_RESULT_OK || !x->c || x->c->kind == DPK_BENCH_SINGLE ||
	    x->placement == DPK_PLACE_SINGLE || x->placement == DPK_PLACE_ALL ||
	    x->placement == DPK_PLACE_OVERSUB || is_floor_pingpong(x))
		return 0;
	for (size_t j = 0; j < n; j++)
		if (is_floor_pingpong(&res[j]) && res[j].status == DPK_RESULT_OK &&
		    res[j].placement == x->placement && res[j].repeat == x->repeat &&
		    res[j].ticks.p50 > 0)
			return res[j].ticks.p50;
	return 0;
}

void dpk_bench_link_floor(struct dpk_bench_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		res[i].floor_rt = dpk_bench_floor_of(&res[i], res, n);
}

void dpk_bench_result_free(struct dpk_bench_result *res)
{
	free(res->raw);
	res->raw = NULL;
	res->nraw = 0;
	free(res->raw_cycles);
	res->raw_cycles = NULL;
	res->nraw_cycles = 0;
}

void dpk_bench_run_case(struct dpk_bench_runner *r, const struct dpk_bench_suite *s,
                        const struct dpk_bench_case *c, enum dpk_placement p, unsigned repeat,
                        struct dpk_bench_result *res)
{
	unsigned lcores[DPK_BENCH_ROLES_MAX], nroles = 0;
	uint64_t t0 = dpk_tsc();
	struct dpk_bench_run *run;
	char why[160];

	/* A single-lcore case alone runs as a suite of one, in rounds like any other. */
	if (c->kind == DPK_BENCH_SINGLE) {
		dpk_bench_run_rounds(r, &s, &c, 1, repeat, res, NULL, NULL);
		return;
	}
	run = calloc(1, sizeof(*run));
	result_init(res, s, c, p, repeat);
	if (!run) {
		res->status = DPK_RESULT_FAILED;
		snprintf(res->reason, sizeof(res->reason), "out of memory");
		return;
	}
	run_init(run, c, p, 0);

	switch (c->kind) {
	case DPK_BENCH_SINGLE: /* run above */
		break;
	case DPK_BENCH_PAIR:
		if (!dpk_bench_placement_available(r, p, &lcores[0], &lcores[1], why,
		                                   sizeof(why))) {
			res->status = DPK_RESULT_SKIPPED;
			snprintf(res->reason, sizeof(res->reason), "%s", why);
			goto out;
		}
		nroles = 2;
		break;
	case DPK_BENCH_ALL:
		for (unsigned i = 0; i < r->nworkers && nroles < DPK_BENCH_ROLES_MAX; i++)
			if (r->all_member[i])
				lcores[nroles++] = r->workers[i];
		if (nroles == 0) {
			res->status = DPK_RESULT_SKIPPED;
			snprintf(res->reason, sizeof(res->reason), "no worker lcores");
			goto out;
		}
		break;
	}
	run->nroles = nroles;
	arena_map(run, 0);
	if (c->setup) {
		int rc = c->setup(run);
		if (rc) {
			res->status = DPK_RESULT_FAILED;
			snprintf(res->reason, sizeof(res->reason), "setup: %s", strerror(-rc));
			goto out;
		}
	}
	run_multi(r, run, lcores, nroles, res);
	if (c->teardown)
		c->teardown(run);
	if (atomic_load_explicit(&run->failed, memory_order_relaxed)) {
		res->status = DPK_RESULT_FAILED;
		snprintf(res->reason, sizeof(res->reason), "%s", fail_message(run));
	}
out:
	arena_unmap(run);
	res->elapsed_s = (double)(dpk_tsc() - t0) / (double)r->clock.hz;
	free(run);
}

/* ---- interleaved variants -------------------------------------------------------- */

char *dpk_bench_group_key(const struct dpk_bench_case *c, char *buf, size_t len)
{
	char params[96];

	snprintf(buf, len, "%s|%s", c->group ? c->group : c->name,
	         dpk_bench_params_str(c, params, sizeof(params)));
	return buf;
}

void dpk_bench_run_interleaved(struct dpk_bench_runner *r,
                               const struct dpk_bench_suite *const *suites,
                               const struct dpk_bench_case *const *cases, unsigned k,
                               unsigned repeat, struct dpk_bench_result *res)
{
	const double hz = (double)r->clock.hz;
	const uint64_t budget = (uint64_t)(r->opt.time_s * hz * k);
	size_t cap = r->opt.max_samples, rounds = 0;
	struct dpk_bench_run *runs = calloc(k, sizeof(*runs));
	struct dpk_sample **samples = calloc(k, sizeof(*samples));
	uint64_t *n = calloc(k, sizeof(*n)), t0 = dpk_tsc();
	double *sum_ticks = calloc(k, sizeof(double)), *ratio = NULL;
	bool ok = runs && samples && n && sum_ticks, *set_up = calloc(k, sizeof(bool));
	uint8_t slow_part[DPK_BENCH_ROUNDS_MAX] = {0};
	const struct slow_rounds parts = {slow_part, DPK_BENCH_ROUNDS_MAX};
	struct switch_count cs0 = {0, false};
	bool counting = false;

	for (unsigned i = 0; i < k; i++) {
		result_init(&res[i], suites[i], cases[i], DPK_PLACE_SINGLE, repeat);
		res[i].interleaved = true;
		res[i].ref_suite = suites[0];
		res[i].ref_case = cases[0];
		res[i].group_size = k;
	}
	ok = ok && set_up;
	for (unsigned i = 0; ok && i < k; i++) {
		samples[i] = calloc(cap ? cap : 1, sizeof(struct dpk_sample));
		ok = samples[i] != NULL;
	}
	if (!ok) {
		for (unsigned i = 0; i < k; i++) {
			res[i].status = DPK_RESULT_FAILED;
			snprintf(res[i].reason, sizeof(res[i].reason), "out of memory");
		}
		goto out_free;
	}
	/* Set up, calibrate and warm up each member alone. */
	for (unsigned i = 0; i < k; i++) {
		run_init(&runs[i], cases[i], DPK_PLACE_SINGLE, 1);
		arena_map(&runs[i], i);
		if (cases[i]->setup) {
			int rc = cases[i]->setup(&runs[i]);
			if (rc) {
				res[i].status = DPK_RESULT_FAILED;
				snprintf(res[i].reason, sizeof(res[i].reason), "setup: %s",
				         strerror(-rc));
				goto out_teardown;
			}
		}
		set_up[i] = true;
		if (!calibrate_single(r, &runs[i], &n[i]))
			goto out_teardown;
	}
	/* Rounds: one batch of each member, starting one member later every round, so every
	 * member takes every position equally often. */
	/* The slow-round rule sees the group's time cut into rounds_of(r) slices; a slice
	 * holds many of these rounds, and the same slices for every member. */
	const uint64_t slice = budget / rounds_of(r) + 1;
	/* Involuntary switches are counted around all the rounds (settle()). */
	cs0 = switches_now(r);
	for (unsigned i = 0; i < k; i++)
		if (!settle(&runs[i], n[i]))
			goto out_teardown;
	counting = true;
	/* The budget is for the rounds: set-up, calibration and warm-up (slow under a
	 * sanitizer or on a loaded host) must not eat it, or a group could end with no round
	 * at all. */
	const uint64_t t_rounds = dpk_tsc();
	uint64_t now = t_rounds;
	while (now - t_rounds < budget && rounds < cap) {
		uint16_t part = (uint16_t)((now - t_rounds) / slice);
		for (unsigned j = 0; j < k; j++) {
			unsigned i = (unsigned)((rounds + j) % k);
			double ticks;
			/* One offset for k rounds in a row: each variant takes it once in every
			 * position, so order and layout do not go together. */
			runs[i].stack_shift = stack_shift_of((unsigned)(rounds / k));
			if (time_batch(&runs[i], 0, n[i], r->clock.read_cost, &samples[i][rounds],
			               false, &ticks) < n[i] ||
			    atomic_load(&runs[i].failed))
				goto out_teardown;
			samples[i][rounds].round = part;
			sum_ticks[i] += ticks;
		}
		rounds++;
		now = dpk_tsc();
	}

out_teardown:
	if (counting)
		dpk_stats_give_switches(samples, k, rounds, switches_since(r, cs0));
	/* One slow-round decision for the group, from the reference's own rounds: deciding per
	 * member would keep each member's luckiest stretches and bias the paired ratios. */
	if (res[0].status == DPK_RESULT_OK && r->opt.slow_limit > 0) {
		dpk_stats_reject(samples[0], rounds, true, NULL);
		dpk_stats_reject_slow(samples[0], rounds, r->opt.slow_limit, NULL);
		for (size_t q = 0; q < rounds; q++)
			if (samples[0][q].reject == DPK_REJECT_SLOW)
				slow_part[samples[0][q].round] = 1;
	}
	for (unsigned i = 0; i < k; i++) {
		if (res[i].status == DPK_RESULT_OK)
			finish_single(r, cases[i], samples[i], rounds, n[i], sum_ticks[i],
			              (double)n[i] * (double)rounds, NULL, &parts, &res[i]);
		if (set_up[i] && cases[i]->teardown)
			cases[i]->teardown(&runs[i]);
		if (set_up[i] && atomic_load_explicit(&runs[i].failed, memory_order_relaxed)) {
			res[i].status = DPK_RESULT_FAILED;
			snprintf(res[i].reason, sizeof(res[i].reason), "%s",
			         fail_message(&runs[i]));
		}
	}
	/* A member that failed stops the whole group: say so in the others' results. */
	for (unsigned i = 0; i < k; i++) {
		if (res[i].status == DPK_RESULT_OK && res[i].reject[0] == 0) {
			for (unsigned j = 0; j < k; j++)
				if (res[j].status == DPK_RESULT_FAILED) {
					res[i].status = DPK_RESULT_EMPTY;
					snprintf(res[i].reason, sizeof(res[i].reason),
					         "interleaved group stopped: %s/%s failed",
					         suites[j]->name, cases[j]->name);
					break;
				}
		}
	}
	/* Paired ratios to member 0 over rounds where both kept their sample (the reject
	 * marks were set by finish_single's rejection pass). */
	ratio = calloc(rounds ? rounds : 1, sizeof(double));
	for (unsigned i = 0; ratio && i < k; i++) {
		size_t m = 0;
		for (size_t q = 0; q < rounds; q++) {
			const struct dpk_sample *a = &samples[0][q], *b = &samples[i][q];
			if (a->reject == DPK_REJECT_NONE && b->reject == DPK_REJECT_NONE &&
			    a->ticks_per_op > 0)
				ratio[m++] = b->ticks_per_op / a->ticks_per_op;
		}
		res[i].pair_rounds = m;
		dpk_stats_summarise(ratio, m, &res[i].pair_ratio);
	}
	for (unsigned i = 0; i < k; i++)
		res[i].elapsed_s = (double)(dpk_tsc() - t0) / hz / k;

out_free:
	free(ratio);
	for (unsigned i = 0; runs && i < k; i++)
		arena_unmap(&runs[i]);
	for (unsigned i = 0; samples && i < k; i++)
		free(samples[i]);
	free(samples);
	free(runs);
	free(n);
	free(sum_ticks);
	free(set_up);
}

/* ---- rounds over single-lcore cases ------------------------------------------------ */

/* Warm case @p run up again for @p warm ticks at batch size @p n: it starts from a fresh
 * set-up, and other cases evicted its code and branch history meanwhile. @p n may grow. */
static bool rewarm(const struct dpk_bench_runner *r, struct dpk_bench_run *run, uint64_t *n,
                   uint64_t warm)
{
	const double target = r->clock.target_single;
	const unsigned mult = batch_multiple(run);
	uint64_t w0 = dpk_tsc();
	double t[REWARM_KEPT], ticks;
	unsigned nt = 0;

	do {
		if (time_batch(run, 0, *n, r->clock.read_cost, NULL, false, &ticks) < *n ||
		    atomic_load(&run->failed))
			return false;
		t[nt++ % REWARM_KEPT] = ticks; /* the last ones, the warmest */
	} while (dpk_tsc() - w0 < warm);
	/* Batches sized while the machine ran slow (a busy host during the first slice)
	 * fall short of the sample target once it runs fast: the read cost and the counter's
	 * step would then weigh more than they should. Grow them back to the target; never
	 * shrink them, or a slow stretch would leave them short when it ends. */
	ticks = dpk_stats_median(t, nt < REWARM_KEPT ? nt : REWARM_KEPT);
	if (ticks > 0 && ticks < REWARM_GROW_BELOW * target) {
		double grow = target / ticks;

		if (grow > REWARM_GROW_MAX) /* a bad reading must not make a slice endless */
			grow = REWARM_GROW_MAX;
		*n = round_ops((uint64_t)((double)*n * grow + 0.5), mult);
	}
	return true;
}

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

/* Note witness reading @p w in the run's log; false when out of memory. */
static bool witness_note(struct dpk_bench_witness_log *log, double w)
{
	if (log->n == log->cap) {
		size_t cap = log->cap ? 2 * log->cap : 256;
		double *v = realloc(log->v, cap * sizeof(*v));

		if (!v)
			return false;
		log->v = v;
		log->cap = cap;
	}
	log->v[log->n++] = w;
	if (w < log->best)
		log->best = w;
	return true;
}

/* Witness timings in a row within one slice, made into readings as they come. */
struct witness_block {
	double t[DPK_WITNESS_TIMINGS];
	unsigned n;
};

/* Add timing @p w to block @p b; a full block becomes a reading in @p log. False when out
 * of memory. */
static bool witness_add(struct witness_block *b, struct dpk_bench_witness_log *log, double w)
{
	b->t[b->n++] = w;
	if (b->n < DPK_WITNESS_TIMINGS)
		return true;
	b->n = 0;
	return witness_note(log, dpk_stats_median(b->t, DPK_WITNESS_TIMINGS));
}

/*
 * Slice @p q of case @p rc: set it up afresh, calibrate it (first slice) or warm it up
 * again (growing rc->n if need be), read the switch count and settle(), time batches for
 * @p slice ticks with a witness timing after the warm-up and after each batch (its readings
 * go to @p log), give the switches counted meanwhile to its batches, tear it down. One case is set
 * up at a time, in arena slot 0 like a case run alone: the cases of a suite may share global state
 * (service names and ids, lcores). Returns false once the case is over: failed (@p res says why) or
 * out of room for samples or readings.
 */
static bool run_slice(const struct dpk_bench_runner *r, struct dpk_bench_witness_log *log,
                      struct round_case *rc, unsigned q, uint64_t slice, uint64_t warm, size_t cap,
                      struct dpk_bench_result *res)
{
	double (*timing)(void) = r->witness_time ? r->witness_time : dpk_bench_witness_timing;
	struct dpk_bench_run *run = calloc(1, sizeof(*run));
	struct witness_block block = {.n = 0};
	uint64_t t0 = dpk_tsc(), start, now;
	double ticks, before = 0;
	size_t first;
	struct switch_count cs0;
	bool ok = true;

	if (!run) {
		res->status = DPK_RESULT_FAILED;
		snprintf(res->reason, sizeof(res->reason), "out of memory");
		return false;
	}
	run_init(run, rc->c, DPK_PLACE_SINGLE, 1);
	arena_map(run, 0);
	if (rc->c->setup) {
		int e = rc->c->setup(run);
		if (e) {
			res->status = DPK_RESULT_FAILED;
			snprintf(res->reason, sizeof(res->reason), "setup: %s", strerror(-e));
			arena_unmap(run);
			free(run);
			return false;
		}
	}
	ok = q == 0 ? calibrate_single(r, run, &rc->n) : rewarm(r, run, &rc->n, warm);
	cs0 = switches_now(r);
	ok = ok && settle(run, rc->n);
	if (ok) {
		before = timing();
		ok = witness_add(&block, log, before);
	}
	first = rc->ns;
	now = start = dpk_tsc();
	for (unsigned b = 0; ok && rc->ns < cap && (now == start || now - start < slice); b++) {
		struct dpk_sample *sm = &rc->samples[rc->ns];
		double after;

		/* Slice q starts at index q of the sequence, so slices of a few long batches do
		 * not all take the same few places. */
		run->stack_shift = stack_shift_of(q + b);
		if (time_batch(run, 0, rc->n, r->clock.read_cost, sm, false, &ticks) < rc->n ||
		    atomic_load(&run->failed)) {
			ok = false;
			break;
		}
		after = timing();
		sm->clk = r->clock.cycles_on ? (float)dpk_bench_coreclock_timing() : 0.0f;
		sm->wit = (float)(after > before ? after : before);
		sm->round = (uint16_t)q;
		before = after;
		rc->sum_ticks += ticks;
		rc->ops += (double)rc->n;
		rc->ns++;
		ok = witness_add(&block, log, after);
		now = dpk_tsc();
	}
	struct dpk_sample *slice_samples = rc->samples + first;

	dpk_stats_give_switches(&slice_samples, 1, rc->ns - first, switches_since(r, cs0));
	if (rc->c->teardown)
		rc->c->teardown(run);
	if (atomic_load_explicit(&run->failed, memory_order_relaxed)) {
		res->status = DPK_RESULT_FAILED;
		snprintf(res->reason, sizeof(res->reason), "%s", fail_message(run));
		ok = false;
	}
	arena_unmap(run);
	free(run);
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

double dpk_bench_witness_ref(const struct dpk_bench_witness_log *log, bool *from_check)
{
	const double check = log->check > 0 ? log->check : INFINITY;
	double *c, ref;

	if (from_check)
		*from_check = true;
	if (!log->n)
		return check;
	c = malloc(log->n * sizeof(*c));
	if (!c) { /* out of memory: the fastest reading, as judged before there was a rank */
		if (from_check)
			*from_check = !(log->best > 0);
		return log->best > 0 ? log->best : check;
	}
	memcpy(c, log->v, log->n * sizeof(*c));
	ref = dpk_stats_select(c, log->n, log->n / DPK_WITNESS_REF_RANK);
	free(c);
	/* The run's own readings all slow by the clock check's: it met the machine slow from
	 * end to end, and the clock check's reading stands for full speed. */
	if (ref > dpk_bench_witness_limit(check))
		return check;
	if (from_check)
		*from_check = false;
	return ref;
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

void dpk_bench_run_rounds(struct dpk_bench_runner *r, const struct dpk_bench_suite *const *suites,
                          const struct dpk_bench_case *const *cases, unsigned k, unsigned repeat,
                          struct dpk_bench_result *res, dpk_bench_round_fn progress, void *ctx)
{
	const double hz = (double)r->clock.hz;
	const unsigned rounds = rounds_of(r);
	/* Rounds for cases short of fast samples: only with the slow rules on, at most as
	 * many again. */
	const unsigned most = r->opt.slow_limit > 0 ? 2 * rounds : rounds;
	const uint64_t slice = (uint64_t)(r->opt.time_s * hz / rounds) + 1;
	const uint64_t warm = (uint64_t)(r->opt.warmup_s * hz / rounds);
	const size_t cap = r->opt.max_samples ? r->opt.max_samples : 1;
	struct round_case *rc = calloc(k ? k : 1, sizeof(*rc));
	struct dpk_bench_witness_log *log = &r->witness;
	unsigned q;

	for (unsigned i = 0; i < k; i++) {
		result_init(&res[i], suites[i], cases[i], DPK_PLACE_SINGLE, repeat);
		if (rc) {
			rc[i].c = cases[i];
			rc[i].samples = calloc(cap, sizeof(struct dpk_sample));
			rc[i].live = rc[i].samples != NULL;
		}
		if (!rc || !rc[i].live) {
			res[i].status = DPK_RESULT_FAILED;
			snprintf(res[i].reason, sizeof(res[i].reason), "out of memory");
		}
	}
	if (!rc)
		return;
	if (!(log->best > 0)) /* a runner set up by hand: no clock-check reading */
		log->best = INFINITY;
	/* Each round visits the cases in turn, starting one case later every round. Past the
	 * planned rounds, more run while some case lacks fast samples. */
	for (q = 0; q < most; q++) {
		if (q >= rounds && !short_of_fast(rc, k, dpk_bench_witness_ref(log, NULL)))
			break;
		if (progress)
			progress(ctx, q, rounds);
		for (unsigned j = 0; j < k; j++) {
			unsigned i = (q + j) % k;

			if (!rc[i].live)
				continue;
			/* Out of memory for the log: the case ends with what it has. */
			rc[i].live = run_slice(r, log, &rc[i], q, slice, warm, cap, &res[i]);
			rc[i].slices++;
			if (q < rounds)
				rc[i].planned = rc[i].ns;
		}
	}
	log->rounds += q;
	log->extra += q > rounds ? q - rounds : 0;
	/* The samples are judged now, by the reference of the readings so far (this call's
	 * included), and the log counts them as judged: a later reference, lower or higher,
	 * does not judge them again. */
	log->ref = dpk_bench_witness_ref(log, &log->ref_check);
	for (unsigned i = 0; i < k; i++) {
		struct witness_rule wit = {.limit = dpk_bench_witness_limit(log->ref)};
		size_t fast = fast_samples(&rc[i], wit.limit);

		res[i].witness_slices = rc[i].slices;
		res[i].witness_fast = fast;
		if (res[i].status == DPK_RESULT_OK) {
			finish_single(r, cases[i], rc[i].samples, rc[i].ns, rc[i].n,
			              rc[i].sum_ticks, rc[i].ops, &wit, NULL, &res[i]);
			res[i].witness_kept_slow = wit.kept_slow;
			res[i].witness_kept_p50 = kept_witness_p50(rc[i].samples, rc[i].ns);
			res[i].witness_kept_rounds = kept_rounds(rc[i].samples, rc[i].ns);
			log->samples += rc[i].ns;
			log->slow += rc[i].ns - fast;
			log->set_aside += wit.set_aside;
		}
		res[i].elapsed_s = (double)rc[i].spent / hz;
		free(rc[i].samples);
	}
	free(rc);
}
