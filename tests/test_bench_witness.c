/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness engine's rounds and its speed witness, on scripted timings: cases visited in
 * turn, a failed case dropped alone, slow samples replaced by extra rounds or kept when
 * there are too few fast ones, and the reference reading.
 * Nothing here asserts how fast anything is.
 */
#define _GNU_SOURCE
#include "bench_fixture.h"

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

static const struct dpk_test_case cases[] = {
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
};

DPK_TEST_MAIN(cases)
