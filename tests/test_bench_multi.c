/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness engine on synthetic multi-lcore cases: raw samples and batch sizes, invariant
 * failures, roles that wait forever ended by the stop flag, placements the lcores lack,
 * the counted roles, floors beside every round and the rounds set aside, regimes, and
 * pairs interleaved round by round.
 * Nothing here asserts how fast anything is.
 */
#define _GNU_SOURCE
#include "bench_fixture.h"

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

static const struct dpk_test_case cases[] = {
        DPK_TEST(floors_move_and_rounds_are_set_aside),
        DPK_TEST(rounds_apart_are_regimes),
        DPK_TEST(interleaved_pairs_pair_round_by_round),
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
};

DPK_TEST_MAIN(cases)
