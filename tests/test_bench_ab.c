/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk-bench ab's verdicts on made-up rounds: the pairing, the pairs dropped for a floor
 * that moved, the sign-test interval and its widening by the between-program term, the
 * thresholds, the gate, no verdict on too few pairs, and a verdict over several pairs of
 * processes only where each pair finds it. Nothing runs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "dpk_test.h"
#include "stats.h"

#define ROUNDS 40

/* Two entries of one case: base rounds at 100 cycles, new ones at 100 * @p ratio, each
 * round moved by a pattern of +-0.4% that both sides share, as pairing expects. */
struct pair {
	double bp50[ROUNDS], np50[ROUNDS], bcyc[ROUNDS], ncyc[ROUNDS], bfl[ROUNDS], nfl[ROUNDS];
	struct dpk_res_entry base, new;
	struct dpk_results rb, rn;
};

static void make_pair(struct pair *p, double ratio, bool floors)
{
	memset(p, 0, sizeof(*p));
	for (unsigned q = 0; q < ROUNDS; q++) {
		const double drift = 1.0 + 0.001 * (double)((int)((q * 7) % 9) - 4);
		const double wobble = 1.0 + 0.0005 * (double)((int)((q * 5) % 3) - 1);

		p->bcyc[q] = p->bp50[q] = 100.0 * drift;
		p->ncyc[q] = p->np50[q] = 100.0 * drift * ratio * wobble;
		p->bfl[q] = p->nfl[q] = 200.0;
	}
	for (unsigned k = 0; k < 2; k++) {
		struct dpk_res_entry *e = k ? &p->new : &p->base;

		snprintf(e->id, sizeof(e->id), "t/case/placement:single");
		e->suite = "t";
		e->name = "case";
		e->placement = "single";
		e->unit = "per call";
		e->ok = true;
		e->round_p50 = k ? p->np50 : p->bp50;
		e->round_cycles = floors ? NULL : k ? p->ncyc : p->bcyc;
		e->round_floor = floors ? (k ? p->nfl : p->bfl) : NULL;
		e->rounds_run = ROUNDS;
		e->nrounds = ROUNDS;
		e->ticks.p50 = k ? 100.0 * ratio : 100.0;
	}
	p->rb = (struct dpk_results){.path = "base.json", .e = &p->base, .n = 1};
	p->rn = (struct dpk_results){.path = "new.json", .e = &p->new, .n = 1};
}

static struct dpk_ab_report judged(struct pair *p, double sigma, double gate)
{
	const struct dpk_ab_options o = {
	        .noise = DPK_AB_NOISE, .fail_above = gate, .process_sigma = sigma};
	struct dpk_ab_report r;
	char err[128];

	if (dpk_ab_compare(&p->rb, &p->rn, &o, &r, err, sizeof(err)) != 0)
		memset(&r, 0, sizeof(r));
	return r;
}

/* The figure is the median paired ratio; the shared drift cancels in each pair, so the
 * unwidened interval hugs it, and the widened one is sqrt(h^2 + (1.96 sigma)^2) wide on
 * each side in log space. */
static void pairs_cancel_drift_and_the_interval_widens(void)
{
	struct pair p;
	struct dpk_ab_report r0, r1;

	make_pair(&p, 1.02, false);
	r0 = judged(&p, 0.0, -1);
	ASSERT_EQ_U(1, r0.n);
	ASSERT_TRUE(r0.c[0].has_verdict && r0.c[0].cycles && !r0.c[0].floors);
	EXPECT_EQ_U(ROUNDS, r0.c[0].pairs);
	EXPECT_TRUE(fabs(r0.c[0].p50 - 1.02) < 1e-9);
	EXPECT_TRUE(r0.c[0].lo >= 1.02 * 0.9995 - 1e-9 && r0.c[0].hi <= 1.02 * 1.0005 + 1e-9);
	EXPECT_EQ(DPK_CMP_SLOWER, r0.c[0].verdict);
	r1 = judged(&p, 0.005, -1);
	ASSERT_EQ_U(1, r1.n);
	const double l = log(r1.c[0].p50), hl0 = l - log(r0.c[0].lo), s = 1.96 * 0.005;
	EXPECT_TRUE(fabs((l - log(r1.c[0].lo)) - sqrt(hl0 * hl0 + s * s)) < 1e-12);
	EXPECT_TRUE(r1.c[0].lo < r0.c[0].lo && r1.c[0].hi > r0.c[0].hi);
	/* 2% over: still slower once widened by 0.5%; 1.5% over is not. */
	EXPECT_EQ(DPK_CMP_SLOWER, r1.c[0].verdict);
	dpk_ab_report_free(&r0);
	dpk_ab_report_free(&r1);
	make_pair(&p, 1.015, false);
	r1 = judged(&p, -1, -1); /* the default term, in cycles */
	ASSERT_EQ_U(1, r1.n);
	EXPECT_EQ(DPK_CMP_WITHIN_NOISE, r1.c[0].verdict);
	EXPECT_TRUE(r1.c[0].lo < 1.01);
	dpk_ab_report_free(&r1);
	make_pair(&p, 0.97, false);
	r1 = judged(&p, -1, -1);
	ASSERT_EQ_U(1, r1.n);
	EXPECT_EQ(DPK_CMP_FASTER, r1.c[0].verdict);
	EXPECT_EQ_U(1, r1.faster);
	dpk_ab_report_free(&r1);
}

/* A pair of a multi-lcore case whose two floors are over DPK_CMP_FLOOR_MOVED apart is
 * dropped, and with too few pairs left there is no verdict. */
static void pairs_apart_in_floor_are_dropped(void)
{
	struct pair p;
	struct dpk_ab_report r;

	make_pair(&p, 1.05, true);
	for (unsigned q = 0; q < ROUNDS; q += 2)
		p.nfl[q] = 200.0 * (1.0 + DPK_CMP_FLOOR_MOVED) * 1.01;
	r = judged(&p, 0.0, -1);
	ASSERT_EQ_U(1, r.n);
	EXPECT_TRUE(r.c[0].floors && !r.c[0].cycles);
	EXPECT_EQ_U(ROUNDS / 2, r.c[0].pairs);
	EXPECT_TRUE(isnan(r.c[0].ratio[0]) && isfinite(r.c[0].ratio[1]));
	EXPECT_EQ(DPK_CMP_SLOWER, r.c[0].verdict);
	dpk_ab_report_free(&r);
	for (unsigned q = 0; q < ROUNDS; q++)
		if (q % 8)
			p.nfl[q] = 200.0 * (1.0 + DPK_CMP_FLOOR_MOVED) * 1.01;
	r = judged(&p, 0.0, -1);
	ASSERT_EQ_U(1, r.n);
	EXPECT_TRUE(r.c[0].pairs < DPK_AB_MIN_PAIRS);
	EXPECT_FALSE(r.c[0].has_verdict);
	EXPECT_EQ_U(1, r.none);
	EXPECT_TRUE(strstr(r.c[0].note, "are needed") != NULL);
	dpk_ab_report_free(&r);
}

/* Rounds in regimes apart on either side leave the case without a verdict while pairs of
 * rounds fall on both sides of the noise; where every pair's ratio lies beyond it on one
 * side, the regimes the rounds drew cannot have made the difference: the verdict stands. */
static void regimes_withhold_the_verdict(void)
{
	struct pair p;
	struct dpk_ab_report r;

	/* New's rounds in two regimes, at 0.8 and 1.3 of base: pairs on both sides. */
	make_pair(&p, 1.0, true);
	for (unsigned q = 0; q < ROUNDS; q++)
		p.np50[q] *= q % 3 ? 0.8 : 1.3;
	p.new.nregimes = 2;
	r = judged(&p, -1, -1);
	ASSERT_EQ_U(1, r.n);
	EXPECT_FALSE(r.c[0].has_verdict);
	EXPECT_EQ_U(1, r.none);
	EXPECT_TRUE(strstr(r.c[0].note, "regimes apart (base 1, new 2), pairs of rounds on both "
	                                "sides") != NULL);
	dpk_ab_report_free(&r);
	/* Base's rounds in regimes at 1.0 and 1.4, new's all at 0.7: new faster in each. */
	make_pair(&p, 0.7, true);
	for (unsigned q = 0; q < ROUNDS; q++)
		p.bp50[q] *= q % 2 ? 1.4 : 1.0;
	p.base.nregimes = 2;
	r = judged(&p, -1, -1);
	ASSERT_EQ_U(1, r.n);
	ASSERT_TRUE(r.c[0].has_verdict);
	EXPECT_EQ(DPK_CMP_FASTER, r.c[0].verdict);
	EXPECT_TRUE(strstr(r.c[0].note, "every pair of rounds beyond the noise on one side") !=
	            NULL);
	dpk_ab_report_free(&r);
	/* The same rounds with the host moving the lcores for half of them, both rounds of a
	 * pair alike: new's raw rounds reach base's, each pair still has new faster. */
	for (unsigned q = 0; q < ROUNDS; q += 2) {
		p.np50[q] *= 1.6;
		p.nfl[q] *= 1.6;
		p.bfl[q] = p.nfl[q];
		p.bp50[q] *= 1.6;
	}
	r = judged(&p, -1, -1);
	ASSERT_EQ_U(1, r.n);
	ASSERT_TRUE(r.c[0].has_verdict);
	EXPECT_EQ(DPK_CMP_FASTER, r.c[0].verdict);
	dpk_ab_report_free(&r);
	/* Pairs on one side, some within the noise: no verdict. */
	make_pair(&p, 1.0, true);
	for (unsigned q = 0; q < ROUNDS; q++)
		p.np50[q] = 100.0 * (1.0 + DPK_AB_NOISE / 2);
	for (unsigned q = 0; q < ROUNDS; q++)
		p.bp50[q] = 100.0 * (q % 2 ? 1.0 : 0.95);
	p.base.nregimes = 2;
	r = judged(&p, -1, -1);
	ASSERT_EQ_U(1, r.n);
	EXPECT_FALSE(r.c[0].has_verdict);
	dpk_ab_report_free(&r);
}

/* One-lcore rounds pair on their kept samples while at least half their rounds kept some;
 * with fewer (a slow phase over half the rounds), as run: a round whose samples the witness
 * set aside (kept median NaN) still pairs, slow samples included; a pair whose two witness
 * medians lie over DPK_WITNESS_LIMIT apart is dropped and counted; the one-lcore rounds'
 * regimes do not withhold the verdict. */
static void whole_rounds_pair_and_speed_apart_drops(void)
{
	static double bw[ROUNDS], nw[ROUNDS], bwit[ROUNDS], nwit[ROUNDS];
	struct pair p;
	struct dpk_ab_report r;

	make_pair(&p, 1.05, false);
	for (unsigned q = 0; q < ROUNDS; q++) {
		/* A slow phase (x1.6) over rounds 5-34 takes both sides alike. */
		const double slow = q >= 5 && q < 35 ? 1.6 : 1.0;

		bw[q] = p.bp50[q] * slow;
		nw[q] = p.np50[q] * slow;
		bwit[q] = nwit[q] = 8.0 * slow;
		if (slow > 1)
			p.bp50[q] = p.np50[q] = NAN; /* no kept sample in the slow phase */
	}
	/* Four pairs met the host at two speeds, the new round at full speed: as run, their
	 * ratio is 1.05 / 1.6, and their witness medians are 1.6 apart. */
	for (unsigned q = 10; q < 14; q++) {
		nw[q] /= 1.6;
		nwit[q] = 8.0;
	}
	p.base.round_whole = bw;
	p.new.round_whole = nw;
	p.base.round_whole_cycles = bw;
	p.new.round_whole_cycles = nw;
	p.base.round_whole_wit = bwit;
	p.new.round_whole_wit = nwit;
	p.new.nregimes = 2;
	r = judged(&p, 0.0, -1);
	ASSERT_EQ_U(1, r.n);
	EXPECT_TRUE(r.c[0].whole && r.c[0].cycles);
	EXPECT_EQ_U(4, r.c[0].speed_apart);
	EXPECT_EQ_U(ROUNDS - 4, r.c[0].pairs);
	EXPECT_TRUE(isnan(r.c[0].ratio[10]) && isfinite(r.c[0].ratio[20]));
	ASSERT_TRUE(r.c[0].has_verdict);
	EXPECT_TRUE(fabs(r.c[0].p50 - 1.05) < 0.003);
	EXPECT_EQ(DPK_CMP_SLOWER, r.c[0].verdict);
	dpk_ab_report_free(&r);
	/* Without whole figures the slow phase's rounds are lost. */
	p.base.round_whole = p.new.round_whole = NULL;
	r = judged(&p, 0.0, -1);
	ASSERT_EQ_U(1, r.n);
	EXPECT_FALSE(r.c[0].whole);
	EXPECT_EQ_U(ROUNDS - 30, r.c[0].pairs);
	/* The kept rounds meet the regimes rule: each pair has new slower. */
	ASSERT_TRUE(r.c[0].has_verdict);
	EXPECT_TRUE(strstr(r.c[0].note, "every pair of rounds beyond") != NULL);
	dpk_ab_report_free(&r);
	/* A slow phase over 10 rounds only: 30 kept pairs against 36 as run, the kept ones. */
	p.base.round_whole = bw;
	p.new.round_whole = nw;
	p.new.nregimes = 0;
	for (unsigned q = 15; q < 35; q++) {
		p.bp50[q] = bw[q] / 1.6;
		p.np50[q] = nw[q] / 1.6;
	}
	r = judged(&p, 0.0, -1);
	ASSERT_EQ_U(1, r.n);
	EXPECT_FALSE(r.c[0].whole);
	EXPECT_EQ_U(30, r.c[0].pairs);
	EXPECT_EQ_U(0, r.c[0].speed_apart);
	EXPECT_EQ(DPK_CMP_SLOWER, r.c[0].verdict);
	dpk_ab_report_free(&r);
}

/* The gate fails on an interval wholly above 1 + fail_above, and only then. */
static void the_gate_needs_the_whole_interval(void)
{
	struct pair p;
	struct dpk_ab_report r;

	make_pair(&p, 1.10, false);
	r = judged(&p, -1, 0.05);
	ASSERT_EQ_U(1, r.n);
	EXPECT_TRUE(r.c[0].gate_failed);
	EXPECT_EQ_U(1, r.gate_failures);
	dpk_ab_report_free(&r);
	make_pair(&p, 1.055, false);
	r = judged(&p, -1, 0.05);
	ASSERT_EQ_U(1, r.n);
	EXPECT_FALSE(r.c[0].gate_failed); /* 5.5% with an interval reaching under 5% */
	EXPECT_EQ(DPK_CMP_SLOWER, r.c[0].verdict);
	dpk_ab_report_free(&r);
}

/* Pairs of processes @p p0 and @p p1 judged together, sigma 0, gate @p gate. */
static int judged_two(struct pair *p0, struct pair *p1, double gate, struct dpk_ab_report *r)
{
	const struct dpk_ab_options o = {.noise = DPK_AB_NOISE, .fail_above = gate};
	const struct dpk_results rb[2] = {p0->rb, p1->rb}, rn[2] = {p0->rn, p1->rn};
	char err[128];

	return dpk_ab_compare_processes(rb, rn, 2, &o, r, err, sizeof(err));
}

/* Two pairs of processes: the figure and the interval pool their pairs, and a verdict
 * holds only when each pair's own median ratio is beyond the noise on the same side. */
static void a_verdict_needs_every_pair_of_processes(void)
{
	struct pair p0, p1;
	struct dpk_ab_report r;

	make_pair(&p0, 1.05, false);
	make_pair(&p1, 1.04, false);
	ASSERT_EQ(0, judged_two(&p0, &p1, 0.02, &r));
	ASSERT_EQ_U(1, r.n);
	EXPECT_EQ_U(2, r.c[0].ngen);
	EXPECT_EQ_U(2 * ROUNDS, r.c[0].pairs);
	EXPECT_EQ_U(ROUNDS, r.c[0].gen_pairs[1]);
	EXPECT_TRUE(fabs(r.c[0].gen_p50[0] - 1.05) < 1e-3 && fabs(r.c[0].gen_p50[1] - 1.04) < 1e-3);
	EXPECT_TRUE(fabs(r.c[0].new_p50 - 100.0 * sqrt(1.05 * 1.04)) < 1e-9);
	EXPECT_EQ(DPK_CMP_SLOWER, r.c[0].verdict);
	EXPECT_TRUE(r.c[0].gate_failed && !r.c[0].unreplicated);
	dpk_ab_report_free(&r);
	/* The second pair of processes ran a quarter of the rounds and found 0.5%: the pooled
	 * interval lies wholly above 1%, the second pair's median does not. */
	make_pair(&p1, 1.005, false);
	p1.base.rounds_run = p1.new.rounds_run = ROUNDS / 4;
	ASSERT_EQ(0, judged_two(&p0, &p1, 0.02, &r));
	ASSERT_EQ_U(1, r.n);
	EXPECT_EQ_U(ROUNDS + ROUNDS / 4, r.c[0].pairs);
	EXPECT_TRUE(r.c[0].lo > 1.0 + DPK_AB_NOISE);
	EXPECT_EQ(DPK_CMP_WITHIN_NOISE, r.c[0].verdict);
	EXPECT_TRUE(r.c[0].unreplicated && !r.c[0].gate_failed);
	EXPECT_TRUE(strstr(r.c[0].note, "x1.0050") != NULL);
	EXPECT_EQ_U(1, r.unreplicated);
	EXPECT_EQ_U(0, r.gate_failures);
	dpk_ab_report_free(&r);
	/* A case the second pair lacks is not judged; none left is an error. */
	p1.rn.n = 0;
	EXPECT_EQ(-EINVAL, judged_two(&p0, &p1, -1, &r));
}

/* From one to DPK_AB_PROCESSES_MAX pairs of processes, else -EINVAL. */
static void pairs_of_processes_are_bounded(void)
{
	struct pair p;
	struct dpk_ab_report r;
	const struct dpk_ab_options o = {.noise = DPK_AB_NOISE, .fail_above = -1};
	char err[128];

	make_pair(&p, 1.0, false);
	EXPECT_EQ(-EINVAL, dpk_ab_compare_processes(&p.rb, &p.rn, 0, &o, &r, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "from 1 to") != NULL);
	EXPECT_EQ(-EINVAL, dpk_ab_compare_processes(&p.rb, &p.rn, DPK_AB_PROCESSES_MAX + 1, &o, &r,
	                                            err, sizeof(err)));
	ASSERT_EQ(0, dpk_ab_compare_processes(&p.rb, &p.rn, 1, &o, &r, err, sizeof(err)));
	EXPECT_EQ_U(1, r.processes);
	dpk_ab_report_free(&r);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(a_verdict_needs_every_pair_of_processes),
        DPK_TEST(pairs_of_processes_are_bounded),
        DPK_TEST(pairs_cancel_drift_and_the_interval_widens),
        DPK_TEST(pairs_apart_in_floor_are_dropped),
        DPK_TEST(the_gate_needs_the_whole_interval),
        DPK_TEST(regimes_withhold_the_verdict),
        DPK_TEST(whole_rounds_pair_and_speed_apart_drops),
};

DPK_TEST_MAIN(cases)
