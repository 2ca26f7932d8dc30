/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness engine on synthetic cases: samples are taken and summarised, invariant
 * failures are reported, multi-lcore cases stop on the flag even when a role would wait
 * forever, oversubscribed pairs end, and placements the lcores lack are skipped.
 * Nothing here asserts how fast anything is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <dpk/cycles.h>

#include "dpk_test.h"
#include "report.h"
#include "engine_int.h"
#include "suites.h"
#include "coreclock.h"
#include "witness.h"

#if defined(__SANITIZE_ADDRESS__)
#define DPK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DPK_TEST_ASAN 1
#endif
#endif
#ifndef DPK_TEST_ASAN
#define DPK_TEST_ASAN 0
#endif

static struct dpk_bench_runner runner;

static bool runner_up;

/* Stop the runner started by start(); also run when a case ends, however it ends, so an
 * ASSERT that fails with lcores running does not fail every later case. */
static void stop(void)
{
	if (runner_up)
		dpk_bench_runner_fini(&runner);
	runner_up = false;
}

static int start(const char *spec)
{
	struct dpk_bench_options o;
	int rc;

	dpk_bench_options_default(&o);
	o.time_s = 0.02;
	o.warmup_s = 0.005;
	o.lcores = spec;
	o.raw = true;
	/* The scripted witness tests set their own clock-check reading; the rest need no more
	 * than the sixteen readings. */
	o.witness_check_s = 0;
	rc = dpk_bench_runner_init(&runner, &o);
	runner_up = rc == 0;
	dpk_test_on_end(stop);
	return rc;
}

static uint64_t body_spin(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	uint64_t acc = 0;

	(void)run;
	(void)role;
	for (uint64_t i = 0; i < n; i++)
		acc += i;
	DPK_BENCH_KEEP(acc);
	return n;
}

static atomic_ulong fail_calls;

static uint64_t body_fails(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	(void)role;
	if (atomic_fetch_add(&fail_calls, 1) == 3)
		dpk_bench_fail(run, "invariant %d broke", 42);
	return n;
}

/* Role 1 waits for a value role 0 never sends: only the stop flag ends it. */
static uint64_t body_waits(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	if (role == 1) {
		while (!dpk_bench_stopped(run))
			dpk_pause();
		return 0;
	}
	return body_spin(run, role, n);
}

static const struct dpk_bench_case c_single = {.name = "spin",
                                               .desc = "add",
                                               .kind = DPK_BENCH_SINGLE,
                                               .unit = DPK_UNIT_ITERATION,
                                               .body = body_spin,
                                               .params = {{"x", 3}}};
static const struct dpk_bench_case c_fail = {.name = "fails",
                                             .desc = "breaks",
                                             .kind = DPK_BENCH_SINGLE,
                                             .unit = DPK_UNIT_CALL,
                                             .body = body_fails};
static const struct dpk_bench_case c_pair = {.name = "pair",
                                             .desc = "two spinners",
                                             .kind = DPK_BENCH_PAIR,
                                             .unit = DPK_UNIT_ITERATION,
                                             .counted_roles = 2,
                                             .body = body_spin,
                                             .ops_multiple = 4};
static const struct dpk_bench_case c_pair_fail = {.name = "pair fails",
                                                  .desc = "two roles that fail",
                                                  .kind = DPK_BENCH_PAIR,
                                                  .unit = DPK_UNIT_ITERATION,
                                                  .body = body_fails};
static const struct dpk_bench_case c_wait = {.name = "waits",
                                             .desc = "role 1 blocks",
                                             .kind = DPK_BENCH_PAIR,
                                             .unit = DPK_UNIT_ITERATION,
                                             .counted_roles = 2,
                                             .body = body_waits};
static const struct dpk_bench_case c_all = {.name = "all",
                                            .desc = "every worker",
                                            .kind = DPK_BENCH_ALL,
                                            .unit = DPK_UNIT_ITERATION,
                                            .body = body_spin};
static const struct dpk_bench_suite suite = {.name = "t", .desc = "test"};

/* The CPUs the default lcore set should use, counted without the harness: online, and in
 * this thread's affinity mask (a taskset or a container's cpuset narrows it). Asked before
 * start(), which pins the thread to the main lcore's CPU. */
static unsigned usable_cpus(void)
{
	const struct dpk_topo *t = dpk_topo_system();
	const size_t size = CPU_ALLOC_SIZE(DPK_CPU_MAX);
	cpu_set_t *mask = CPU_ALLOC(DPK_CPU_MAX);
	unsigned n = 0;

	if (t && mask && sched_getaffinity(0, size, mask) == 0)
		for (unsigned c = 0; c < DPK_CPU_MAX; c++)
			n += dpk_cpuset_isset(dpk_topo_online(t), c) && CPU_ISSET_S(c, size, mask);
	CPU_FREE(mask);
	return n;
}

static bool have_two_cpus(void)
{
	return usable_cpus() >= 2;
}

static void clock_check_is_sane(void)
{
	struct dpk_bench_clock k;

	dpk_bench_clock_check(&k, 0.01);
	ASSERT_GT(k.hz, 0);
	ASSERT_GE(k.granularity, 1);
	ASSERT_GT_F(k.read_cost, 0.0);
	ASSERT_LE_F(k.read_cost_min, k.read_cost);
	/* the method's promise: read cost and tick step each under 1% of a sample */
	ASSERT_GE_F(k.target_single, 100.0 * k.read_cost);
	ASSERT_GE_F(k.target_single, 100.0 * (double)k.granularity);
	ASSERT_GE_F(k.target_single, 100.0 * (double)k.min_delta);
	ASSERT_GE_F(k.target_multi, k.target_single);
	/* The witness readings go on for the time asked, and never number under sixteen. */
	EXPECT_GT_F(k.witness, 0.0);
	EXPECT_GE(k.witness_readings, DPK_WITNESS_CHECK_READINGS);
	EXPECT_GE_F(k.witness_s, 0.01);
	dpk_bench_clock_check(&k, 0);
	EXPECT_EQ(DPK_WITNESS_CHECK_READINGS, k.witness_readings);
}

/* Counter reads made up from a step pattern: @p steps[i % nsteps] ticks between reads, and
 * after every @p bump_every-th read (0: never) one more read one tick past it, as a
 * counter that never reads the same twice gives when a read falls in the last one's step. */
static size_t made_up_reads(uint64_t *r, size_t n, const uint64_t *steps, size_t nsteps,
                            size_t bump_every)
{
	uint64_t t = 1000;
	size_t k = 0;

	for (size_t i = 0; k < n; i++) {
		r[k++] = t;
		if (bump_every && i % bump_every == bump_every - 1 && k < n)
			r[k++] = t + 1;
		t += steps[i % nsteps];
	}
	return k;
}

/* The resolution leaves out reads the counter bumped by one: a guest's counter on an AMD
 * host moves in steps of 26 ticks, and a read in the same step as the last comes back one
 * tick past it. Taking those as changes gave a resolution of 1. */
static void counter_resolution_leaves_out_bumps(void)
{
	static uint64_t r[4000];
	const uint64_t amd[] = {26, 52, 26, 26, 78}, guest[] = {24, 25, 49, 24, 73, 74},
	               fine[] = {40, 37, 43, 41};
	uint64_t g, mind;
	size_t bumps, n;

	n = made_up_reads(r, 4000, amd, 5, 20);
	dpk_bench_counter_resolution(r, n, &g, &mind, &bumps);
	EXPECT_EQ(26, g);
	EXPECT_EQ(26, mind);
	EXPECT_EQ_U(n / 21, bumps); /* one read in 21 is a bump */
	n = made_up_reads(r, 4000, amd, 5, 0);
	dpk_bench_counter_resolution(r, n, &g, &mind, &bumps);
	EXPECT_EQ(26, g);
	EXPECT_EQ(26, mind);
	EXPECT_EQ_U(0, bumps);
	/* A scaled counter's changes share no step: the smallest change is the resolution. */
	n = made_up_reads(r, 4000, guest, 6, 0);
	dpk_bench_counter_resolution(r, n, &g, &mind, &bumps);
	EXPECT_EQ(1, g);
	EXPECT_EQ(24, mind);
	EXPECT_EQ_U(0, bumps);
	/* A fine counter read slowly: nothing is a bump. */
	n = made_up_reads(r, 4000, fine, 4, 0);
	dpk_bench_counter_resolution(r, n, &g, &mind, &bumps);
	EXPECT_EQ(1, g);
	EXPECT_EQ(37, mind);
	EXPECT_EQ_U(0, bumps);
	/* Reads that repeat are no change; one read or none gives no change at all. */
	const uint64_t same[] = {5, 5, 5, 31, 31, 57};
	dpk_bench_counter_resolution(same, 6, &g, &mind, &bumps);
	EXPECT_EQ(26, g);
	EXPECT_EQ(26, mind);
	EXPECT_EQ_U(0, bumps);
	/* Reads faster than the steps: three bumps after every read on a step, most changes 1. */
	n = 0;
	for (uint64_t t = 1000; n + 4 <= 4000; t += 26) {
		for (unsigned b = 0; b < 4; b++)
			r[n++] = t + b;
	}
	dpk_bench_counter_resolution(r, n, &g, &mind, &bumps);
	EXPECT_EQ(26, g);
	EXPECT_EQ(26, mind);
	EXPECT_EQ_U(3 * n / 4, bumps);
	dpk_bench_counter_resolution(same, 1, &g, &mind, &bumps);
	EXPECT_EQ(1, g);
	EXPECT_EQ(0, mind);
	EXPECT_EQ_U(0, bumps);
}

/* The sample length answers to the coarser of the read cost and the counter's resolution,
 * the larger of the GCD of the changes and the smallest change. */
static void sample_targets_bound_the_resolution(void)
{
	struct dpk_bench_clock k = {.hz = 1000000000, .read_cost = 10, .granularity = 1};

	k.min_delta = 24; /* a guest's counter: changes of 24 and 25, GCD 1 */
	dpk_bench_clock_targets(&k);
	EXPECT_GE_F(k.target_single, 2400.0);
	k.min_delta = 5; /* the read cost is the coarser */
	dpk_bench_clock_targets(&k);
	EXPECT_GE_F(k.target_single, 1000.0);
	EXPECT_LT_F(k.target_single, 2400.0);
	k.granularity = 40; /* a counter that moves in 40s */
	k.min_delta = 40;
	dpk_bench_clock_targets(&k);
	EXPECT_GE_F(k.target_single, 4000.0);
	EXPECT_GE_F(k.target_multi, k.target_single);
}

static void default_spec_has_oversub_worker(void)
{
	struct dpk_lcore_spec spec;

	ASSERT_EQ(0, dpk_bench_lcore_spec(NULL, &spec));
	ASSERT_GE(spec.count, 3); /* main, a worker per CPU, one extra */
	/* the last lcore shares the first lcore's CPU */
	ASSERT_TRUE(dpk_cpuset_equal(&spec.cpus[0], &spec.cpus[spec.count - 1]));
	ASSERT_EQ(-EINVAL, dpk_bench_lcore_spec("0-", &spec));
	ASSERT_EQ(-ENODEV, dpk_bench_lcore_spec("0@1000", &spec)); /* beyond this machine */
	ASSERT_EQ(-EINVAL, dpk_bench_lcore_spec("0@4000", &spec)); /* beyond DPK_CPU_MAX */
}

static void default_spec_from_cpu_sets(void)
{
	struct dpk_cpuset cpus;
	char buf[64];

	dpk_cpuset_zero(&cpus);
	ASSERT_EQ(-ENODEV, dpk_bench_default_spec(&cpus, buf, sizeof(buf)));
	dpk_cpuset_set(&cpus, 0);
	dpk_cpuset_set(&cpus, 1);
	ASSERT_EQ(0, dpk_bench_default_spec(&cpus, buf, sizeof(buf)));
	EXPECT_STREQ("0@0,1@0,2@1,3@0", buf);
	dpk_cpuset_zero(&cpus);
	dpk_cpuset_set(&cpus, 5);
	ASSERT_EQ(0, dpk_bench_default_spec(&cpus, buf, sizeof(buf)));
	EXPECT_STREQ("0@5,1@5,2@5", buf);
	dpk_cpuset_set(&cpus, 900);
	ASSERT_EQ(0, dpk_bench_default_spec(&cpus, buf, sizeof(buf)));
	EXPECT_STREQ("0@5,1@5,2@900,3@5", buf);
	ASSERT_EQ(-ENOSPC, dpk_bench_default_spec(&cpus, buf, 12));
}

/* The default set stays within the affinity mask the process was started with (taskset, a
 * container's cpuset): here narrowed to the last CPU it may use. */
static void default_spec_keeps_to_affinity(void)
{
	struct dpk_lcore_spec spec;
	cpu_set_t saved, one;
	int last = -1;

	if (getenv("DPK_SYSFS_ROOT"))
		DPK_SKIP("the topology comes from another tree, whose CPUs the mask does not name");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(saved), &saved));
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &saved))
			last = c;
	ASSERT_GE(last, 0);
	CPU_ZERO(&one);
	CPU_SET(last, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	int rc = dpk_bench_lcore_spec(NULL, &spec);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(saved), &saved));
	ASSERT_EQ(0, rc);
	ASSERT_EQ(3, spec.count); /* main, one worker, the oversub worker */
	for (unsigned i = 0; i < spec.count; i++) {
		EXPECT_EQ((unsigned)last, dpk_cpuset_first(&spec.cpus[i]));
		EXPECT_EQ(1, dpk_cpuset_count(&spec.cpus[i]));
	}
}

static void single_case_gives_samples(void)
{
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
	dpk_bench_run_case(&runner, &suite, &c_single, DPK_PLACE_SINGLE, 0, &res);
	EXPECT_EQ(DPK_RESULT_OK, res.status);
	EXPECT_GT(res.samples, 0);
	EXPECT_EQ(res.reject[0], res.nraw);
	EXPECT_LE(res.reject[0], res.samples);
	EXPECT_GT(res.batch_ops, 0);
	EXPECT_LE_F(res.ticks.min, res.ticks.p50);
	EXPECT_LE_F(res.ticks.p50, res.ticks.p99);
	EXPECT_LE_F(res.ticks.p99, res.ticks.max);
	EXPECT_GT_F(res.mops, 0.0);
	dpk_bench_result_free(&res);
	stop();
}

/* ramp_factor (3) times the work per operation in its first ramp_dear slices (set-ups),
 * then one: a drift the raw samples must show, and slices the slow-round rule sets aside.
 * With ramp_up, the other way round. The body notes the batch sizes it is handed. */
static unsigned ramp_setups, ramp_dear = 4, ramp_factor = 3;
static bool ramp_up;
static uint64_t ramp_n_first, ramp_n_last; /* the first slice's last batch, the last one */

static int ramp_setup(struct dpk_bench_run *run)
{
	(void)run;
	ramp_setups++;
	return 0;
}

static uint64_t body_ramp_down(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	body_spin(run, role, (ramp_setups <= ramp_dear) != ramp_up ? ramp_factor * n : n);
	if (ramp_setups == 1) /* the first slice ends with batches of its calibrated size */
		ramp_n_first = n;
	ramp_n_last = n;
	return n;
}

static const struct dpk_bench_case c_ramp = {.name = "ramp",
                                             .desc = "dearer at first",
                                             .kind = DPK_BENCH_SINGLE,
                                             .unit = DPK_UNIT_ITERATION,
                                             .setup = ramp_setup,
                                             .body = body_ramp_down};

static double median_of(const double *v, size_t n)
{
	double *c = malloc(n * sizeof(*c));
	double m;

	memcpy(c, v, n * sizeof(*c));
	m = dpk_stats_median(c, n);
	free(c);
	return m;
}

/* body_frame's frame offset within its page plus the shift the harness asked for, lowest
 * and highest over every call; the shift of the slice's previous call; and how often the
 * shift moved by one step (208 bytes, 13 of a page's 256 16-byte places) or otherwise,
 * warm-up at shift 0 left out. */
static uintptr_t frame_lo, frame_hi;
static unsigned frame_setups, frame_last_setup, frame_last_shift, frame_steps, frame_jumps;

static int frame_setup(struct dpk_bench_run *run)
{
	(void)run;
	frame_setups++;
	return 0;
}

static uint64_t body_frame(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	const uintptr_t at = (uintptr_t)__builtin_frame_address(0) & 4095;
	const uintptr_t key = (at + dpk_bench_ctl_of(run)->stack_shift) & 4095;
	const unsigned shift = dpk_bench_ctl_of(run)->stack_shift;

	frame_lo = key < frame_lo ? key : frame_lo;
	frame_hi = key > frame_hi ? key : frame_hi;
	if (frame_last_setup == frame_setups && shift != frame_last_shift &&
	    frame_last_shift != 0) {
		if (shift == (frame_last_shift + 208) % 4096)
			frame_steps++;
		else
			frame_jumps++;
	}
	frame_last_setup = frame_setups;
	frame_last_shift = shift;
	return body_spin(run, role, n);
}

static const struct dpk_bench_case c_frame = {.name = "frame",
                                              .desc = "where the stack is",
                                              .kind = DPK_BENCH_SINGLE,
                                              .unit = DPK_UNIT_ITERATION,
                                              .setup = frame_setup,
                                              .body = body_frame};

/* Run c_frame from @p depth bytes further down the stack. */
__attribute__((noinline)) static void run_frame_case_below(size_t depth,
                                                           struct dpk_bench_result *res)
{
	volatile char *pad = __builtin_alloca(depth);

	pad[0] = 0;
	dpk_bench_run_case(&runner, &suite, &c_frame, DPK_PLACE_SINGLE, 0, res);
}

static void bodies_run_where_the_harness_puts_the_stack(void)
{
	/* Called from stacks at five offsets within a page, the body's frame sits exactly
	 * where each batch's shift puts it, and within a slice the shift moves one step at a
	 * time. */
	static const size_t depth[] = {16, 48, 1040, 2064, 4000};
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
	runner.opt.time_s = 0.04; /* 8 slices of 5 ms */
	frame_lo = UINTPTR_MAX;
	frame_hi = 0;
	frame_steps = frame_jumps = 0;
	for (unsigned i = 0; i < sizeof(depth) / sizeof(depth[0]); i++) {
		frame_setups = frame_last_setup = frame_last_shift = 0;
		run_frame_case_below(depth[i], &res);
		EXPECT_EQ(DPK_RESULT_OK, res.status);
		dpk_bench_result_free(&res);
	}
#if DPK_TEST_ASAN
	/* ASan aligns allocas to 32 bytes, so there the frame can sit 16 bytes off. */
	EXPECT_TRUE(frame_hi - frame_lo <= 16);
#else
	EXPECT_EQ(frame_lo, frame_hi);
#endif
	EXPECT_EQ(0, frame_jumps);
	EXPECT_GT(frame_steps, 0); /* 40 slices, each of one batch or more */
	stop();
}

/* Read the VmFlags line of the mapping in /proc/self/smaps that holds @p at into @p flags;
 * false when there is none (no smaps, or no such mapping). The rest of a line longer than
 * the buffer (a long file name) is skipped, not read as a line of its own. */
static bool read_vm_flags(const void *at, char *flags, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool inside = false, found = false, rest = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const bool start = !rest; /* the line starts here, not in the last read */
		unsigned long lo, hi;
		char dash;

		rest = strchr(line, '\n') == NULL;
		if (!start)
			continue;
		if (sscanf(line, "%lx%c%lx ", &lo, &dash, &hi) == 3 && dash == '-')
			inside = (uintptr_t)at >= lo && (uintptr_t)at < hi;
		else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(flags, len, "%s", line + 8);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static char arena_flags[512];
static bool arena_flags_read;

static int flags_setup(struct dpk_bench_run *run)
{
	void *p = dpk_bench_alloc(run, 64, 64);

	if (!p)
		return -ENOMEM;
	arena_flags_read = read_vm_flags(p, arena_flags, sizeof(arena_flags));
	return 0;
}

static const struct dpk_bench_case c_flags = {.name = "flags",
                                              .desc = "reads its arena's flags",
                                              .kind = DPK_BENCH_SINGLE,
                                              .unit = DPK_UNIT_ITERATION,
                                              .setup = flags_setup,
                                              .body = body_spin};

static void arenas_are_kept_off_huge_pages(void)
{
	/* The arena carries the kernel's no-huge-page advice ("nh" among its flags), so
	 * each slice draws its own 4 KB frames wherever transparent huge pages are on. */
	struct dpk_bench_result res;

	if (!read_vm_flags((const void *)&runner, arena_flags, sizeof(arena_flags)))
		DPK_SKIP("no VmFlags in /proc/self/smaps");
	if (access("/sys/kernel/mm/transparent_hugepage", F_OK) != 0)
		DPK_SKIP("the kernel has no transparent huge pages");
	ASSERT_EQ(0, start("0"));
	arena_flags_read = false;
	dpk_bench_run_case(&runner, &suite, &c_flags, DPK_PLACE_SINGLE, 0, &res);
	EXPECT_EQ(DPK_RESULT_OK, res.status);
	dpk_bench_result_free(&res);
	ASSERT_TRUE(arena_flags_read);
	EXPECT_TRUE(strstr(arena_flags, " nh") != NULL);
	stop();
}

/* Where each round's first allocations fell within their page, and whether an allocation
 * asking for a page's alignment got it. */
static uint64_t arena_lines_seen;
static unsigned arena_setups;
static bool arena_page_aligned = true;
static long long arena_offsets[128]; /* the pool offset each round's arena maps, -1: none */

/* The file offset /proc/self/maps gives the mapping of @p addr, when it maps the arena's
 * pool of frames; -1 otherwise. */
static long long pool_offset_of(uintptr_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	long long found = -1;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		unsigned long long off;

		if (sscanf(line, "%lx-%lx %*s %llx", &lo, &hi, &off) == 3 && addr >= lo &&
		    addr < hi && strstr(line, "dpk-bench-arena"))
			found = (long long)off;
	}
	if (f)
		fclose(f);
	return found;
}

static int offsets_setup(struct dpk_bench_run *run)
{
	uintptr_t a = (uintptr_t)dpk_bench_alloc(run, 100, 64);
	uintptr_t b = (uintptr_t)dpk_bench_alloc(run, 64, 4096);

	if (!a || !b)
		return -ENOMEM;
	arena_lines_seen |= UINT64_C(1) << ((a % 4096) / 64);
	arena_page_aligned &= b % 4096 == 0 && b > a;
	if (arena_setups < 128)
		arena_offsets[arena_setups] = pool_offset_of(a);
	arena_setups++;
	return 0;
}

static const struct dpk_bench_case c_offsets = {.name = "offsets",
                                                .desc = "logs its arena's offsets",
                                                .kind = DPK_BENCH_SINGLE,
                                                .unit = DPK_UNIT_ITERATION,
                                                .setup = offsets_setup,
                                                .body = body_spin};

/* Each round starts its allocations at another line of the page, 64 rounds taking all 64,
 * on other frames: a window onto the pool of frames at another page; the alignment an
 * allocation asks for still holds. */
static void arena_offset_moves_round_to_round(void)
{
	const struct dpk_bench_case *cases[1] = {&c_offsets};
	const struct dpk_bench_suite *suites[1] = {&suite};
	struct dpk_bench_result res;

	for (unsigned q = 0; q < 64; q++)
		for (unsigned p = 0; p < q; p++)
			ASSERT_TRUE(dpk_bench_arena_shift_of(q) != dpk_bench_arena_shift_of(p));
	ASSERT_EQ(0, start("0"));
	runner.opt.rounds = 64;
	runner.opt.time_s = 64 * DPK_BENCH_SLICE_MIN_S;
	/* Exactly 64 rounds: on a busy machine the speed witness would add more. */
	runner.opt.slow_limit = 0;
	arena_lines_seen = 0;
	arena_setups = 0;
	dpk_bench_run_rounds(&runner, suites, cases, 1, 0, &res, NULL, NULL);
	EXPECT_EQ(DPK_RESULT_OK, res.status);
	EXPECT_EQ(64, res.witness_slices);
	EXPECT_TRUE(arena_setups >= 64);
	EXPECT_TRUE(arena_lines_seen == UINT64_MAX);
	EXPECT_TRUE(arena_page_aligned);
	/* Every round maps its own window of the pool. */
	unsigned distinct = 0;
	for (unsigned i = 0; i < arena_setups && i < 128; i++) {
		bool seen = false;

		EXPECT_TRUE(arena_offsets[i] >= 0);
		for (unsigned k = 0; k < i; k++)
			seen |= arena_offsets[k] == arena_offsets[i];
		distinct += !seen;
	}
	EXPECT_TRUE(distinct >= 64);
	dpk_bench_result_free(&res);
	stop();
}

/* The set-ups of two interleaved variants, in order: which variant, for which round. */
enum { TURN_LOG = 4096 };
static struct turn {
	unsigned variant, round;
} turn_log[TURN_LOG];
static unsigned turns;

static int setup_turn_log(struct dpk_bench_run *run)
{
	if (turns < TURN_LOG)
		turn_log[turns++] = (struct turn){run->c->params[0].value != 0,
		                                  dpk_bench_ctl_of(run)->arena_round};
	return 0;
}

#define VARIANT_CASE(v)                                                                            \
	{                                                                                          \
		.name = "var", .desc = "variant " #v, .kind = DPK_BENCH_SINGLE,                    \
		.unit = DPK_UNIT_ITERATION, .params = {{"v", v}}, .setup = setup_turn_log,         \
		.body = body_spin                                                                  \
	}

static const struct dpk_bench_case c_var0 = VARIANT_CASE(0), c_var1 = VARIANT_CASE(1);

static void interleaved_variants_take_turns_round_by_round(void)
{
	/* Every round sets up each variant once, round q starting with variant q % 2, and the
	 * paired ratio comes from those rounds: the reference's is 1 exactly. */
	const struct dpk_bench_suite *suites[2] = {&suite, &suite};
	const struct dpk_bench_case *cases[2] = {&c_var0, &c_var1};
	struct dpk_bench_result res[2];

	ASSERT_EQ(0, start("0"));
	runner.opt.time_s = 0.08;
	runner.opt.rounds = 8;
	turns = 0;
	dpk_bench_run_interleaved(&runner, suites, cases, 2, 0, res);
	ASSERT_EQ(DPK_RESULT_OK, res[0].status);
	ASSERT_EQ(DPK_RESULT_OK, res[1].status);
	ASSERT_EQ(res[0].witness_slices, res[1].witness_slices);
	ASSERT_EQ(2 * res[0].witness_slices, turns);
	for (unsigned t = 0; t < turns; t++) {
		const unsigned q = t / 2;

		EXPECT_EQ(q, turn_log[t].round);
		EXPECT_EQ((q + t % 2) % 2, turn_log[t].variant);
	}
	for (unsigned i = 0; i < 2; i++) {
		EXPECT_TRUE(res[i].interleaved);
		EXPECT_TRUE(res[i].ref_case == &c_var0);
		EXPECT_EQ(2, res[i].group_size);
		/* The reference pairs with itself in every round; the other member may lose a
		 * round or all of them to a host whose speed changed between two slices. */
		if (i == 0)
			EXPECT_GT(res[i].pair_rounds, 0);
		EXPECT_TRUE(res[i].pair_rounds <= res[i].witness_slices);
		EXPECT_EQ(res[i].cycles.n > 0 && res[0].cycles.n > 0, res[i].pair_cycles);
		if (i > 0 && res[i].pair_rounds < DPK_BENCH_PAIR_ROUNDS_MIN) {
			/* a slow host left too few rounds kept for an interval */
			EXPECT_TRUE(isnan(res[i].pair_ratio.p50_lo) && isnan(res[i].pair_ratio.p50_hi));
			continue;
		}
		EXPECT_TRUE(res[i].pair_ratio.p50_lo <= res[i].pair_ratio.p50);
		EXPECT_TRUE(res[i].pair_ratio.p50 <= res[i].pair_ratio.p50_hi);
	}
	EXPECT_EQ(1.0, res[0].pair_ratio.p50);
	for (unsigned i = 0; i < 2; i++)
		dpk_bench_result_free(&res[i]);
	stop();
}

/* The ramp case in 8 slices, dear by @p factor, the slow rules off (a started runner). */
static void run_ramp(unsigned factor, struct dpk_bench_result *res)
{
	runner.opt.time_s = 0.04;
	runner.opt.slow_limit = 0;
	ramp_setups = 0;
	ramp_n_first = ramp_n_last = 0;
	ramp_factor = factor;
	dpk_bench_run_case(&runner, &suite, &c_ramp, DPK_PLACE_SINGLE, 0, res);
	ramp_factor = 3;
}

static void raw_samples_keep_their_order(void)
{
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
	run_ramp(3, &res); /* 4 dear slices, then 4 cheap */
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	ASSERT_EQ(8, ramp_setups);
	ASSERT_GT(res.nraw, 100);
	/* The raw samples are the kept ones the summary is made of (dpk_stats_kept_ticks(),
	 * tested on set data in test_bench_stats, keeps their order)... */
	EXPECT_EQ(res.reject[0], res.nraw);
	EXPECT_TRUE(median_of(res.raw, res.nraw) == res.ticks.p50);
	/* ...and the summary's sort left them alone: in the order taken, the dear samples of
	 * the first slices come before the cheap ones, so they cannot be ascending. */
	size_t falls = 0;

	for (size_t i = 1; i < res.nraw; i++)
		falls += res.raw[i] < res.raw[i - 1];
	EXPECT_GT(falls, 0);
	dpk_bench_result_free(&res);
	stop();
}

static void batches_grow_back_when_operations_get_cheaper(void)
{
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
	run_ramp(10, &res); /* 4 dear slices, then 4 cheap */
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	ASSERT_EQ(8, ramp_setups);
	/* Calibrated on the dear operations, the batches are a tenth of the sample target
	 * once they get cheap; the fifth slice's warm-up grows them back (to about ten times;
	 * a third of that leaves room for a host slow during the warm-ups). */
	EXPECT_GE(ramp_n_last, 3 * ramp_n_first);
	EXPECT_EQ(ramp_n_last, res.batch_ops);
	/* The operations counted are those of the batches each sample took. */
	EXPECT_GT(res.role[0].ops, res.samples * ramp_n_first);
	EXPECT_LT(res.role[0].ops, res.samples * ramp_n_last);
	dpk_bench_result_free(&res);
	/* Dear operations later do not shrink the batches (a noisy calibration may still
	 * leave them to grow). */
	ramp_up = true;
	run_ramp(3, &res);
	ramp_up = false;
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	EXPECT_GE(ramp_n_last, ramp_n_first);
	EXPECT_GE(res.role[0].ops, res.samples * ramp_n_first);
	dpk_bench_result_free(&res);
	stop();
}

static void invariant_failure_is_reported(void)
{
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
	atomic_store(&fail_calls, 0);
	dpk_bench_run_case(&runner, &suite, &c_fail, DPK_PLACE_SINGLE, 0, &res);
	EXPECT_EQ(DPK_RESULT_FAILED, res.status);
	EXPECT_STREQ("invariant 42 broke", res.reason);
	dpk_bench_result_free(&res);
	stop();
}

static void pair_case_counts_only_counted_role(void)
{
	struct dpk_bench_result res;

	if (!have_two_cpus())
		DPK_SKIP("needs two online CPUs");
	ASSERT_EQ(0, start(NULL));
	/* Two lcores on one CPU move only at context switches: 20 ms may hold none under a
	 * sanitizer on a busy machine, 200 ms holds many. */
	runner.opt.time_s = 0.2;
	dpk_bench_run_case(&runner, &suite, &c_pair, DPK_PLACE_OVERSUB, 0, &res);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	ASSERT_EQ(2, res.nroles);
	EXPECT_FALSE(res.role[0].counted);
	EXPECT_TRUE(res.role[1].counted);
	EXPECT_EQ(res.samples, res.role[1].samples);
	EXPECT_EQ(res.role[0].cpu, res.role[1].cpu); /* oversub: one CPU */
	EXPECT_EQ(0, res.role[1].batch_ops % 4);     /* ops_multiple honoured */
	dpk_bench_result_free(&res);
	stop();
}

static void blocked_role_ends_on_stop(void)
{
	struct dpk_bench_result res;

	if (!have_two_cpus())
		DPK_SKIP("needs two online CPUs");
	ASSERT_EQ(0, start(NULL));
	/* Role 1 never completes a batch: the case must still end, and say so without
	 * calling it a failure of the code under test. */
	dpk_bench_run_case(&runner, &suite, &c_wait, DPK_PLACE_OVERSUB, 0, &res);
	EXPECT_EQ(DPK_RESULT_EMPTY, res.status);
	EXPECT_TRUE(strstr(res.reason, "no complete sample") != NULL);
	dpk_bench_result_free(&res);
	stop();
}

/* The main lcore sleeps out a multi-lcore budget in one wait; a failing role must cut it
 * short. With an hour's budget, a wait that missed the wake-up would outlast the test's
 * CTest timeout. */
static void failing_pair_ends_before_its_budget(void)
{
	struct dpk_bench_result res;

	/* oversub: two lcores on one CPU, which the default set has on any machine */
	ASSERT_EQ(0, start(NULL));
	atomic_store(&fail_calls, 0);
	runner.opt.warmup_s = 3600;
	runner.opt.time_s = 3600;
	dpk_bench_run_case(&runner, &suite, &c_pair_fail, DPK_PLACE_OVERSUB, 0, &res);
	EXPECT_EQ(DPK_RESULT_FAILED, res.status);
	EXPECT_STREQ("invariant 42 broke", res.reason);
	dpk_bench_result_free(&res);
	stop();
}

static void missing_placements_are_skipped(void)
{
	struct dpk_bench_result res;
	unsigned a, b;
	char why[160];

	ASSERT_EQ(0, start("0,1@0"));
	/* only one worker: no pair at all */
	EXPECT_FALSE(
	        dpk_bench_placement_available(&runner, DPK_PLACE_CORE, &a, &b, why, sizeof(why)));
	EXPECT_TRUE(why[0] != '\0');
	dpk_bench_run_case(&runner, &suite, &c_pair, DPK_PLACE_NUMA, 0, &res);
	EXPECT_EQ(DPK_RESULT_SKIPPED, res.status);
	EXPECT_TRUE(res.reason[0] != '\0');
	dpk_bench_result_free(&res);
	dpk_bench_run_case(&runner, &suite, &c_all, DPK_PLACE_ALL, 0, &res);
	/* It runs on its one worker; on a busy machine that worker, which shares CPU 0 with
	 * the main lcore, may finish no sample in the tiny budget: empty, not skipped. */
	EXPECT_TRUE(res.status == DPK_RESULT_OK || res.status == DPK_RESULT_EMPTY);
	EXPECT_EQ(1, res.nroles);
	dpk_bench_result_free(&res);
	stop();
}

static int setup_absent(struct dpk_bench_run *run)
{
	dpk_bench_fail(run, "library %s cannot start", "L");
	return -ENODEV;
}

static int setup_nodev(struct dpk_bench_run *run)
{
	(void)run;
	return -ENODEV;
}

static const struct dpk_bench_case c_absent = {.name = "absent",
                                               .desc = "needs what is not here",
                                               .kind = DPK_BENCH_SINGLE,
                                               .unit = DPK_UNIT_ITERATION,
                                               .setup = setup_absent,
                                               .body = body_spin};
static const struct dpk_bench_case c_nodev = {.name = "nodev",
                                              .desc = "needs more lcores",
                                              .kind = DPK_BENCH_SINGLE,
                                              .unit = DPK_UNIT_ITERATION,
                                              .setup = setup_nodev,
                                              .body = body_spin};

/* A set-up's -ENODEV skips the case, with the reason it gave or one of the harness's; in
 * an interleaved group the others still run, without a paired ratio to a skipped
 * reference. */
static void nodev_setups_are_skipped_with_their_reason(void)
{
	const struct dpk_bench_suite *suites[2] = {&suite, &suite};
	const struct dpk_bench_case *cases[2] = {&c_single, &c_absent};
	struct dpk_bench_result res, two[2];

	ASSERT_EQ(0, start("0"));
	dpk_bench_run_case(&runner, &suite, &c_absent, DPK_PLACE_SINGLE, 0, &res);
	EXPECT_EQ(DPK_RESULT_SKIPPED, res.status);
	EXPECT_STREQ("library L cannot start", res.reason);
	dpk_bench_result_free(&res);
	dpk_bench_run_case(&runner, &suite, &c_nodev, DPK_PLACE_SINGLE, 0, &res);
	EXPECT_EQ(DPK_RESULT_SKIPPED, res.status);
	EXPECT_TRUE(strstr(res.reason, "-ENODEV") != NULL);
	dpk_bench_result_free(&res);
	dpk_bench_run_interleaved(&runner, suites, cases, 2, 0, two);
	EXPECT_EQ(DPK_RESULT_OK, two[0].status);
	EXPECT_GT(two[0].pair_rounds, 0);
	EXPECT_EQ(DPK_RESULT_SKIPPED, two[1].status);
	EXPECT_STREQ("library L cannot start", two[1].reason);
	EXPECT_EQ(0, two[1].pair_rounds);
	for (unsigned i = 0; i < 2; i++)
		dpk_bench_result_free(&two[i]);
	cases[0] = &c_absent;
	cases[1] = &c_single;
	dpk_bench_run_interleaved(&runner, suites, cases, 2, 0, two);
	EXPECT_EQ(DPK_RESULT_SKIPPED, two[0].status);
	EXPECT_EQ(DPK_RESULT_OK, two[1].status);
	EXPECT_EQ(0, two[1].pair_rounds);
	for (unsigned i = 0; i < 2; i++)
		dpk_bench_result_free(&two[i]);
	stop();
}

static void all_takes_one_worker_per_cpu(void)
{
	struct dpk_bench_result res;
	/* Before start(), which pins this thread to the main lcore's CPU. */
	unsigned cpus = usable_cpus();

	if (cpus < 2)
		DPK_SKIP("needs two online CPUs");
	ASSERT_EQ(0, start(NULL));
	dpk_bench_run_case(&runner, &suite, &c_all, DPK_PLACE_ALL, 0, &res);
	/* Its roles are placed whether or not a preempted machine lets one finish a sample
	 * in the tiny budget. */
	ASSERT_TRUE(res.status == DPK_RESULT_OK || res.status == DPK_RESULT_EMPTY);
	EXPECT_EQ(cpus, res.nroles);
	for (unsigned i = 0; i < res.nroles; i++)
		for (unsigned j = i + 1; j < res.nroles; j++)
			EXPECT_NE(res.role[i].cpu, res.role[j].cpu);
	dpk_bench_result_free(&res);
	stop();
}

/* Round floors for floors_move_and_rounds_are_set_aside: 100 ticks, but 500 after rounds 2
 * and 5 (the host moved the pair). */
static double scripted_floor(unsigned round, unsigned bracket)
{
	return bracket == 1 && (round == 2 || round == 5) ? 500.0 : 100.0;
}

/* Role 1 does eight times role 0's work per operation. */
static uint64_t body_uneven(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	uint64_t acc = 0, per = role == 1 ? 64 : 8;

	(void)run;
	for (uint64_t i = 0; i < n * per; i++)
		acc += i;
	DPK_BENCH_KEEP(acc);
	return n;
}

static const struct dpk_bench_case c_pair_uneven = {.name = "uneven",
                                                    .desc = "two counted roles, one slower",
                                                    .kind = DPK_BENCH_PAIR,
                                                    .unit = DPK_UNIT_ITERATION,
                                                    .counted_roles = 3,
                                                    .body = body_uneven};

/* With every role counted on CPUs of their own, the row and each round take the slowest
 * role's median, not the pooled samples' (where the faster role's many batches would set
 * it), and the rounds' kept samples still add up to the row's. */
static void several_counted_roles_take_the_slowest(void)
{
	struct dpk_bench_result res;
	unsigned a, b;
	char why[160];
	size_t kept = 0;

	if (!have_two_cpus())
		DPK_SKIP("needs two online CPUs");
	ASSERT_EQ(0, start(NULL));
	if (!dpk_bench_placement_available(&runner, DPK_PLACE_CORE, &a, &b, why, sizeof(why)))
		DPK_SKIP("no core placement");
	runner.opt.rounds = 8;
	runner.opt.time_s = 0.08;
	dpk_bench_run_case(&runner, &suite, &c_pair_uneven, DPK_PLACE_CORE, 0, &res);
	if (res.status == DPK_RESULT_EMPTY) { /* a host that kept the roles apart throughout */
		dpk_bench_result_free(&res);
		DPK_SKIP("no batch of the two roles overlapped");
	}
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	ASSERT_EQ_U(2, res.nroles);
	EXPECT_TRUE(res.role[0].counted && res.role[1].counted);
	if (res.role[0].ticks.n && res.role[1].ticks.n) {
		const struct dpk_summary *slow = res.role[1].ticks.p50 >= res.role[0].ticks.p50
		                                         ? &res.role[1].ticks
		                                         : &res.role[0].ticks;

		EXPECT_TRUE(slow->p50 == res.ticks.p50);
		EXPECT_EQ(slow->n, res.ticks.n);
	}
	for (unsigned q = 0; q < res.nrounds; q++)
		kept += res.rounds[q].kept;
	EXPECT_EQ(kept, res.reject[DPK_REJECT_NONE] + res.reject[DPK_REJECT_FLOOR]);
	dpk_bench_result_free(&res);
	stop();
}

/* A pair case on two CPUs runs in rounds, each bracketed by its own floor: rounds whose
 * floor moved off the case's are set aside and their samples counted as "floor", and the
 * figure over the floor is the kept rounds'. */
/* The runner on the default lcores, 8 rounds on the core placement with scripted_floor's
 * floors; the case is skipped without two CPUs. */
static void start_scripted_core(void)
{
	unsigned a, b;
	char why[160];

	if (!have_two_cpus())
		DPK_SKIP("needs two online CPUs");
	ASSERT_EQ(0, start(NULL));
	if (!dpk_bench_placement_available(&runner, DPK_PLACE_CORE, &a, &b, why, sizeof(why)))
		DPK_SKIP("no core placement");
	runner.opt.rounds = 8;
	runner.opt.time_s = 0.08;
	runner.floor_script = scripted_floor;
}

static void floors_move_and_rounds_are_set_aside(void)
{
	struct dpk_bench_result res;
	unsigned aside_kept = 0, kept = 0, kept_rounds = 0;

	start_scripted_core();
	dpk_bench_run_case(&runner, &suite, &c_pair, DPK_PLACE_CORE, 0, &res);
	runner.floor_script = NULL;
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	ASSERT_EQ_U(8, res.nrounds);
	EXPECT_EQ_U(2, res.rounds_set_aside);
	ASSERT_NEAR(100.0, res.floor_ref, 1e-9);
	ASSERT_NEAR(100.0, res.floor_rt, 1e-9);
	ASSERT_NEAR(100.0, res.floor_min, 1e-9);
	ASSERT_NEAR(500.0, res.floor_max, 1e-9);
	for (unsigned q = 0; q < res.nrounds; q++) {
		EXPECT_EQ(q == 2 || q == 5, res.rounds[q].set_aside);
		if (res.rounds[q].set_aside)
			aside_kept += res.rounds[q].kept;
		else
			kept += res.rounds[q].kept;
		kept_rounds += !res.rounds[q].set_aside && res.rounds[q].kept > 0;
	}
	EXPECT_EQ(aside_kept, res.reject[DPK_REJECT_FLOOR]);
	EXPECT_EQ(kept, res.reject[0]);
	EXPECT_EQ_U(kept_rounds, res.per_floor.n);
	dpk_bench_result_free(&res);
	stop();
}

static const struct dpk_bench_case c_pair_var0 = {.name = "pvar",
                                                  .desc = "pair variant 0",
                                                  .kind = DPK_BENCH_PAIR,
                                                  .unit = DPK_UNIT_ITERATION,
                                                  .counted_roles = 2,
                                                  .params = {{"v", 0}},
                                                  .body = body_spin},
                                 c_pair_var1 = {.name = "pvar",
                                                .desc = "pair variant 1",
                                                .kind = DPK_BENCH_PAIR,
                                                .unit = DPK_UNIT_ITERATION,
                                                .counted_roles = 2,
                                                .params = {{"v", 1}},
                                                .body = body_uneven};

/* Two pair variants interleaved run in the same rounds, each slice beside its own floor;
 * the ratio per round is over the rounds both kept and neither set aside (rounds 2 and 5
 * of scripted_floor), in ticks, and its median is the median of those rounds' ratios. */
static void interleaved_pairs_pair_round_by_round(void)
{
	struct dpk_bench_item items[2] = {{&suite, &c_pair_var0, DPK_PLACE_CORE},
	                                  {&suite, &c_pair_var1, DPK_PLACE_CORE}};
	struct dpk_bench_result res[2];
	double want[8];
	unsigned k = 0;

	start_scripted_core();
	dpk_bench_run_interleaved_multi(&runner, items, 2, 0, res);
	runner.floor_script = NULL;
	for (unsigned i = 0; i < 2; i++) {
		ASSERT_EQ(DPK_RESULT_OK, res[i].status);
		ASSERT_EQ_U(8, res[i].nrounds);
		EXPECT_TRUE(res[i].interleaved);
		EXPECT_TRUE(res[i].ref_case == &c_pair_var0);
		EXPECT_EQ_U(2, res[i].group_size);
		EXPECT_FALSE(res[i].pair_cycles);
		EXPECT_FALSE(res[i].pair_as_run);
		EXPECT_EQ_U(2, res[i].rounds_set_aside);
	}
	for (unsigned q = 0; q < 8; q++) {
		const struct dpk_bench_round *x = &res[0].rounds[q], *y = &res[1].rounds[q];

		EXPECT_EQ(q == 2 || q == 5, x->set_aside);
		EXPECT_EQ(q == 2 || q == 5, y->set_aside);
		if (x->kept && y->kept && !x->set_aside && !y->set_aside)
			want[k++] = y->p50 / x->p50;
	}
	EXPECT_EQ_U(k, res[1].pair_rounds);
	EXPECT_TRUE(k <= 6);
	if (k > 0)
		ASSERT_NEAR(dpk_stats_median(want, k), res[1].pair_ratio.p50, 1e-9);
	if (k < DPK_BENCH_PAIR_ROUNDS_MIN)
		EXPECT_TRUE(isnan(res[1].pair_ratio.p50_lo));
	ASSERT_NEAR(1.0, res[0].pair_ratio.p50, 1e-12);
	dpk_bench_result_free(&res[0]);
	dpk_bench_result_free(&res[1]);
	stop();
}

static atomic_uint regime_setups;

static int regime_setup(struct dpk_bench_run *run)
{
	(void)run;
	atomic_fetch_add(&regime_setups, 1);
	return 0;
}

/* Every other set-up, the body costs four times as much: two regimes. */
static uint64_t body_regimes(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	const unsigned reps = atomic_load(&regime_setups) % 2 ? 4 : 1;
	uint64_t acc = 0;

	(void)run;
	(void)role;
	for (uint64_t i = 0; i < n; i++)
		for (unsigned k = 0; k < reps * 16; k++) {
			acc += i ^ k;
			DPK_BENCH_KEEP(acc);
		}
	return n;
}

static const struct dpk_bench_case c_regimes = {.name = "regimes",
                                                .desc = "two costs",
                                                .kind = DPK_BENCH_SINGLE,
                                                .unit = DPK_UNIT_ITERATION,
                                                .setup = regime_setup,
                                                .body = body_regimes};

/* Rounds that fall into clusters apart are reported as regimes, each with its rounds, and
 * the rounds' medians are kept per round. Two costs x4 apart give at least two; a round
 * the host slowed (a sanitizer build beside other tests) may make a third of its own. */
static void rounds_apart_are_regimes(void)
{
	struct dpk_bench_result res;
	unsigned in_clusters = 0;

	ASSERT_EQ(0, start("0"));
	runner.opt.rounds = 10;
	runner.opt.time_s = 0.1;
	runner.opt.slow_limit = 0; /* the slow-round rule would set the slow regime aside */
	dpk_bench_run_case(&runner, &suite, &c_regimes, DPK_PLACE_SINGLE, 0, &res);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	ASSERT_EQ_U(10, res.nrounds);
	ASSERT_TRUE(res.nclusters >= 2);
	for (unsigned c = 0; c < res.nclusters; c++)
		in_clusters += res.cluster[c].rounds;
	EXPECT_EQ_U(10, in_clusters);
	EXPECT_TRUE(res.cluster[res.nclusters - 1].p50 > 2.0 * res.cluster[0].p50);
	EXPECT_EQ_U(10, res.round_p50.n);
	dpk_bench_result_free(&res);
	stop();
}

/* Set-up log of the rounds tests: one letter per set-up, in order. */
static char setup_log[64];
static unsigned setups, teardowns;

static int log_setup(struct dpk_bench_run *run)
{
	const char *letter = run->c->arg;

	if (setups < sizeof(setup_log) - 1)
		setup_log[setups] = letter[0];
	setups++;
	return letter[0] == 'X' ? -ENOMEM : 0;
}

static void log_teardown(struct dpk_bench_run *run)
{
	(void)run;
	teardowns++;
}

#define LOGGED_CASE(letter)                                                                        \
	{                                                                                          \
		.name = "logged_" letter, .desc = "logs its set-ups", .kind = DPK_BENCH_SINGLE,    \
		.unit = DPK_UNIT_ITERATION, .body = body_spin, .setup = log_setup,                 \
		.teardown = log_teardown, .arg = letter                                            \
	}

static const struct dpk_bench_case c_log_a = LOGGED_CASE("A"), c_log_b = LOGGED_CASE("B"),
                                   c_log_x = LOGGED_CASE("X");

/* Scripted witness timings, by slice (set-ups so far, of both logged and ramp cases, so the
 * timings after a slice's set-up belong to it): 20 (slow against a best of 10: over the 25%
 * limit) in the first wit_slow_slices slices, 10 after them. */
static unsigned wit_slow_slices;

static double wit_script(void)
{
	return setups + ramp_setups <= wit_slow_slices ? 20.0 : 10.0;
}

static size_t total_samples(const struct dpk_bench_result *r)
{
	size_t n = 0;

	for (unsigned i = 0; i < DPK_REJECT_COUNT; i++)
		n += r->reject[i];
	return n;
}

/* Put scripted @p timing in the runner's witness, with an empty log whose clock check read
 * @p best. */
static void reset_witness(double (*timing)(void), double best)
{
	runner.witness_time = timing;
	free(runner.witness.v);
	memset(&runner.witness, 0, sizeof(runner.witness));
	runner.witness.best = runner.witness.check = best;
}

/* Run @p cases in @p rounds rounds, the witness timing slow in its first @p slow_slices
 * slices and fast after them (0: always fast, so no round is added). */
static void run_logged(const struct dpk_bench_case *const *cases, unsigned k, unsigned rounds,
                       unsigned slow_slices, struct dpk_bench_result *res)
{
	const struct dpk_bench_suite *suites[4] = {&suite, &suite, &suite, &suite};

	reset_witness(wit_script, 10.0);
	wit_slow_slices = slow_slices;
	memset(setup_log, 0, sizeof(setup_log));
	setups = teardowns = ramp_setups = 0;
	runner.opt.rounds = rounds;
	dpk_bench_run_rounds(&runner, suites, cases, k, 0, res, NULL, NULL);
}

static void rounds_visit_cases_in_turn(void)
{
	const struct dpk_bench_case *cases[2] = {&c_log_a, &c_log_b};
	struct dpk_bench_result res[2];

	ASSERT_EQ(0, start("0"));
	/* 20 ms a case: at most four slices of DPK_BENCH_SLICE_MIN_S, whatever is asked. */
	run_logged(cases, 2, 40, 0, res);
	EXPECT_STREQ("ABBAABBA", setup_log);
	EXPECT_EQ(8, teardowns);
	for (unsigned i = 0; i < 2; i++) {
		EXPECT_EQ(DPK_RESULT_OK, res[i].status);
		EXPECT_GT(res[i].samples, 0);
		EXPECT_EQ(4, res[i].witness_slices);
		EXPECT_GE(res[i].witness_kept_rounds, 1);
		EXPECT_LE(res[i].witness_kept_rounds, 4);
		EXPECT_EQ(res[i].samples, total_samples(&res[i]));
		EXPECT_GT_F(res[i].elapsed_s, 0.0);
		dpk_bench_result_free(&res[i]);
	}
	/* One round: each case once, in order. */
	run_logged(cases, 2, 1, 0, res);
	EXPECT_STREQ("AB", setup_log);
	for (unsigned i = 0; i < 2; i++) {
		EXPECT_EQ(DPK_RESULT_OK, res[i].status);
		EXPECT_EQ(0, res[i].reject[DPK_REJECT_SLOW]); /* one round: nothing to compare */
		dpk_bench_result_free(&res[i]);
	}
	stop();
}

static void rounds_drop_only_the_failed_case(void)
{
	const struct dpk_bench_case *cases[3] = {&c_log_a, &c_log_x, &c_fail};
	struct dpk_bench_result res[3];

	ASSERT_EQ(0, start("0"));
	atomic_store(&fail_calls, 0);
	run_logged(cases, 3, 2, 0, res);
	/* X fails its set-up in round 0 and is not set up again; A runs both rounds. */
	EXPECT_STREQ("AXA", setup_log);
	EXPECT_EQ(DPK_RESULT_OK, res[0].status);
	EXPECT_GT(res[0].samples, 0);
	EXPECT_EQ(DPK_RESULT_FAILED, res[1].status);
	EXPECT_STREQ("setup: Cannot allocate memory", res[1].reason);
	EXPECT_EQ(DPK_RESULT_FAILED, res[2].status);
	EXPECT_STREQ("invariant 42 broke", res[2].reason);
	for (unsigned i = 0; i < 3; i++)
		dpk_bench_result_free(&res[i]);
	stop();
}

static void run_witnessed(unsigned slow_slices, double slow_limit, struct dpk_bench_result *res)
{
	const struct dpk_bench_case *cases[2] = {&c_log_a, &c_log_b};

	runner.opt.slow_limit = slow_limit;
	run_logged(cases, 2, 4, slow_slices, res);
}

/* The run's witness log against results @p res[0..k-1]: rounds run, of them extra; every
 * sample judged, the slow ones those the results did not find fast, set aside (less those
 * another rule took first) or not. */
static void expect_witness_log(unsigned rounds, unsigned extra, const struct dpk_bench_result *res,
                               unsigned k, bool set_aside)
{
	size_t samples = 0, slow = 0, slices = 0, other = 0;

	for (unsigned i = 0; i < k; i++) {
		samples += res[i].samples;
		slow += res[i].samples - res[i].witness_fast;
		slices += res[i].witness_slices;
		other += res[i].reject[DPK_REJECT_MIGRATION] +
		         res[i].reject[DPK_REJECT_CTX_SWITCH] + res[i].reject[DPK_REJECT_GAP];
	}
	EXPECT_EQ(rounds, runner.witness.rounds);
	EXPECT_EQ(extra, runner.witness.extra);
	EXPECT_EQ(samples, runner.witness.samples);
	EXPECT_EQ(slow, runner.witness.slow);
	if (set_aside) {
		EXPECT_LE(runner.witness.set_aside, slow);
		EXPECT_GE(runner.witness.set_aside + other, slow); /* other rules go first */
	} else {
		EXPECT_EQ(0, runner.witness.set_aside);
	}
	/* Readings: one per DPK_WITNESS_TIMINGS timings in a row within a slice, and a slice
	 * has one timing more than samples. */
	EXPECT_GE(runner.witness.n, 1);
	EXPECT_LE(runner.witness.n, (samples + slices) / DPK_WITNESS_TIMINGS);
}

static void witness_slow_samples_are_replaced(void)
{
	struct dpk_bench_result res[2];

	ASSERT_EQ(0, start("0"));
	/* 20 ms a case, 4 slices of 5 ms, two cases: the first 7 slices are slow throughout and
	 * the eighth (A's last) fast, so the run's own readings set the reference at full
	 * speed and B has no fast sample; one extra round brings B a slice of them, more than
	 * an eighth of its planned rounds' samples. A slow limit of 1000% keeps the case's own
	 * round rule from setting anything aside: what goes, the witness sent. */
	run_witnessed(7, 10.0, res);
	/* One extra round is enough, unless preemption cut its slices short. */
	EXPECT_EQ(0, strncmp(setup_log, "ABBAABBAAB", 10));
	EXPECT_GE(runner.witness.rounds, 5);
	expect_witness_log(runner.witness.rounds, runner.witness.rounds - 4, res, 2, true);
	EXPECT_TRUE(runner.witness.best == 10.0);
	EXPECT_TRUE(runner.witness.ref == 10.0); /* the extra rounds' readings */
	EXPECT_FALSE(runner.witness.ref_check);
	for (unsigned i = 0; i < 2; i++) {
		ASSERT_EQ(DPK_RESULT_OK, res[i].status);
		EXPECT_EQ(runner.witness.rounds, res[i].witness_slices);
		EXPECT_FALSE(res[i].witness_kept_slow);
		/* Kept samples come from the extra rounds alone, and A's from its fast last
		 * planned slice. */
		EXPECT_GE(res[i].witness_kept_rounds, 1);
		EXPECT_LE(res[i].witness_kept_rounds, runner.witness.rounds - 4 + (i == 0));
		EXPECT_GT(res[i].witness_fast, 0);
		EXPECT_LT(res[i].witness_fast, res[i].samples);
		/* Kept: fast samples only. Set aside as slow: the others, less those another
		 * rule (migration, preemption, gap) took first. */
		EXPECT_GT(res[i].reject[0], 0);
		EXPECT_LE(res[i].reject[0], res[i].witness_fast);
		EXPECT_GT(res[i].reject[DPK_REJECT_SLOW], 0);
		EXPECT_LE(res[i].reject[DPK_REJECT_SLOW], res[i].samples - res[i].witness_fast);
		EXPECT_EQ(res[i].samples, total_samples(&res[i]));
		EXPECT_TRUE(res[i].witness_kept_p50 == 10.0);
		dpk_bench_result_free(&res[i]);
	}
	EXPECT_EQ(0, dpk_bench_witness_finish(&runner, res, 2));
	stop();
}

static void witness_always_slow_keeps_the_samples(void)
{
	struct dpk_bench_result res[2];

	ASSERT_EQ(0, start("0"));
	/* Every reading of the run at 20 and the clock check's at 10: the check's readings,
	 * back to back, are no judge of the run's, so the run's own are its reference and no
	 * sample is slow by them. */
	run_witnessed(1000, 10.0, res);
	EXPECT_EQ(8, setups);
	expect_witness_log(4, 0, res, 2, false);
	EXPECT_TRUE(runner.witness.ref == 20.0);
	EXPECT_FALSE(runner.witness.ref_check);
	EXPECT_EQ(0, dpk_bench_witness_finish(&runner, res, 2));
	for (unsigned i = 0; i < 2; i++) {
		ASSERT_EQ(DPK_RESULT_OK, res[i].status);
		EXPECT_FALSE(res[i].witness_slow_only);
		EXPECT_EQ(4, res[i].witness_slices);
		EXPECT_EQ(res[i].samples, res[i].witness_fast);
		EXPECT_EQ(0, res[i].reject[DPK_REJECT_SLOW]);
		EXPECT_FALSE(res[i].witness_kept_slow);
		EXPECT_TRUE(res[i].witness_kept_p50 == 20.0);
		dpk_bench_result_free(&res[i]);
	}
	stop();
}

static void witness_rules_off_with_slow_limit_0(void)
{
	struct dpk_bench_result res[2];

	ASSERT_EQ(0, start("0"));
	/* The slow rules off: the planned rounds only (the first two of them slow), every
	 * sample kept as far as speed goes, the timings still judged and logged. */
	run_witnessed(4, 0, res);
	EXPECT_STREQ("ABBAABBA", setup_log);
	expect_witness_log(4, 0, res, 2, false);
	EXPECT_GT(runner.witness.slow, 0);
	for (unsigned i = 0; i < 2; i++) {
		ASSERT_EQ(DPK_RESULT_OK, res[i].status);
		EXPECT_EQ(4, res[i].witness_slices);
		EXPECT_GT(res[i].witness_fast, 0);
		EXPECT_LT(res[i].witness_fast, res[i].samples);
		EXPECT_EQ(0, res[i].reject[DPK_REJECT_SLOW]);
		dpk_bench_result_free(&res[i]);
	}
	stop();
}

/* Timings slow at every fifth call within a slice (the first, after the warm-up, is call 0),
 * or, with wit_fast_calls set, slow from that call on. */
static unsigned wit_call, wit_call_setups, wit_fast_calls;
/* Timings taken in each slice so far: a slice of n samples takes n + 1. */
static unsigned wit_slice_calls[8], wit_slices;

static bool call_is_slow(size_t c)
{
	return wit_fast_calls ? c >= wit_fast_calls : c % 5 == 0;
}

static double wit_by_call(void)
{
	if (wit_call_setups != setups) { /* a new slice */
		wit_call_setups = setups;
		wit_call = 0;
		wit_slices++;
	}
	if (wit_slices <= 8)
		wit_slice_calls[wit_slices - 1]++;
	return call_is_slow(wit_call++) ? 20.0 : 10.0;
}

/* Samples 1..n of a slice whose timings 0..n are slow where wit_by_call says: sample i lies
 * between timings i - 1 and i. */
static size_t slow_by_call(size_t n)
{
	size_t slow = 0;

	for (size_t i = 1; i <= n; i++)
		slow += call_is_slow(i - 1) || call_is_slow(i);
	return slow;
}

/* The samples slow_by_call finds slow over all slices, as many as each slice took: a
 * preempted slice holds fewer samples than the others. */
static size_t slow_by_slices(void)
{
	size_t slow = 0;

	for (unsigned i = 0; i < wit_slices && i < 8; i++)
		slow += wit_slice_calls[i] ? slow_by_call(wit_slice_calls[i] - 1) : 0;
	return slow;
}

/* The median witness timing of samples @p fast at 10 and @p slow at 20. */
static double p50_of(size_t fast, size_t slow)
{
	return slow > fast ? 20.0 : slow < fast ? 10.0 : 15.0;
}

static void run_by_call_for(unsigned fast_calls, double time_s, struct dpk_bench_result *res)
{
	const struct dpk_bench_suite *suites[1] = {&suite};
	const struct dpk_bench_case *cases[1] = {&c_log_a};

	reset_witness(wit_by_call, 10.0);
	runner.opt.rounds = 1;
	runner.opt.time_s = time_s;
	runner.opt.slow_limit = 10.0;
	wit_fast_calls = fast_calls;
	wit_call_setups = setups = ramp_setups = 0;
	wit_slices = 0;
	memset(wit_slice_calls, 0, sizeof(wit_slice_calls));
	dpk_bench_run_rounds(&runner, suites, cases, 1, 0, res, NULL, NULL);
}

static void run_by_call(unsigned fast_calls, struct dpk_bench_result *res)
{
	run_by_call_for(fast_calls, 0.1, res); /* a slice long enough to outlast a preemption */
}

/* Eight times the work in every third batch (under the gap rule's 10; two thirds stay
 * cheap, so the median is theirs): a slice of two batches or more always has batches a
 * counted switch can go to. */
static unsigned dear_calls;

static uint64_t body_now_and_then_dear(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	body_spin(run, role, ++dear_calls % 3 == 0 ? 8 * n : n);
	return n;
}

#define NOW_AND_THEN_DEAR(letter)                                                                  \
	{                                                                                          \
		.name = "dear_" letter, .desc = "dear now and then", .kind = DPK_BENCH_SINGLE,     \
		.unit = DPK_UNIT_ITERATION, .body = body_now_and_then_dear, .setup = log_setup,    \
		.arg = letter                                                                      \
	}

static const struct dpk_bench_case c_dear_a = NOW_AND_THEN_DEAR("A");

/* Scripted switch counts: none at all, or one more at every reading. */
static unsigned switch_reads;

static uint32_t no_switch(void)
{
	return 7;
}

static uint32_t one_switch_per_reading(void)
{
	return switch_reads++;
}

static void switches_are_counted_over_a_stretch(void)
{
	const struct dpk_bench_suite *suites[1] = {&suite};
	const struct dpk_bench_case *cases[1] = {&c_dear_a};
	struct dpk_bench_result res[1];

	/* A slice reads the count before its batches and after them: as many batches as the
	 * count grew are rejected, among that slice's (which ones: dpk_stats_give_switches(),
	 * tested in test_bench_stats). */
	ASSERT_EQ(0, start("0"));
	runner.opt.rounds = 4;
	/* 50 ms slices: a slice preempted from its first batch on for most of 10 ms held one
	 * or two batches, none dear enough next to its own median to take the switch. */
	runner.opt.time_s = 0.2;
	for (unsigned pass = 0; pass < 2; pass++) {
		reset_witness(wit_script, 10.0);
		wit_slow_slices = 0;
		runner.switches = pass ? one_switch_per_reading : no_switch;
		dpk_bench_run_rounds(&runner, suites, cases, 1, 0, &res[0], NULL, NULL);
		ASSERT_EQ(DPK_RESULT_OK, res[0].status);
		ASSERT_EQ(4, res[0].witness_slices);
		EXPECT_EQ(pass ? 4 : 0, res[0].reject[DPK_REJECT_CTX_SWITCH]);
		dpk_bench_result_free(&res[0]);
	}
	stop();
}

static void witness_judges_each_sample_by_both_timings(void)
{
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
	/* Every fifth timing slow: the samples on both sides of it are slow. One slice, or
	 * two if a preempted one held too few samples. */
	run_by_call(0, &res);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	ASSERT_GE(res.samples - slow_by_slices(), DPK_WITNESS_MIN_FAST);
	EXPECT_EQ(res.samples - slow_by_slices(), res.witness_fast);
	EXPECT_FALSE(res.witness_kept_slow);
	EXPECT_EQ(slow_by_slices(), runner.witness.slow);
	/* What the witness set aside, less what another rule had taken. */
	EXPECT_LE(runner.witness.set_aside, runner.witness.slow);
	EXPECT_LE(res.reject[DPK_REJECT_SLOW], runner.witness.slow);
	EXPECT_EQ(runner.witness.set_aside, res.reject[DPK_REJECT_SLOW]);
	EXPECT_LE(res.reject[0], res.witness_fast);
	EXPECT_TRUE(res.witness_kept_p50 == 10.0);
	dpk_bench_result_free(&res);
	stop();
}

static void witness_keeps_slow_samples_without_enough_fast_ones(void)
{
	struct dpk_bench_result res;
	bool mostly_slow;

	ASSERT_EQ(0, start("0"));
	/* The first eight timings of a slice fast, then slow: the first reading (the median of
	 * fifteen) is fast and sets the reference; seven fast samples, not an eighth of the
	 * slice's, so the one round --rounds 1 allows is added, and it reads the same: fourteen
	 * fast samples, under the 16 needed to set the others aside. 20 ms a slice keeps the
	 * readings under DPK_WITNESS_REF_RANK, so the reference is the fastest of them. */
	run_by_call_for(8, 0.02, &res);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	ASSERT_EQ(res.samples, wit_slice_calls[0] + wit_slice_calls[1] - wit_slices);
	/* A slice preempted down to a few samples has no eighth slow: no round added. */
	EXPECT_EQ(8 * 7 < wit_slice_calls[0] - 1 ? 2 : 1, runner.witness.rounds);
	EXPECT_EQ(runner.witness.rounds, wit_slices);
	EXPECT_EQ(res.samples - slow_by_slices(), res.witness_fast);
	EXPECT_LE(res.witness_fast, 2 * 7);
	EXPECT_TRUE(res.witness_kept_slow);
	EXPECT_EQ(0, runner.witness.set_aside);
	EXPECT_EQ(0, res.reject[DPK_REJECT_SLOW]);
	EXPECT_TRUE(res.witness_kept_p50 == p50_of(res.witness_fast, slow_by_slices()));
	/* Slow only unless preemption left fewer slow samples than fast ones. */
	mostly_slow = slow_by_slices() >= res.witness_fast;
	EXPECT_EQ(mostly_slow, dpk_bench_witness_finish(&runner, &res, 1));
	EXPECT_TRUE(res.witness_slow_only == mostly_slow);
	dpk_bench_result_free(&res);
	stop();
}

/* A case that fails in its second slice, after a first one of samples (it counts its
 * set-ups with the ramp case's counter). */
static uint64_t body_fails_late(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	body_spin(run, role, n);
	if (ramp_setups >= 2)
		dpk_bench_fail(run, "broke in slice %u", ramp_setups);
	return n;
}

static const struct dpk_bench_case c_fail_late = {.name = "fails_late",
                                                  .desc = "breaks in its second slice",
                                                  .kind = DPK_BENCH_SINGLE,
                                                  .unit = DPK_UNIT_ITERATION,
                                                  .setup = ramp_setup,
                                                  .body = body_fails_late};

static void witness_counts_leave_failed_cases_out(void)
{
	const struct dpk_bench_case *cases[2] = {&c_log_a, &c_fail_late};
	struct dpk_bench_result res[2];

	ASSERT_EQ(0, start("0"));
	runner.opt.slow_limit = 10.0;
	run_logged(cases, 2, 4, 1000, res);
	ASSERT_EQ(DPK_RESULT_OK, res[0].status);
	ASSERT_EQ(DPK_RESULT_FAILED, res[1].status);
	EXPECT_STREQ("broke in slice 2", res[1].reason);
	EXPECT_EQ(2, ramp_setups);
	/* The failed case's first slice of samples counts nowhere. */
	EXPECT_EQ(res[0].samples, runner.witness.samples);
	EXPECT_EQ(res[0].samples - res[0].witness_fast, runner.witness.slow);
	for (unsigned i = 0; i < 2; i++)
		dpk_bench_result_free(&res[i]);
	stop();
}

static void witness_judges_each_call_once(void)
{
	const struct dpk_bench_suite *suites[2] = {&suite, &suite};
	const struct dpk_bench_case *cases[2] = {&c_log_a, &c_log_b};
	struct dpk_bench_result res[4];

	ASSERT_EQ(0, start("0"));
	/* The first call times 20 throughout against a clock check of 20: all fast. The second
	 * times 10: the best drops, and the first call's samples stay judged as they were;
	 * judged once more at the end of the run, the first call's results are slow only. */
	runner.opt.slow_limit = 10.0;
	runner.opt.rounds = 4;
	reset_witness(wit_script, 20.0);
	setups = ramp_setups = 0;
	wit_slow_slices = 8;
	dpk_bench_run_rounds(&runner, suites, cases, 2, 0, res, NULL, NULL);
	EXPECT_EQ(0, runner.witness.slow);
	EXPECT_TRUE(runner.witness.best == 20.0);
	EXPECT_TRUE(runner.witness.ref == 20.0);
	dpk_bench_run_rounds(&runner, suites, cases, 2, 1, res + 2, NULL, NULL);
	EXPECT_TRUE(runner.witness.best == 10.0);
	EXPECT_TRUE(runner.witness.ref == 10.0);
	expect_witness_log(8, 0, res, 4, true);
	EXPECT_EQ(0, runner.witness.slow);
	EXPECT_EQ(2, dpk_bench_witness_finish(&runner, res, 4));
	for (unsigned i = 0; i < 4; i++) {
		EXPECT_EQ(4, res[i].witness_slices);
		EXPECT_EQ(res[i].samples, res[i].witness_fast);
		EXPECT_TRUE(res[i].witness_slow_only == (i < 2));
		dpk_bench_result_free(&res[i]);
	}
	stop();
}

/* Timings from a table, by slice (set-ups so far, 1-based); past its end, its last value. */
static const double *wit_values;
static unsigned wit_nvalues;

static double wit_table(void)
{
	unsigned i = setups + ramp_setups - 1;

	return wit_values[i < wit_nvalues ? i : wit_nvalues - 1];
}

static void witness_final_judgement_counts_kept_samples_only(void)
{
	/* Slices of the ramp case, all at the same work: the first seven of the eight planned
	 * time 30, the rest 14, which becomes the fastest reading (limit 17.5). The seven slow
	 * slices' samples are set aside, the rest kept. Then four slices of another case time
	 * 12. Judged once more by 12 (limit 15), the ramp's kept samples (14) are at full
	 * speed; its set-aside samples' 30 must not count, for they went: counted, they would
	 * make the median timing 30, as they outnumber the kept ones. A slice preempted for
	 * most of its time holds few samples; the planned rounds may then fall short of fast
	 * samples, and the extra rounds, which time 14 as well, run only until the fast ones
	 * reach an eighth of the planned rounds' samples. */
	static const double ramp_table[] = {30, 30, 30, 30, 30, 30, 30, 14};
	static const double other_table[] = {12};
	const struct dpk_bench_suite *suites[1] = {&suite};
	const struct dpk_bench_case *cases[1] = {&c_log_a};
	struct dpk_bench_result res[2];

	ASSERT_EQ(0, start("0"));
	runner.witness_time = wit_table;
	wit_values = ramp_table;
	wit_nvalues = sizeof(ramp_table) / sizeof(ramp_table[0]);
	runner.witness.best = runner.witness.check = 20.0;
	runner.opt.rounds = 8;
	runner.opt.time_s = 0.16; /* 20 ms slices: a preemption takes a small share of one */
	setups = ramp_setups = 0;
	ramp_dear = 0;
	dpk_bench_run_case(&runner, &suite, &c_ramp, DPK_PLACE_SINGLE, 0, &res[0]);
	ramp_dear = 4;
	ASSERT_EQ(DPK_RESULT_OK, res[0].status);
	EXPECT_GE(res[0].witness_slices, 8);
	EXPECT_LT(res[0].witness_fast, res[0].samples);
	EXPECT_TRUE(runner.witness.best == 14.0);
	EXPECT_GT(res[0].reject[DPK_REJECT_SLOW], 0); /* the slow slices went */
	EXPECT_TRUE(res[0].witness_kept_p50 == 14.0);
	if (res[0].reject[DPK_REJECT_SLOW] <= res[0].reject[0]) {
		/* Only where the slow samples outnumber the kept ones does the judgement below
		 * tell counting them from not; preemption of the slow slices can prevent that. */
		dpk_bench_result_free(&res[0]);
		DPK_SKIP("the slow slices were preempted: too few slow samples to tell");
	}
	wit_values = other_table;
	wit_nvalues = 1;
	runner.opt.time_s = 0.02; /* four slices: one preempted still leaves a reading */
	dpk_bench_run_rounds(&runner, suites, cases, 1, 0, &res[1], NULL, NULL);
	EXPECT_TRUE(runner.witness.best == 12.0);
	EXPECT_EQ(0, dpk_bench_witness_finish(&runner, res, 2));
	EXPECT_FALSE(res[0].witness_slow_only);
	EXPECT_FALSE(res[1].witness_slow_only);
	for (unsigned i = 0; i < 2; i++)
		dpk_bench_result_free(&res[i]);
	stop();
}

/* The reference is the reading one in DPK_WITNESS_REF_RANK from the fastest of the run's
 * own, so a handful of fast readings do not make the rest slow; the clock check's reading
 * stands in while the run has none of its own. */
static void witness_reference_is_a_rank_not_the_fastest(void)
{
	struct dpk_bench_witness_log log = {.check = 8.5};
	double v[5000];
	bool from_check = false;

	for (size_t i = 0; i < 5000; i++)
		v[(i * 7919) % 5000] = i < 3 ? 8.0 : i < 100 ? 9.0 : 10.5; /* shuffled */
	log.v = v;
	EXPECT_TRUE(dpk_bench_witness_ref(&log, &from_check) == 8.5); /* no reading yet */
	EXPECT_TRUE(from_check);
	log.n = 5000; /* rank 5: past the three at 8.0 */
	EXPECT_TRUE(dpk_bench_witness_ref(&log, &from_check) == 9.0);
	EXPECT_FALSE(from_check);
	for (size_t i = 0; i < 5000; i++) /* the log's readings are left as they were */
		EXPECT_TRUE(v[(i * 7919) % 5000] == (i < 3 ? 8.0 : i < 100 ? 9.0 : 10.5));
	double fastest = INFINITY;
	for (size_t i = 0; i < 999; i++)
		fastest = v[i] < fastest ? v[i] : fastest;
	log.n = 999; /* fewer than a thousand: the fastest */
	EXPECT_TRUE(dpk_bench_witness_ref(&log, NULL) == fastest);
	/* The run's own readings stand, however much faster the clock check's were. */
	log.n = 5000;
	log.check = 7.0;
	EXPECT_TRUE(dpk_bench_witness_ref(&log, &from_check) == 9.0);
	EXPECT_FALSE(from_check);
	log.check = 0; /* no clock check: the run's own */
	EXPECT_TRUE(dpk_bench_witness_ref(&log, NULL) == 9.0);
	log.n = 0;
	EXPECT_TRUE(isinf(dpk_bench_witness_ref(&log, NULL)));
}

static void witness_reads_the_machine(void)
{
	double w = dpk_bench_witness();

	EXPECT_TRUE(isfinite(w));
	EXPECT_GT_F(w, 0.0);
	ASSERT_EQ(0, start("0"));
	EXPECT_TRUE(isfinite(runner.clock.witness));
	EXPECT_GT_F(runner.clock.witness, 0.0);
	EXPECT_TRUE(runner.clock.witness == runner.witness.best);
	EXPECT_TRUE(runner.witness_time == dpk_bench_witness_timing);
	/* The code beside every batch sits at the same place within its page in every build
	 * (hotcode.h). */
	EXPECT_EQ(0u, (unsigned)((uintptr_t)dpk_bench_witness_timing % 4096));
#if defined(__x86_64__) /* elsewhere a stub that times nothing */
	EXPECT_EQ(0u, (unsigned)((uintptr_t)dpk_bench_coreclock_timing % 4096));
#endif
	EXPECT_EQ(0u, (unsigned)((uintptr_t)dpk_bench_time_batch % 4096));
	w = dpk_bench_witness_timing();
	EXPECT_TRUE(isfinite(w));
	EXPECT_GT_F(w, 0.0);
	stop();
}

#if defined(__x86_64__)
/* A chain of @p cycles core cycles timed by @p timing is timed, not folded away: it sits on a
 * 64-byte boundary, and its median pace is a core clock a CPU could run at. */
static void chain_is_timed(double (*timing)(void), double cycles)
{
	double t[101], pace, mhz;

	EXPECT_EQ(0u, (unsigned)((uintptr_t)timing % 64));
	for (unsigned i = 0; i < 101; i++)
		t[i] = timing();
	pace = dpk_stats_median(t, 101) - runner.clock.read_cost;
	EXPECT_GT_F(pace, 0.0);
	mhz = cycles / pace * (double)runner.clock.hz / 1e6;
	EXPECT_GT_F(mhz, 200.0);
	EXPECT_LT_F(mhz, 10000.0);
}
#endif

/* The clock chain is timed, not folded away, and a case run in rounds gets its figures in
 * cycles from it. */
static void coreclock_reads_a_chain(void)
{
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
#if defined(__x86_64__)
	chain_is_timed(dpk_bench_coreclock_timing, DPK_CORECLOCK_CHAIN_CYCLES);
#endif
	const struct dpk_bench_suite *suites[1] = {&suite};
	const struct dpk_bench_case *cases[1] = {&c_single};

	/* The path from the chain to cycles, whatever the check made of this host's multiply
	 * (coreclock_judge_table tests the judge). */
	runner.clock.cycles_on = true;
	runner.opt.time_s = 0.02;
	runner.opt.rounds = 4;
	dpk_bench_run_rounds(&runner, suites, cases, 1, 0, &res, NULL, NULL);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
#if defined(__x86_64__)
	ASSERT_GT(res.cycles.n, 0u);
	EXPECT_LE(res.cycles.n, res.reject[0]);
	EXPECT_GT_F(res.cycles.p50, 0.0);
	EXPECT_GT_F(res.core_hz, 200e6);
	EXPECT_LT_F(res.core_hz, 10e9);
#else
	EXPECT_EQ(0.0, dpk_bench_coreclock_timing());
	EXPECT_EQ_U(0, res.cycles.n);
#endif
	dpk_bench_result_free(&res);
	stop();
}

/* The multiply the chain assumes to take 3 cycles is judged against the add chain, which
 * is as many cycles: equal times (less the read cost) are 3 cycles a multiply; 10% either
 * way is the edge; a missing, non-finite or empty add chain gives no figure. */
static void coreclock_judge_table(void)
{
	static const struct {
		double mul, add, read;
		bool on;
		double cycles; /* NAN: none */
	} t[] = {
	        {661, 661, 73, true, 3.0},       /* the development VM: 588 ticks each */
	        {719.604, 661, 73, true, 3.299}, /* within 10% over */
	        {602.396, 661, 73, true, 2.701}, /* within 10% under */
	        {724, 661, 73, false, 3.3214},   /* just over */
	        {600, 661, 73, false, 2.6888},   /* just under */
	        {857, 661, 73, false, 4.0},      /* a 4-cycle multiply */
	        {661, 73, 73, false, NAN},       /* the add chain took no time */
	        {661, 0, 73, false, NAN},        /* no add chain */
	        {0, 661, 73, false, NAN},        /* no multiply chain */
	        {661, INFINITY, 73, false, NAN}, /* an add timing not finite */
	        {661, 661, NAN, false, NAN},     /* no read cost */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double cycles = -1;
		bool on = dpk_bench_coreclock_judge(t[i].mul, t[i].add, t[i].read, &cycles);

		EXPECT_EQ(t[i].on, on);
		if (isnan(t[i].cycles)) {
			EXPECT_TRUE(isnan(cycles));
		} else {
			EXPECT_LT_F(fabs(cycles - t[i].cycles), 1e-3);
		}
	}
}

/* The clock check judges the chain with the add chain's timing, and a runner whose check
 * turned the chain off times no chains and gives no figures in cycles. */
static void coreclock_off_gives_no_cycles(void)
{
	const struct dpk_bench_suite *suites[1] = {&suite};
	const struct dpk_bench_case *cases[1] = {&c_single};
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
#if defined(__x86_64__)
	/* The add chain is timed, not folded, and the check made a multiply a handful of
	 * cycles of it, not hundreds or a fraction. */
	chain_is_timed(dpk_bench_coreclock_add_timing, (double)DPK_CORECLOCK_ADDS);
	EXPECT_GT_F(runner.clock.mul_cycles, 1.0);
	EXPECT_LT_F(runner.clock.mul_cycles, 10.0);
#else
	EXPECT_EQ(0.0, dpk_bench_coreclock_add_timing());
	EXPECT_TRUE(isnan(runner.clock.mul_cycles));
	EXPECT_FALSE(runner.clock.cycles_on);
#endif
	runner.clock.cycles_on = false;
	runner.opt.time_s = 0.02;
	runner.opt.rounds = 4;
	dpk_bench_run_rounds(&runner, suites, cases, 1, 0, &res, NULL, NULL);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	EXPECT_GT(res.reject[0], 0u);
	EXPECT_EQ_U(0, res.cycles.n);
	EXPECT_EQ(0.0, res.core_hz);
	EXPECT_NULL(res.raw_cycles);
	dpk_bench_result_free(&res);
	stop();
}

/* The closing core-clock line for clock @p k and results @p res[0..n); the caller frees it. */
static char *coreclock_text(const struct dpk_bench_clock *k, const struct dpk_bench_result *res,
                            size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	dpk_report_coreclock(f, k, res, n);
	fclose(f);
	return buf;
}

/* The closing core-clock line: the clock the results rest on, or why there is none. */
static void coreclock_line_says_why_not(void)
{
	struct dpk_bench_clock k = {.mul_cycles = 3.0, .cycles_on = true};
	struct dpk_bench_result res[2] = {{.status = DPK_RESULT_OK}, {.status = DPK_RESULT_OK}};
	char *buf;

	res[0].cycles.n = 10;
	res[0].core_hz = 3.1e9;
	res[1].cycles.n = 10;
	res[1].core_hz = 3.2e9;
	buf = coreclock_text(&k, res, 2);
	ASSERT_NOT_NULL(buf);
	EXPECT_NOT_NULL(strstr(buf, "core clock: 3150 MHz median over 2 single-lcore results"));
	free(buf);

	k.mul_cycles = 4.0;
	k.cycles_on = false;
	buf = coreclock_text(&k, res, 2);
	ASSERT_NOT_NULL(buf);
	EXPECT_NOT_NULL(strstr(buf, "core clock: not read; a multiply took 4.00 cycles"));
	EXPECT_NULL(strstr(buf, "MHz"));
	free(buf);

	k.mul_cycles = NAN; /* no chain in the build, or it did not time */
	buf = coreclock_text(&k, res, 2);
	ASSERT_NOT_NULL(buf);
	EXPECT_NOT_NULL(strstr(buf, "core clock: not read; this build has no multiply chain"));
	EXPECT_NULL(strstr(buf, "MHz"));
	free(buf);
}

/* Every CSV row has the header's number of fields, whatever became of the result. */
static void csv_rows_have_one_width(void)
{
	struct dpk_bench_result res[4];
	struct dpk_bench_meta meta = {.runner = &runner};
	enum dpk_bench_status other[3] = {DPK_RESULT_FAILED, DPK_RESULT_SKIPPED, DPK_RESULT_EMPTY};
	char line[1024];
	long fields = -1;
	unsigned rows = 0;
	FILE *f = tmpfile();

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(0, start("0"));
	dpk_bench_run_case(&runner, &suite, &c_single, DPK_PLACE_SINGLE, 0, &res[0]);
	ASSERT_EQ(DPK_RESULT_OK, res[0].status);
	for (unsigned i = 0; i < 3; i++) {
		memset(&res[i + 1], 0, sizeof(res[i + 1]));
		res[i + 1].suite = &suite;
		res[i + 1].c = &c_pair;
		res[i + 1].placement = DPK_PLACE_CORE;
		res[i + 1].status = other[i];
	}
	ASSERT_EQ(0, dpk_report_csv(f, &meta, res, 4, true));
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		long n = 1;

		for (const char *c = line; *c; c++)
			n += *c == ',';
		if (fields < 0)
			fields = n;
		EXPECT_EQ(fields, n);
		rows++;
	}
	EXPECT_EQ(1 + 4 + res[0].nraw, rows); /* header, four results, the raw samples */
	fclose(f);
	for (unsigned i = 0; i < 4; i++)
		dpk_bench_result_free(&res[i]);
	stop();
}

/* ---- code layouts ---------------------------------------------------------------- */

/* Whether this compiler can place a function past a 64-byte boundary (bench.h). */
#if defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define LAYOUTS_PLACED 1
#endif
#endif
#ifndef LAYOUTS_PLACED
#define LAYOUTS_PLACED 0
#endif

/* Each copy of the layout case's body notes the share it is handed, the last LAYOUT_LOG
 * of them (the first batches, while the harness sizes them, are small and many). */
#define LAYOUT_LOG 4096
_Static_assert(LAYOUT_LOG % DPK_BENCH_LAYOUTS == 0, "the log keeps whole batches");
static struct layout_call {
	unsigned layout;
	uint64_t n;
} layout_log[LAYOUT_LOG];
static unsigned long layout_logged;

static struct layout_call layout_first[DPK_BENCH_LAYOUTS]; /* the first shares, kept */

static uint64_t layout_body(struct dpk_bench_run *run, unsigned k, uint64_t n)
{
	if (layout_logged < DPK_BENCH_LAYOUTS)
		layout_first[layout_logged] = (struct layout_call){k, n};
	layout_log[layout_logged++ % LAYOUT_LOG] = (struct layout_call){k, n};
	return body_spin(run, 0, n);
}

/* The body at code offset OFF, noting its share as layout OFF / 16. */
#define LAYOUT_BODY(OFF)                                                                           \
	DPK_BENCH_CODE_AT(OFF)                                                                     \
	static uint64_t body_at_##OFF(struct dpk_bench_run *run, unsigned role, uint64_t n)        \
	{                                                                                          \
		(void)role;                                                                        \
		return layout_body(run, (OFF) / DPK_BENCH_LAYOUT_STEP, n);                         \
	}

LAYOUT_BODY(0)
LAYOUT_BODY(16)
LAYOUT_BODY(32)
LAYOUT_BODY(48)

/* Shares come in threes. */
static const struct dpk_bench_case c_layouts = {
        .name = "layouts",
        .kind = DPK_BENCH_SINGLE,
        .unit = DPK_UNIT_CALL,
        .ops_multiple = 3,
        .body = body_at_0,
        .layouts = {body_at_0, body_at_16, body_at_32, body_at_48},
};

/* Copies in pairs at two offsets. */
static const struct dpk_bench_case c_layouts_paired = {
        .name = "layouts_paired",
        .kind = DPK_BENCH_SINGLE,
        .unit = DPK_UNIT_CALL,
        .body = body_at_0,
        .layouts = {body_at_0, body_at_0, body_at_32, body_at_32},
};

/* The copies sit where DPK_BENCH_CODE_AT() puts them, in this test and in the ring suites
 * (dpkit's, and DPDK's when built), where a case's plain body is its first copy. */
static void code_copies_sit_at_their_offsets(void)
{
	/* Copies count on the single placement only, and a case without them has one. */
	EXPECT_EQ(1u, dpk_bench_code_layouts(&c_layouts, DPK_PLACE_CORE));
	EXPECT_EQ(1u, dpk_bench_code_layouts(&c_single, DPK_PLACE_SINGLE));
	/* Distinct offsets count: four where the compiler places the copies, one where it
	 * cannot, two for copies that share offsets in pairs. */
	EXPECT_EQ(LAYOUTS_PLACED ? 4u : 1u, dpk_bench_code_layouts(&c_layouts, DPK_PLACE_SINGLE));
	EXPECT_EQ(LAYOUTS_PLACED ? 2u : 1u,
	          dpk_bench_code_layouts(&c_layouts_paired, DPK_PLACE_SINGLE));
	if (!LAYOUTS_PLACED)
		DPK_SKIP("the compiler has no patchable_function_entry attribute");
	for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++)
		EXPECT_EQ(k * DPK_BENCH_LAYOUT_STEP, dpk_bench_code_offset(c_layouts.layouts[k]));
	const struct dpk_bench_suite *all[16];
	unsigned nall = 0;

	for (unsigned i = 0; dpk_bench_dpkit_suites[i]; i++)
		all[nall++] = dpk_bench_dpkit_suites[i];
	for (unsigned i = 0; dpk_bench_peer_suites[i]; i++)
		all[nall++] = dpk_bench_peer_suites[i];
	for (unsigned i = 0; i < nall; i++) {
		const struct dpk_bench_suite *s = all[i];
		/* A stub of a suite the build lacks (bench/suites/ref_none.c) has one case. */
		bool ring = (strcmp(s->name, "ring") == 0 || strcmp(s->name, "dpdk_ring") == 0) &&
		            s->ncases > 1;
		unsigned placed = 0;

		for (unsigned c = 0; c < s->ncases; c++) {
			const struct dpk_bench_case *x = &s->cases[c];

			if (!x->layouts[0])
				continue;
			EXPECT_TRUE(x->body == x->layouts[0]);
			/* The offset is within a page, so that other code growing does not
			 * move a copy against the front end's page-indexed structures. */
			for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++)
				EXPECT_EQ(k * DPK_BENCH_LAYOUT_STEP,
				          (unsigned)((uintptr_t)x->layouts[k] % DPK_BENCH_CODE_ALIGN));
			EXPECT_EQ(4u, dpk_bench_code_layouts(x, DPK_PLACE_SINGLE));
			placed++;
		}
		/* Every one-lcore ring case: 10 per mode and element size for SP/SC and MP/MC, 6
		 * each for RTS and HTS, 6 per mode through pointers, 8 of zero copy and copying. */
		if (ring)
			EXPECT_EQ(72u, placed);
	}
}

/* A one-lcore batch hands an equal share to each copy in turn, a whole multiple of the
 * case's ops_multiple: the first batch, of the smallest size, gives each copy one
 * multiple, and every batch still in the log gives each the same. */
static void batches_share_out_over_the_layouts(void)
{
	struct dpk_bench_result res;
	unsigned long first, kept;
	unsigned batches = 0;

	ASSERT_EQ(0, start("0"));
	layout_logged = 0;
	dpk_bench_run_case(&runner, &suite, &c_layouts, DPK_PLACE_SINGLE, 0, &res);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	EXPECT_EQ(0u, res.batch_ops % (3 * DPK_BENCH_LAYOUTS));
	ASSERT_GE(layout_logged, DPK_BENCH_LAYOUTS);
	for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++) {
		EXPECT_EQ(k, layout_first[k].layout);
		EXPECT_EQ(3u, layout_first[k].n);
	}
	/* LAYOUT_LOG is a multiple of the layouts, so the oldest share kept starts a batch. */
	kept = layout_logged < LAYOUT_LOG ? layout_logged : LAYOUT_LOG;
	first = layout_logged - kept;
	for (unsigned long i = first; i + DPK_BENCH_LAYOUTS <= layout_logged;
	     i += DPK_BENCH_LAYOUTS, batches++) {
		const uint64_t n0 = layout_log[i % LAYOUT_LOG].n;

		EXPECT_GT(n0, 0);
		EXPECT_EQ(0u, n0 % 3);
		for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++) {
			const struct layout_call *c = &layout_log[(i + k) % LAYOUT_LOG];

			ASSERT_EQ(k, c->layout);
			ASSERT_EQ(n0, c->n);
		}
	}
	EXPECT_GT(batches, 0);
	dpk_bench_result_free(&res);
	stop();
}

/* Copy 16 of this case breaks the case on its first call. */
DPK_BENCH_CODE_AT(16)
static uint64_t body_breaks_at_16(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	(void)role;
	(void)n;
	layout_body(run, 1, 0);
	dpk_bench_fail(run, "copy 16 broke");
	return 0;
}

static const struct dpk_bench_case c_layouts_break = {
        .name = "layouts_break",
        .kind = DPK_BENCH_SINGLE,
        .unit = DPK_UNIT_CALL,
        .body = body_at_0,
        .layouts = {body_at_0, body_breaks_at_16, body_at_32, body_at_48},
};

/* A pair case with copies runs its plain body on both lcores, never a copy. */
static const struct dpk_bench_case c_pair_layouts = {
        .name = "pair_layouts",
        .kind = DPK_BENCH_PAIR,
        .unit = DPK_UNIT_ITERATION,
        .counted_roles = 2,
        .body = body_spin,
        .layouts = {body_at_0, body_at_16, body_at_32, body_at_48},
};

/* A copy that comes back short ends its batch: the copies after it do not run on what it
 * left, and the case fails. Multi-lcore runs never use the copies. */
static void layouts_stop_at_a_short_share_and_stay_single(void)
{
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
	layout_logged = 0;
	dpk_bench_run_case(&runner, &suite, &c_layouts_break, DPK_PLACE_SINGLE, 0, &res);
	EXPECT_EQ(DPK_RESULT_FAILED, res.status);
	ASSERT_EQ(2ul, layout_logged);
	EXPECT_EQ(0u, layout_log[0].layout);
	EXPECT_EQ(1u, layout_log[1].layout);
	dpk_bench_result_free(&res);
	stop();

	if (!have_two_cpus())
		DPK_SKIP("needs two online CPUs");
	ASSERT_EQ(0, start(NULL));
	runner.opt.time_s = 0.2;
	layout_logged = 0;
	dpk_bench_run_case(&runner, &suite, &c_pair_layouts, DPK_PLACE_OVERSUB, 0, &res);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	EXPECT_EQ(0ul, layout_logged);
	dpk_bench_result_free(&res);
	stop();
}

static void params_format(void)
{
	char buf[64];

	ASSERT_STREQ("x=3", dpk_bench_params_str(&c_single, buf, sizeof(buf)));
	ASSERT_STREQ("", dpk_bench_params_str(&c_fail, buf, sizeof(buf)));
	ASSERT_EQ(3, dpk_bench_param(&c_single, "x", 7));
	ASSERT_EQ(7, dpk_bench_param(&c_single, "y", 7));
	ASSERT_STREQ("per round trip", dpk_bench_unit_name(DPK_UNIT_ROUND_TRIP));
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(clock_check_is_sane),
        DPK_TEST(sample_targets_bound_the_resolution),
        DPK_TEST(counter_resolution_leaves_out_bumps),
        DPK_TEST(default_spec_has_oversub_worker),
        DPK_TEST(default_spec_from_cpu_sets),
        DPK_TEST(default_spec_keeps_to_affinity),
        DPK_TEST(single_case_gives_samples),
        DPK_TEST(bodies_run_where_the_harness_puts_the_stack),
        DPK_TEST(arenas_are_kept_off_huge_pages),
        DPK_TEST(arena_offset_moves_round_to_round),
        DPK_TEST(floors_move_and_rounds_are_set_aside),
        DPK_TEST(rounds_apart_are_regimes),
        DPK_TEST(interleaved_pairs_pair_round_by_round),
        DPK_TEST(interleaved_variants_take_turns_round_by_round),
        DPK_TEST(raw_samples_keep_their_order),
        DPK_TEST(batches_grow_back_when_operations_get_cheaper),
        DPK_TEST(invariant_failure_is_reported),
        DPK_TEST(pair_case_counts_only_counted_role),
        DPK_TEST(blocked_role_ends_on_stop),
        DPK_TEST(failing_pair_ends_before_its_budget),
        DPK_TEST(missing_placements_are_skipped),
        DPK_TEST(nodev_setups_are_skipped_with_their_reason),
        DPK_TEST(several_counted_roles_take_the_slowest),
        DPK_TEST(all_takes_one_worker_per_cpu),
        DPK_TEST(rounds_visit_cases_in_turn),
        DPK_TEST(rounds_drop_only_the_failed_case),
        DPK_TEST(witness_reference_is_a_rank_not_the_fastest),
        DPK_TEST(witness_reads_the_machine),
        DPK_TEST(witness_slow_samples_are_replaced),
        DPK_TEST(witness_always_slow_keeps_the_samples),
        DPK_TEST(witness_rules_off_with_slow_limit_0),
        DPK_TEST(witness_judges_each_sample_by_both_timings),
        DPK_TEST(witness_keeps_slow_samples_without_enough_fast_ones),
        DPK_TEST(witness_counts_leave_failed_cases_out),
        DPK_TEST(witness_judges_each_call_once),
        DPK_TEST(switches_are_counted_over_a_stretch),
        DPK_TEST(witness_final_judgement_counts_kept_samples_only),
        DPK_TEST(coreclock_reads_a_chain),
        DPK_TEST(coreclock_judge_table),
        DPK_TEST(coreclock_off_gives_no_cycles),
        DPK_TEST(coreclock_line_says_why_not),
        DPK_TEST(csv_rows_have_one_width),
        DPK_TEST(code_copies_sit_at_their_offsets),
        DPK_TEST(batches_share_out_over_the_layouts),
        DPK_TEST(layouts_stop_at_a_short_share_and_stay_single),
        DPK_TEST(params_format),
};

DPK_TEST_MAIN(cases)
