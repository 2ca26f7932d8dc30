/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness engine on synthetic one-lcore cases: the clock check and the counter's
 * resolution, the default lcore set, samples taken and summarised, where bodies run (their
 * stack, their arena, its offset), and variants that take turns round by round.
 * Nothing here asserts how fast anything is.
 */
#define _GNU_SOURCE
#include "bench_fixture.h"

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
			EXPECT_TRUE(isnan(res[i].pair_ratio.p50_lo) &&
			            isnan(res[i].pair_ratio.p50_hi));
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
        DPK_TEST(interleaved_variants_take_turns_round_by_round),
};

DPK_TEST_MAIN(cases)
