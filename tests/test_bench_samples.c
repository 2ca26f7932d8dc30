/* SPDX-License-Identifier: BSD-3-Clause */
/* Harness statistics over samples: rejection by reason, slow rounds and the speed witness,
 * figures in core cycles, rounds weighed alike, and batches that ran alone. */
#include <math.h>
#include <string.h>

#include "dpk_test.h"
#include "stats.h"

/* n clean samples of @p ticks on CPU 1. */
static void clean(struct dpk_sample *s, size_t n, double ticks)
{
	for (size_t i = 0; i < n; i++) {
		s[i].ticks_per_op = ticks + (double)(i % 3); /* a little spread */
		s[i].cpu_begin = s[i].cpu_end = 1;
		s[i].ivcsw = 0;
		s[i].round = 0;
		s[i].reject = 0xee; /* stale mark: must be cleared */
	}
}

static void reject_counts_each_reason(void)
{
	struct dpk_sample s[40];
	size_t counts[DPK_REJECT_COUNT];

	clean(s, 40, 100.0);
	s[3].cpu_end = 2;             /* one migration */
	s[7].ivcsw = 1;               /* one context switch */
	s[11].ticks_per_op = 10000.0; /* one gap, 100 x the median */
	s[12].ticks_per_op = 900.0;   /* 9 x: slow but kept */
	ASSERT_EQ_U(37, dpk_stats_reject(s, 40, true, counts));
	ASSERT_EQ_U(37, counts[DPK_REJECT_NONE]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_MIGRATION]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_CTX_SWITCH]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_GAP]);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[3].reject);
	ASSERT_EQ(DPK_REJECT_CTX_SWITCH, s[7].reject);
	ASSERT_EQ(DPK_REJECT_GAP, s[11].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[12].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[0].reject);

	/* A second call gives the same marks. */
	ASSERT_EQ_U(37, dpk_stats_reject(s, 40, true, NULL));
	ASSERT_EQ(DPK_REJECT_GAP, s[11].reject);
}

static void reject_ignores_ctx_switch_when_disabled(void)
{
	struct dpk_sample s[20];
	size_t counts[DPK_REJECT_COUNT];

	clean(s, 20, 50.0);
	s[2].ivcsw = 3;
	s[9].ivcsw = 1;
	ASSERT_EQ_U(20, dpk_stats_reject(s, 20, false, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_CTX_SWITCH]);
	ASSERT_EQ(DPK_REJECT_NONE, s[2].reject);
	ASSERT_EQ_U(18, dpk_stats_reject(s, 20, true, counts));
	ASSERT_EQ_U(2, counts[DPK_REJECT_CTX_SWITCH]);
}

static void switches_go_to_the_longest_batches_of_each_set(void)
{
	struct dpk_sample a[10], b[10];
	struct dpk_sample *const one[1] = {a}, *const two[2] = {a, b};

	clean(a, 10, 50.0); /* 50 51 52 50 51 52 ...: median 51 */
	a[4].ticks_per_op = 400.0;
	a[6].ticks_per_op = 300.0;
	a[8].ticks_per_op = 70.0; /* 1.37 x the median: not long enough to hold a switch */
	ASSERT_EQ_U(0, dpk_stats_give_switches(one, 1, 10, 0));
	ASSERT_EQ_U(1, dpk_stats_give_switches(one, 1, 10, 1));
	EXPECT_EQ_U(1, a[4].ivcsw);
	EXPECT_EQ_U(0, a[6].ivcsw);
	/* Two more: one goes to the 300, the other finds no batch and marks nothing. */
	ASSERT_EQ_U(1, dpk_stats_give_switches(one, 1, 10, 2));
	EXPECT_EQ_U(1, a[6].ivcsw);
	EXPECT_EQ_U(0, a[8].ivcsw);
	for (size_t i = 0; i < 10; i++)
		EXPECT_EQ_U(i == 4 || i == 6, a[i].ivcsw);

	/* Across sets each batch is judged against its own set's median: 300 in a set around
	 * 1000 is not long, 90 in a set around 51 is. */
	clean(a, 10, 50.0);
	clean(b, 10, 1000.0);
	a[3].ticks_per_op = 90.0;
	b[5].ticks_per_op = 1800.0;
	b[7].ticks_per_op = 300.0;
	ASSERT_EQ_U(2, dpk_stats_give_switches(two, 2, 10, 5));
	EXPECT_EQ_U(1, a[3].ivcsw);
	EXPECT_EQ_U(1, b[5].ivcsw);
	EXPECT_EQ_U(0, b[7].ivcsw);
	ASSERT_EQ_U(0, dpk_stats_give_switches(two, 2, 0, 5));
	/* One switch: 90 against 51 (x1.76) outranks 1700 against 1001 (x1.70). */
	clean(a, 10, 50.0);
	clean(b, 10, 1000.0);
	a[3].ticks_per_op = 90.0;
	b[5].ticks_per_op = 1700.0;
	ASSERT_EQ_U(1, dpk_stats_give_switches(two, 2, 10, 1));
	EXPECT_EQ_U(1, a[3].ivcsw);
	EXPECT_EQ_U(0, b[5].ivcsw);
}

static void reject_keeps_uniformly_slow_set(void)
{
	struct dpk_sample s[30];
	size_t counts[DPK_REJECT_COUNT];

	clean(s, 30, 1e6);
	ASSERT_EQ_U(30, dpk_stats_reject(s, 30, true, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_GAP] + counts[DPK_REJECT_MIGRATION] +
	                       counts[DPK_REJECT_CTX_SWITCH]);

	/* Two modes 20x apart with equal weight: the median sits between, nothing is a gap. */
	for (size_t i = 0; i < 30; i++)
		s[i].ticks_per_op = i % 2 ? 20.0 : 1.0;
	ASSERT_EQ_U(30, dpk_stats_reject(s, 30, true, counts));
}

static void reject_gap_median_skips_rejected_samples(void)
{
	struct dpk_sample s[11];
	size_t counts[DPK_REJECT_COUNT];

	/* Six migrated samples at 1000 would put the median of all at 1000; the median of the
	 * five kept is 11, so the 500 is a gap. A migrated sample that was also preempted is
	 * counted once, as a migration. */
	clean(s, 11, 10.0);
	for (size_t i = 0; i < 6; i++) {
		s[i].ticks_per_op = 1000.0;
		s[i].cpu_end = 0;
		s[i].ivcsw = 1;
	}
	s[10].ticks_per_op = 500.0;
	ASSERT_EQ_U(4, dpk_stats_reject(s, 11, true, counts));
	ASSERT_EQ_U(6, counts[DPK_REJECT_MIGRATION]);
	ASSERT_EQ_U(0, counts[DPK_REJECT_CTX_SWITCH]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_GAP]);
	ASSERT_EQ(DPK_REJECT_GAP, s[10].reject);
}

static void reject_edge_inputs(void)
{
	struct dpk_sample s[300];
	size_t counts[DPK_REJECT_COUNT];

	memset(counts, 0xff, sizeof(counts));
	ASSERT_EQ_U(0, dpk_stats_reject(s, 0, true, counts));
	for (size_t i = 0; i < DPK_REJECT_COUNT; i++)
		ASSERT_EQ_U(0, counts[i]);
	ASSERT_EQ_U(0, dpk_stats_reject(NULL, 5, true, counts));

	/* A median of 0 cannot scale a threshold: no gaps. */
	clean(s, 10, 0.0);
	for (size_t i = 0; i < 10; i++)
		s[i].ticks_per_op = i == 9 ? 5.0 : 0.0;
	ASSERT_EQ_U(10, dpk_stats_reject(s, 10, true, counts));

	/* More samples than the stack buffer for the median. */
	clean(s, 300, 20.0);
	s[299].ticks_per_op = 5000.0;
	ASSERT_EQ_U(299, dpk_stats_reject(s, 300, true, counts));
	ASSERT_EQ(DPK_REJECT_GAP, s[299].reject);
}

/* Round @p q of @p per samples starting at s[q * per], around @p ticks. */
static void round_of(struct dpk_sample *s, unsigned q, size_t per, double ticks)
{
	clean(s + q * per, per, ticks);
	for (size_t i = 0; i < per; i++)
		s[q * per + i].round = (uint16_t)q;
}

static void slow_rounds_are_set_aside(void)
{
	enum { PER = 40, N = 5 * PER };
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* Round medians 101, 201, 105, 111, 103; the reference is 103 (the second of five
	 * rounds), so 105 (+2%) stays at a 5% limit and 111 (+8%) is slow. */
	round_of(s, 0, PER, 100.0);
	round_of(s, 1, PER, 200.0);
	round_of(s, 2, PER, 104.0);
	round_of(s, 3, PER, 110.0);
	round_of(s, 4, PER, 102.0);
	s[PER + 5].cpu_end = 9; /* a migration inside a slow round stays a migration */
	ASSERT_EQ_U(N - 1, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(3 * PER, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(3 * PER, counts[DPK_REJECT_NONE]);
	ASSERT_EQ_U(2 * PER - 1, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_MIGRATION]);
	ASSERT_EQ(DPK_REJECT_NONE, s[0].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[PER].reject);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[PER + 5].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[2 * PER + 7].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[3 * PER + 7].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[4 * PER + 7].reject);

	/* A wider limit keeps the +8% round; the first rule clears the marks again. */
	ASSERT_EQ_U(N - 1, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ(DPK_REJECT_NONE, s[PER].reject);
	ASSERT_EQ_U(4 * PER, dpk_stats_reject_slow(s, N, 0.2, NULL));
	ASSERT_EQ(DPK_REJECT_NONE, s[3 * PER].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[PER + 1].reject);
}

static void slow_reference_is_the_lower_quartile(void)
{
	enum { PER = 30, R = 9, N = R * PER };
	static const double cost[R] = {107, 139, 80, 103, 124, 112, 100, 130, 118};
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* Nine steady rounds of equal length; their medians in order are 81, 101, 104 (the
	 * reference: the first three hold a quarter of the samples), 108, 113, 119, 125, 131,
	 * 140. One lucky round at 81 does not make
	 * the others slow: the rounds up to 109.2 (5% over 104) stay, and the lucky one too,
	 * for it is faster. A reference one rank off would keep three rounds or five. */
	for (unsigned q = 0; q < R; q++)
		round_of(s, q, PER, cost[q]);
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(4 * PER, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(5 * PER, counts[DPK_REJECT_SLOW]);
	for (unsigned q = 0; q < R; q++)
		EXPECT_EQ(cost[q] < 108 ? DPK_REJECT_NONE : DPK_REJECT_SLOW, s[q * PER + 3].reject);

	/* Eight equal rounds, medians 101, 105, 109, ...: the first two hold exactly a
	 * quarter, so the second is the reference (limit 110.25) and 109 stays; the third as
	 * reference would keep 113 too. */
	for (unsigned q = 0; q < 8; q++)
		round_of(s, q, PER, 100.0 + 4.0 * q);
	ASSERT_EQ_U(8 * PER, dpk_stats_reject(s, 8 * PER, true, counts));
	ASSERT_EQ_U(3 * PER, dpk_stats_reject_slow(s, 8 * PER, 0.05, counts));
	ASSERT_EQ(DPK_REJECT_NONE, s[2 * PER].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[3 * PER].reject);
}

/* Rounds of the lengths @p len[] one after another from s[0], round q around @p ticks[q];
 * returns the samples written. */
static size_t rounds_of_lengths(struct dpk_sample *s, const size_t *len, const double *ticks,
                                unsigned r)
{
	size_t at = 0;

	for (unsigned q = 0; q < r; q++) {
		clean(s + at, len[q], ticks[q]);
		for (size_t i = 0; i < len[q]; i++)
			s[at + i].round = (uint16_t)q;
		at += len[q];
	}
	return at;
}

static void slow_reference_is_weighted_by_samples(void)
{
	enum { R = 8, SHORT = 20, FULL = 200, N = 2 * SHORT + 6 * FULL };
	static const size_t len[R] = {SHORT, FULL, FULL, SHORT, FULL, FULL, FULL, FULL};
	static const double cost[R] = {90, 100, 101, 90, 102, 106, 107, 130};
	static struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* Two short fast rounds (medians 91) among six full ones (medians 101, 102, 103, 107,
	 * 108, 131). By round count the lower quartile would be 91 and every full round slow;
	 * by samples the rounds up to 102 hold a quarter, so 102 is the reference (limit
	 * 107.1): 107 stays, 108 and 131 are slow. A reference one round off either way, 101
	 * or 103, would judge 107 or 108 the other way. */
	ASSERT_EQ_U(N, rounds_of_lengths(s, len, cost, R));
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(N - 2 * FULL, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(2 * FULL, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ(DPK_REJECT_NONE, s[0].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[SHORT].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[2 * SHORT + 3 * FULL].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[2 * SHORT + 4 * FULL].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[N - 1].reject);
}

static void slow_reference_needs_enough_samples(void)
{
	enum { R = 6, PER = 40, SHORT = DPK_SLOW_MIN_SAMPLES - 1, N = 5 * PER + SHORT };
	static const size_t len[R] = {PER, PER, PER, PER, PER, SHORT};
	static const double cost[R] = {100, 106, 107, 108, 130, 50};
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* A short round at half the cost cannot be the reference (too few samples for a
	 * steady median); it is judged against the reference like any round, and kept. Were
	 * it steady, the reference would be 101, not 107, and 107-109 would be slow too. */
	ASSERT_EQ_U(N, rounds_of_lengths(s, len, cost, R));
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(4 * PER + SHORT, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(PER, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ(DPK_REJECT_NONE, s[0].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[PER].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[4 * PER].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[N - 1].reject);
}

static void slow_rule_needs_five_steady_rounds(void)
{
	enum { R = 5, PER = 40, N = R * PER };
	static const size_t len[R] = {PER, PER, PER, PER, DPK_SLOW_MIN_SAMPLES - 1};
	static const double cost[R] = {100, 100, 100, 200, 100};
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];
	size_t n = rounds_of_lengths(s, len, cost, R);

	/* Four steady rounds and a short one: a round at twice the cost stays, for so few
	 * rounds cannot tell a slow phase from a slow memory layout. */
	ASSERT_EQ_U(n, dpk_stats_reject(s, n, true, counts));
	ASSERT_EQ_U(n, dpk_stats_reject_slow(s, n, 0.05, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_SLOW]);

	/* A fifth steady round makes it judge. */
	clean(s + n, PER - (DPK_SLOW_MIN_SAMPLES - 1), 100.0);
	for (size_t i = n; i < N; i++)
		s[i].round = R - 1;
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(N - PER, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ(DPK_REJECT_SLOW, s[3 * PER].reject);
}

static void slow_rule_does_nothing_without_rounds_or_limit(void)
{
	enum { PER = 30, R = 5, N = R * PER };
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* Five steady rounds, one at three times the cost: off, nothing is set aside. */
	for (unsigned q = 0; q < R; q++)
		round_of(s, q, PER, q == 2 ? 300.0 : 100.0);
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(N, dpk_stats_reject_slow(s, N, 0.0, counts)); /* off */
	ASSERT_EQ_U(N, dpk_stats_reject_slow(s, N, -1.0, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ_U(N - PER, dpk_stats_reject_slow(s, N, 0.05, counts)); /* on: it is slow */
	ASSERT_EQ_U(PER, counts[DPK_REJECT_SLOW]);

	/* One round: nothing to compare with. */
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	for (size_t i = 0; i < N; i++)
		s[i].round = 3;
	ASSERT_EQ_U(N, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ_U(0, dpk_stats_reject_slow(NULL, 10, 0.05, counts));
	ASSERT_EQ_U(0, dpk_stats_reject_slow(s, 0, 0.05, counts));
}

static void slow_marks_given_rounds(void)
{
	enum { PER = 20, N = 3 * PER };
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];
	const uint8_t slow[2] = {0, 1}; /* round 1 slow; round 2 is past the table: kept */

	round_of(s, 0, PER, 100.0);
	round_of(s, 1, PER, 100.0); /* as fast as round 0: marked all the same */
	round_of(s, 2, PER, 300.0);
	s[PER + 3].cpu_end = 7;
	ASSERT_EQ_U(N - 1, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(2 * PER, dpk_stats_mark_slow(s, N, slow, 2, counts));
	ASSERT_EQ_U(2 * PER, counts[DPK_REJECT_NONE]);
	ASSERT_EQ_U(PER - 1, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[PER + 3].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[PER].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[2 * PER].reject);
	ASSERT_EQ_U(2 * PER, dpk_stats_mark_slow(s, N, NULL, 0, NULL));
}

static void witness_marks_slow_samples(void)
{
	enum { N = 40 };
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	round_of(s, 0, N, 100.0);
	for (unsigned i = 0; i < N; i++)
		s[i].wit = i % 4 == 0 ? 20.0f : i % 4 == 1 ? 12.5f : 10.0f;
	s[2].cpu_end = 7; /* migrated: stays a migration, not counted as slow */
	s[4].cpu_end = 7; /* migrated and slow: the first rule has it */
	ASSERT_EQ_U(N - 2, dpk_stats_reject(s, N, true, counts));
	/* Over the limit: the 20s. At the limit (12.5) is not over it. */
	ASSERT_EQ_U(N - 2 - (N / 4 - 1), dpk_stats_mark_witness(s, N, 12.5, counts));
	ASSERT_EQ_U(N - 2 - (N / 4 - 1), counts[DPK_REJECT_NONE]);
	ASSERT_EQ_U(N / 4 - 1, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ_U(2, counts[DPK_REJECT_MIGRATION]);
	ASSERT_EQ(DPK_REJECT_SLOW, s[0].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[1].reject);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[2].reject);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[4].reject);
	/* Again, with no counts and a limit nothing is over: the same samples stay kept. */
	ASSERT_EQ_U(N - 2 - (N / 4 - 1), dpk_stats_mark_witness(s, N, 1e9, NULL));
	ASSERT_EQ_U(0, dpk_stats_mark_witness(NULL, 5, 12.5, NULL));
}

static void kept_ticks_keep_their_order(void)
{
	enum { N = 6 };
	struct dpk_sample s[N];
	const double ticks[N] = {5, 3, 9, 1, 7, 2};
	double out[N];

	clean(s, N, 0);
	for (unsigned i = 0; i < N; i++) {
		s[i].ticks_per_op = ticks[i];
		s[i].reject = DPK_REJECT_NONE;
	}
	s[1].reject = DPK_REJECT_GAP;
	s[4].reject = DPK_REJECT_SLOW;
	ASSERT_EQ_U(4, dpk_stats_kept_ticks(s, N, out));
	ASSERT_NEAR(5, out[0], 0);
	ASSERT_NEAR(9, out[1], 0);
	ASSERT_NEAR(1, out[2], 0);
	ASSERT_NEAR(2, out[3], 0);
	ASSERT_EQ_U(0, dpk_stats_kept_ticks(s, 0, out));
}

/* @p n kept samples, the i-th of @p ticks per op in round @p round[i] with clock timing
 * @p clk[i] (0: none taken); rounds are stored one after another. */
static void cycles_samples(struct dpk_sample *s, size_t n, const double *ticks,
                           const unsigned *round, const float *clk)
{
	clean(s, n, 0);
	for (size_t i = 0; i < n; i++) {
		s[i].ticks_per_op = ticks[i];
		s[i].round = (uint16_t)round[i];
		s[i].reject = DPK_REJECT_NONE;
		s[i].wit = 0;
		s[i].clk = clk[i];
	}
}

static void cycles_convert_round_by_round(void)
{
	enum { N = 7 };
	/* Read cost 10. Round 0 at a pace of 100 ticks a chain of 600 cycles (6 cycles a
	 * tick), round 1 at 120 (5 a tick); sample 5 is rejected, so neither its value nor its
	 * timing counts; round 2 has no timing, so its sample is left out. */
	const double ticks[N] = {2.0, 3.0, 1.0, 4.0, 5.0, 1000.0, 7.0};
	const unsigned round[N] = {0, 0, 0, 1, 1, 1, 2};
	const float clk[N] = {110, 110, 110, 130, 130, 5000, 0};
	struct dpk_sample s[N];
	double out[N], ratio;

	cycles_samples(s, N, ticks, round, clk);
	s[5].reject = DPK_REJECT_GAP;
	/* The samples come back in the order taken. */
	ASSERT_EQ_U(5, dpk_stats_kept_cycles(s, N, 600.0, 10.0, out, &ratio));
	ASSERT_NEAR(12.0, out[0], 1e-9);
	ASSERT_NEAR(18.0, out[1], 1e-9);
	ASSERT_NEAR(6.0, out[2], 1e-9);
	ASSERT_NEAR(20.0, out[3], 1e-9);
	ASSERT_NEAR(25.0, out[4], 1e-9);
	/* The median of two rounds' ratios, 6 and 5. */
	ASSERT_NEAR(5.5, ratio, 1e-9);
	/* The ratio is optional. */
	ASSERT_EQ_U(5, dpk_stats_kept_cycles(s, N, 600.0, 10.0, out, NULL));
}

/* A round as the machine ran it: its kept samples and those set aside as slow, never one
 * dropped for another reason; and the witness timings next to them. */
static void rounds_as_run_take_the_slow_samples(void)
{
	enum { N = 6, Q = 3 };
	const double ticks[N] = {1.0, 2.0, 9.0, 4.0, 6.0, 100.0};
	const unsigned round[N] = {0, 0, 0, 1, 1, 1};
	const float clk[N] = {110, 110, 110, 130, 130, 130};
	const float wit[N] = {8, 8, 20, 30, 10, 40};
	struct dpk_sample s[N];
	double p50[Q], ratio[Q];
	uint32_t count[Q];

	cycles_samples(s, N, ticks, round, clk);
	for (size_t i = 0; i < N; i++)
		s[i].wit = wit[i];
	s[2].reject = s[3].reject = s[4].reject = DPK_REJECT_SLOW;
	s[5].reject = DPK_REJECT_GAP;
	ASSERT_TRUE(dpk_stats_round_medians(s, N, Q, false, p50, count));
	ASSERT_NEAR(1.5, p50[0], 1e-12);
	EXPECT_TRUE(isnan(p50[1]) && isnan(p50[2]));
	EXPECT_EQ_U(2, count[0]);
	EXPECT_EQ_U(0, count[1]);
	ASSERT_TRUE(dpk_stats_round_medians(s, N, Q, true, p50, count));
	ASSERT_NEAR(2.0, p50[0], 1e-12);
	ASSERT_NEAR(5.0, p50[1], 1e-12);
	EXPECT_TRUE(isnan(p50[2]));
	EXPECT_EQ_U(3, count[0]);
	EXPECT_EQ_U(2, count[1]);
	EXPECT_EQ_U(0, count[2]);
	ASSERT_TRUE(dpk_stats_round_witness(s, N, Q, p50));
	ASSERT_NEAR(8.0, p50[0], 1e-12);
	ASSERT_NEAR(20.0, p50[1], 1e-12); /* 30 and 10; the gap's 40 left out */
	EXPECT_TRUE(isnan(p50[2]));
	/* Round 1 has a pace only from its slow samples: 600 cycles over 130 - 10 ticks. */
	dpk_stats_round_ratios(s, N, 600.0, 10.0, Q, false, ratio);
	ASSERT_NEAR(6.0, ratio[0], 1e-9);
	EXPECT_TRUE(isnan(ratio[1]));
	dpk_stats_round_ratios(s, N, 600.0, 10.0, Q, true, ratio);
	ASSERT_NEAR(6.0, ratio[0], 1e-9);
	ASSERT_NEAR(5.0, ratio[1], 1e-9);
	EXPECT_TRUE(isnan(ratio[2]));
}

static void cycles_trim_the_round_outliers(void)
{
	enum { N = 7 };
	struct dpk_sample s[N];
	const float clk[N] = {100, 100, 125, 100, 5000, 126, 100};
	const double ticks[N] = {1, 1, 1, 1, 1, 1, 1};
	const unsigned round[N] = {0};
	double out[N], ratio;

	/* Median timing 100, cut at 125: the 125 counts, the 126 and the 5000 do not; the
	 * pace is the mean of four 100s and the 125, 105, less no read cost. */
	cycles_samples(s, N, ticks, round, clk);
	ASSERT_EQ_U(N, dpk_stats_kept_cycles(s, N, 420.0, 0.0, out, &ratio));
	ASSERT_NEAR(4.0, ratio, 1e-9);
	for (unsigned i = 0; i < N; i++)
		ASSERT_NEAR(4.0, out[i], 1e-9);
}

static void cycles_trim_by_the_case_median(void)
{
	enum { N = 5 };
	/* Round 2 kept one sample, and its chain was interrupted: the round's own median would
	 * keep that timing, the case's (110) leaves it out, and the round with it. */
	const double ticks[N] = {1, 1, 1, 1, 1};
	const unsigned round[N] = {0, 0, 1, 1, 2};
	const float clk[N] = {110, 110, 110, 110, 5000};
	struct dpk_sample s[N];
	double out[N], ratio;

	cycles_samples(s, N, ticks, round, clk);
	ASSERT_EQ_U(4, dpk_stats_kept_cycles(s, N, 600.0, 10.0, out, &ratio));
	for (unsigned i = 0; i < 4; i++)
		ASSERT_NEAR(6.0, out[i], 1e-9);
	ASSERT_NEAR(6.0, ratio, 1e-9);
}

static void cycles_need_a_positive_pace(void)
{
	enum { N = 5 };
	/* Round 0's timings are all read cost (a chain folded away would read so): no pace,
	 * no figures; round 1's are fine, and 60 is the case's median. */
	const double ticks[N] = {1, 1, 2, 2, 2};
	const unsigned round[N] = {0, 0, 1, 1, 1};
	const float clk[N] = {10, 9, 60, 60, 60};
	struct dpk_sample s[N];
	double out[N], ratio = 1;

	cycles_samples(s, N, ticks, round, clk);
	ASSERT_EQ_U(3, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, &ratio));
	ASSERT_NEAR(4.0, out[0], 1e-9);
	ASSERT_NEAR(2.0, ratio, 1e-9);
	/* A pace of 15 over a read cost of 10 passes; one of 8 (a timing of 18) does not. */
	s[0].clk = s[1].clk = 25;
	ASSERT_EQ_U(5, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, NULL));
	s[0].clk = s[1].clk = 18;
	ASSERT_EQ_U(3, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, NULL));
	/* No timing at all, nothing kept, or no samples: nothing, and no ratio. */
	for (unsigned i = 0; i < N; i++)
		s[i].clk = 0;
	ratio = 1;
	EXPECT_EQ_U(0, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, &ratio));
	EXPECT_TRUE(isnan(ratio));
	for (unsigned i = 0; i < N; i++) {
		s[i].clk = 60;
		s[i].reject = DPK_REJECT_SLOW;
	}
	ratio = 1;
	EXPECT_EQ_U(0, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, &ratio));
	EXPECT_TRUE(isnan(ratio));
	EXPECT_EQ_U(0, dpk_stats_kept_cycles(s, 0, 100.0, 10.0, out, NULL));
}

static void reject_names(void)
{
	ASSERT_STREQ("none", dpk_reject_name(DPK_REJECT_NONE));
	ASSERT_STREQ("migration", dpk_reject_name(DPK_REJECT_MIGRATION));
	ASSERT_STREQ("ctx_switch", dpk_reject_name(DPK_REJECT_CTX_SWITCH));
	ASSERT_STREQ("gap", dpk_reject_name(DPK_REJECT_GAP));
	ASSERT_STREQ("slow", dpk_reject_name(DPK_REJECT_SLOW));
	ASSERT_STREQ("floor", dpk_reject_name(DPK_REJECT_FLOOR));
	ASSERT_STREQ("alone", dpk_reject_name(DPK_REJECT_ALONE));
	ASSERT_STREQ("invalid", dpk_reject_name(DPK_REJECT_COUNT));
}

/* A batch is alone when no other role's batch overlaps it, touching ends included; the
 * mark then moves a kept sample's count to "alone" and leaves rejected ones alone. */
/* Rounds weigh the same whatever their sample counts: one fast round of 100 samples at 5
 * ticks and two slow ones of 25 at 20 and 21 give the slow median the pooled samples
 * miss; rejected samples count for nothing; with equal rounds it is the pooled median. */
static void round_summary_weighs_rounds_alike(void)
{
	struct dpk_sample s[160];
	struct dpk_summary sum, pooled;
	double v[160];
	size_t n = 0, k;

	memset(s, 0, sizeof(s));
	for (unsigned i = 0; i < 100; i++, n++) {
		s[n].ticks_per_op = 5.0 + 0.001 * i;
		s[n].round = 0;
	}
	for (unsigned i = 0; i < 25; i++, n++) {
		s[n].ticks_per_op = 20.0 + 0.001 * i;
		s[n].round = 1;
	}
	for (unsigned i = 0; i < 25; i++, n++) {
		s[n].ticks_per_op = 21.0 + 0.001 * i;
		s[n].round = 2;
	}
	for (unsigned i = 0; i < 10; i++, n++) { /* set aside: no weight */
		s[n].ticks_per_op = 1.0;
		s[n].round = 3;
		s[n].reject = DPK_REJECT_FLOOR;
	}
	ASSERT_TRUE(dpk_stats_summarise_rounds(s, n, 4, &sum));
	k = dpk_stats_kept_ticks(s, n, v);
	dpk_stats_summarise(v, k, &pooled);
	EXPECT_EQ(150, sum.n);
	EXPECT_LT_F(pooled.p50, 6.0); /* the fast round outvotes the others */
	EXPECT_GE_F(sum.p50, 20.0);
	EXPECT_LE_F(sum.p50, 21.0);
	ASSERT_NEAR(5.0, sum.min, 1e-12);
	ASSERT_NEAR(21.024, sum.max, 1e-9);
	/* The mean: a third of each round's. */
	ASSERT_NEAR((5.0495 + 20.012 + 21.012) / 3, sum.mean, 1e-9);
	EXPECT_TRUE(sum.min <= sum.p50 && sum.p50 <= sum.p90 && sum.p90 <= sum.p99 &&
	            sum.p99 <= sum.max);
	/* Three rounds drawn, too few for ranks that cover 95%: the interval is their span. */
	EXPECT_EQ(sum.min, sum.p50_lo);
	EXPECT_EQ(sum.max, sum.p50_hi);

	/* Equal rounds, an odd count: the weighted median is the pooled one, and with twelve
	 * rounds its interval lies inside their span. */
	n = 0;
	for (unsigned r = 0; r < 12; r++)
		for (unsigned i = 0; i < 7; i++, n++) {
			s[n].ticks_per_op = 10.0 * (r + 1) + i;
			s[n].round = (uint16_t)r;
			s[n].reject = DPK_REJECT_NONE;
		}
	ASSERT_TRUE(dpk_stats_summarise_rounds(s, n, 12, &sum));
	k = dpk_stats_kept_ticks(s, n, v);
	dpk_stats_summarise(v, k, &pooled);
	ASSERT_NEAR(pooled.p50, sum.p50, 1e-12);
	EXPECT_GT_F(sum.p50_lo, sum.min);
	EXPECT_LT_F(sum.p50_hi, sum.max);
	EXPECT_LT_F(sum.p50_lo, sum.p50);
	EXPECT_GT_F(sum.p50_hi, sum.p50);
	ASSERT_NEAR(pooled.mean, sum.mean, 1e-9);
	ASSERT_NEAR(pooled.stddev, sum.stddev, 1e-9);

	/* Nothing kept: an empty summary. */
	for (size_t i = 0; i < n; i++)
		s[i].reject = DPK_REJECT_GAP;
	ASSERT_TRUE(dpk_stats_summarise_rounds(s, n, 12, &sum));
	EXPECT_EQ(0, sum.n);
}

static void alone_batches_are_found_and_marked(void)
{
	/* role 0: [0,10] [10,20] [30,40] [50,60] [100,110]; role 1: [5,12] [40,45];
	 * role 2: [58,70] */
	static const uint64_t r0[] = {0, 10, 10, 20, 30, 40, 50, 60, 100, 110};
	static const uint64_t r1[] = {5, 12, 40, 45};
	static const uint64_t r2[] = {58, 70};
	const uint64_t *const spans[] = {r0, r1, r2};
	const size_t ns[] = {5, 2, 1};
	bool alone[5], one[2];
	struct dpk_sample s[5] = {{.ticks_per_op = 1},
	                          {.ticks_per_op = 1},
	                          {.ticks_per_op = 1},
	                          {.ticks_per_op = 1},
	                          {.ticks_per_op = 1}};
	size_t counts[DPK_REJECT_COUNT] = {[DPK_REJECT_NONE] = 4, [DPK_REJECT_GAP] = 1};

	dpk_stats_alone(spans, ns, 3, 0, alone);
	EXPECT_FALSE(alone[0]); /* overlaps [5,12] */
	EXPECT_FALSE(alone[1]); /* overlaps [5,12] */
	EXPECT_FALSE(alone[2]); /* touches [40,45] at 40 */
	EXPECT_FALSE(alone[3]); /* overlaps role 2's [58,70] */
	EXPECT_TRUE(alone[4]);  /* nobody after 70 */
	dpk_stats_alone(spans, ns, 3, 1, one);
	EXPECT_FALSE(one[0]);
	EXPECT_FALSE(one[1]);
	/* With role 0 alone: every batch of role 1 is alone. */
	dpk_stats_alone(spans + 1, ns + 1, 1, 0, one);
	EXPECT_TRUE(one[0] && one[1]);

	s[4].reject = DPK_REJECT_GAP; /* already taken: stays "gap" */
	alone[0] = true;
	EXPECT_EQ(3, dpk_stats_mark_alone(s, 5, alone, counts));
	EXPECT_EQ(DPK_REJECT_ALONE, s[0].reject);
	EXPECT_EQ(DPK_REJECT_GAP, s[4].reject);
	EXPECT_EQ(3, counts[DPK_REJECT_NONE]);
	EXPECT_EQ(1, counts[DPK_REJECT_ALONE]);
	EXPECT_EQ(1, counts[DPK_REJECT_GAP]);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(reject_counts_each_reason),
        DPK_TEST(reject_ignores_ctx_switch_when_disabled),
        DPK_TEST(switches_go_to_the_longest_batches_of_each_set),
        DPK_TEST(reject_keeps_uniformly_slow_set),
        DPK_TEST(reject_gap_median_skips_rejected_samples),
        DPK_TEST(reject_edge_inputs),
        DPK_TEST(cycles_convert_round_by_round),
        DPK_TEST(rounds_as_run_take_the_slow_samples),
        DPK_TEST(cycles_trim_the_round_outliers),
        DPK_TEST(cycles_trim_by_the_case_median),
        DPK_TEST(cycles_need_a_positive_pace),
        DPK_TEST(slow_rounds_are_set_aside),
        DPK_TEST(slow_reference_is_the_lower_quartile),
        DPK_TEST(slow_reference_is_weighted_by_samples),
        DPK_TEST(slow_reference_needs_enough_samples),
        DPK_TEST(slow_rule_needs_five_steady_rounds),
        DPK_TEST(slow_rule_does_nothing_without_rounds_or_limit),
        DPK_TEST(slow_marks_given_rounds),
        DPK_TEST(witness_marks_slow_samples),
        DPK_TEST(kept_ticks_keep_their_order),
        DPK_TEST(reject_names),
        DPK_TEST(alone_batches_are_found_and_marked),
        DPK_TEST(round_summary_weighs_rounds_alike),
};

DPK_TEST_MAIN(cases)
