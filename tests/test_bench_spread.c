/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk-bench spread (bench/results/spread.c) on results made up in memory: the runs of files
 * and repeats, each case's spread, the cases left out, the worst and the median, the medians
 * marked slow, the sets of k runs, the runs whose floor moved (and the rule that says so,
 * shared with compare), the regimes over the runs, and every error.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_test.h"
#include "spread.h"
#include "stats.h"

#define CASES_MAX 8

/* @p a and @p b within @p eps of each other; the case goes on when not. */
#define EXPECT_CLOSE(a, b, eps)                                                                    \
	DPK__CHECK(fabs((double)(a) - (double)(b)) <= (eps), 0, "%s ~ %s: %g vs %g", #a, #b,       \
	           (double)(a), (double)(b))

/* A file of made-up results: case c of repeat q has median p50[q][c] (0: not ok). */
struct fake {
	struct dpk_res_entry e[CASES_MAX * 8];
	struct dpk_results r;
};

static void make(struct fake *f, const char *path, unsigned repeats, unsigned ncases,
                 const double p50[][CASES_MAX])
{
	memset(f, 0, sizeof(*f));
	f->r.path = path;
	f->r.witness = NAN;
	f->r.e = f->e;
	for (unsigned q = 0; q < repeats; q++)
		for (unsigned c = 0; c < ncases; c++) {
			struct dpk_res_entry *e = &f->e[f->r.n++];

			snprintf(e->family, sizeof(e->family), "s/c%u", c);
			snprintf(e->id, sizeof(e->id), "s/c%u/placement:single", c);
			e->suite = "s";
			e->repeat = q;
			e->ok = p50[q][c] > 0;
			e->ticks.p50 = p50[q][c];
			e->cycles.p50 = NAN;
			e->witness_kept_rounds = NAN;
		}
}

static const struct dpk_spread_options at5 = {.limit = 0.05};

static void runs_are_files_and_repeats(void)
{
	static const double a[2][CASES_MAX] = {{100, 200, 300}, {101, 220, 0}};
	static const double b[1][CASES_MAX] = {{103, 200, 300}};
	static struct fake fa, fb;
	struct dpk_results files[2];
	struct dpk_spread s;
	char err[256];

	make(&fa, "a.json", 2, 3, a);
	make(&fb, "b.json", 1, 3, b);
	files[0] = fa.r;
	files[1] = fb.r;
	ASSERT_EQ(0, dpk_spread_compute(files, 2, &at5, &s, err, sizeof(err)));
	ASSERT_EQ(3, s.nruns);
	EXPECT_TRUE(s.runs[0].file == &files[0] && s.runs[0].repeat == 0);
	EXPECT_TRUE(s.runs[1].file == &files[0] && s.runs[1].repeat == 1);
	EXPECT_TRUE(s.runs[2].file == &files[1] && s.runs[2].repeat == 0);
	/* c2 did not run ok in repeat 1: left out. */
	ASSERT_EQ(2, s.ncases);
	EXPECT_EQ(1, s.partial);
	EXPECT_STREQ("s/c0/placement:single", s.id[0]);
	EXPECT_CLOSE(0.03, s.spread[0], 1e-12);
	EXPECT_CLOSE(0.10, s.spread[1], 1e-12);
	EXPECT_CLOSE(101, s.p50[0 * 3 + 1], 0);
	EXPECT_CLOSE(220, s.p50[1 * 3 + 1], 0);
	EXPECT_EQ(1, s.over);
	EXPECT_EQ(1, s.worst);
	EXPECT_CLOSE(0.065, s.median, 1e-12);
	dpk_spread_free(&s);
}

static void patterns_cycles_and_slow_medians(void)
{
	static const double a[2][CASES_MAX] = {{100, 200}, {100, 210}};
	static struct fake fa;
	struct dpk_spread_options o = at5;
	const char *pat[] = {"s/c1"};
	struct dpk_spread s;
	char err[256];

	make(&fa, "a.json", 2, 2, a);
	fa.e[3].witness_slow_only = true; /* c1 in repeat 1 */
	fa.e[3].witness_kept_rounds = 3;
	o.patterns = pat;
	o.npatterns = 1;
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &o, &s, err, sizeof(err)));
	ASSERT_EQ(1, s.ncases);
	EXPECT_STREQ("s/c1/placement:single", s.id[0]);
	EXPECT_EQ(0, s.partial);
	EXPECT_TRUE(!s.slow_only[0] && s.slow_only[1]);
	EXPECT_EQ(0, s.flagged[0]);
	EXPECT_EQ(1, s.flagged[1]);
	EXPECT_TRUE(isnan(s.slices[0]));
	EXPECT_CLOSE(3, s.slices[1], 0);
	dpk_spread_free(&s);
	/* In cycles, no case has figures: an error that says so. */
	o.cycles = true;
	EXPECT_EQ(-ENOENT, dpk_spread_compute(&fa.r, 1, &o, &s, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "no case ran ok with figures in cycles in every run among those "
	                        "the patterns select") != NULL);
	dpk_spread_free(&s);
}

/* A pair case whose floor moved in one run (the host put its lcores elsewhere): that run
 * is marked and, in ticks, left out of its spread and of the sets; over the floor it
 * counts, and a case without a floor is left out there. */
static void runs_whose_floor_moved(void)
{
	static const double a[4][CASES_MAX] = {{10, 50}, {10.5, 51}, {4, 50}, {10.2, 50}};
	static const double floors[4] = {170, 175, 75, 172};
	static struct fake fa;
	struct dpk_spread_options o = {.limit = 0.06};
	struct dpk_spread_sets sets;
	struct dpk_spread s;
	char err[256];

	make(&fa, "a.json", 4, 2, a);
	for (unsigned q = 0; q < 4; q++)
		fa.e[q * 2].floor_rt = floors[q];
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &o, &s, err, sizeof(err)));
	ASSERT_EQ(2, s.ncases);
	EXPECT_EQ(1, s.nmoved[0]);
	EXPECT_EQ(0, s.nmoved[1]);
	EXPECT_EQ(1, s.with_moved);
	EXPECT_TRUE(s.moved[2] && !s.moved[0] && !s.moved[1] && !s.moved[3]);
	EXPECT_FALSE(dpk_spread_counts(&s, 0, 2));
	EXPECT_TRUE(dpk_spread_counts(&s, 0, 3));
	EXPECT_CLOSE(0.05, s.spread[0], 1e-12); /* 10 to 10.5, run 3 left out */
	EXPECT_CLOSE(0.02, s.spread[1], 1e-12);
	EXPECT_EQ(0, s.over);
	/* Every pair of runs holds: the ones with run 3 judge c0 on the other run alone. */
	ASSERT_EQ(0, dpk_spread_sets(&s, 2, &sets));
	EXPECT_EQ(6, sets.total);
	EXPECT_EQ(6, sets.good);
	free(sets.miss);
	dpk_spread_free(&s);

	/* Over the floor: c1 has none and is left out; run 3 counts, marked all the same. */
	o.per_floor = true;
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &o, &s, err, sizeof(err)));
	ASSERT_EQ(1, s.ncases);
	EXPECT_EQ(1, s.partial);
	EXPECT_CLOSE(10.0 / 170, s.p50[0], 1e-12);
	EXPECT_TRUE(s.moved[2] && dpk_spread_counts(&s, 0, 2));
	EXPECT_CLOSE((10.5 / 175) / (4.0 / 75) - 1, s.spread[0], 1e-12);
	dpk_spread_free(&s);

	/* Three runs at 75 ticks and one at 170: the odd one out is the run that moved. */
	o.per_floor = false;
	for (unsigned q = 1; q < 4; q++)
		fa.e[q * 2].floor_rt = 75;
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &o, &s, err, sizeof(err)));
	EXPECT_EQ(1, s.nmoved[0]); /* 170 is off the median of 75 */
	EXPECT_TRUE(s.moved[0] && !dpk_spread_counts(&s, 0, 0));
	EXPECT_CLOSE(10.5 / 4 - 1, s.spread[0], 1e-12);
	dpk_spread_free(&s);
}

/* @p n round floors around @p base, spread +-2% in a fixed pattern, into @p out. */
static void round_floors(double *out, unsigned n, double base)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = base * (1.0 + 0.002 * (double)((i * 37u) % 21u) - 0.02);
}

/* Two files' floors apart beyond noise: their round floors differ (the test) and by more
 * than the step; without round floors only a move past DPK_CMP_FLOOR_MOVED counts. */
static void floors_apart_beyond_noise(void)
{
	double a[40], b[40], c[40];

	round_floors(a, 40, 171);
	round_floors(b, 40, 178); /* 4% up: another placement */
	round_floors(c, 40, 172); /* 0.6% up: within the step */
	dpk_stats_sort(a, 40);
	dpk_stats_sort(b, 40);
	dpk_stats_sort(c, 40);
	EXPECT_TRUE(dpk_cmp_floors_apart(171, a, 40, 178, b, 40));
	EXPECT_TRUE(dpk_cmp_floors_apart(178, b, 40, 171, a, 40));
	EXPECT_FALSE(dpk_cmp_floors_apart(171, a, 40, 171, a, 40));
	EXPECT_FALSE(dpk_cmp_floors_apart(171, a, 40, 172, c, 40));
	/* Too few rounds for the test: the 50% rule alone. */
	EXPECT_FALSE(dpk_cmp_floors_apart(171, a, 9, 178, b, 9));
	EXPECT_FALSE(dpk_cmp_floors_apart(171, NULL, 0, 178, NULL, 0));
	EXPECT_TRUE(dpk_cmp_floors_apart(75, NULL, 0, 171, NULL, 0));
	/* A side without a floor is never apart. */
	EXPECT_FALSE(dpk_cmp_floors_apart(NAN, NULL, 0, 171, a, 40));
	EXPECT_FALSE(dpk_cmp_floors_apart(0, a, 40, 75, b, 40));

	/* One run against the median of several: off when its rounds say so. */
	EXPECT_TRUE(dpk_cmp_floor_off(171, a, 40, 178));
	EXPECT_FALSE(dpk_cmp_floor_off(178, b, 40, 178));
	EXPECT_FALSE(dpk_cmp_floor_off(172, c, 40, 171.5));
	EXPECT_FALSE(dpk_cmp_floor_off(171, a, 9, 178));
	EXPECT_TRUE(dpk_cmp_floor_off(75, a, 9, 178));
	EXPECT_FALSE(dpk_cmp_floor_off(171, a, 40, NAN));
	/* A quarter of its rounds on the other placement: not told from the median. */
	for (unsigned i = 0; i < 10; i++)
		c[i] = a[i * 4];
	for (unsigned i = 0; i < 30; i++)
		c[10 + i] = b[i + 5];
	dpk_stats_sort(c, 40);
	EXPECT_FALSE(dpk_cmp_floor_off(dpk_cmp_median(c, 40), c, 40, 178));

	/* Medians 2.6% apart in floors spread +-15%: the test, not the step, says no. */
	double wa[40], wb[40];

	for (unsigned i = 0; i < 40; i++) {
		wa[i] = 171.0 * (1.0 + 0.015 * (double)((i * 37u) % 21u) - 0.15);
		wb[i] = wa[i] * 175.5 / 171.0;
	}
	dpk_stats_sort(wa, 40);
	dpk_stats_sort(wb, 40);
	EXPECT_FALSE(dpk_cmp_floors_apart(171, wa, 40, 175.5, wb, 40));
	/* Ten rounds 7.6% under the median at the median: all ten under it is a move (sign test
	 * p = 0.004), nine of ten is not (p = 0.027). */
	double ten[10];

	for (unsigned i = 0; i < 10; i++)
		ten[i] = 160.0 + i;
	EXPECT_TRUE(dpk_cmp_floor_off(164.5, ten, 10, 178));
	ten[9] = 190.0;
	EXPECT_FALSE(dpk_cmp_floor_off(164.5, ten, 10, 178));
}

/* A spread of five runs whose floors sat at 171 in two and 178 in three, every round's
 * floor beside it: the two are marked and, in ticks, left out. */
static void runs_on_two_placements(void)
{
	static const double a[5][CASES_MAX] = {{8.1}, {9.0}, {8.4}, {8.8}, {7.6}};
	static const double base[5] = {171, 178, 179, 178, 170};
	static double p50[5][40], fl[5][40];
	static struct fake fa;
	struct dpk_spread s;
	char err[256];

	make(&fa, "a.json", 5, 1, a);
	for (unsigned q = 0; q < 5; q++) {
		struct dpk_res_entry *e = &fa.e[q];

		round_floors(fl[q], 40, base[q]);
		for (unsigned i = 0; i < 40; i++)
			p50[q][i] = a[q][0];
		e->floor_rt = base[q];
		e->round_floor = fl[q];
		e->round_p50 = p50[q];
		e->rounds_run = 40;
		e->nrounds = 40;
	}
	/* Rounds left out: their floors are not counted (counted, these would put run 1 on the
	 * median's placement). */
	for (unsigned i = 0; i < 25; i++) {
		p50[0][i] = NAN;
		fl[0][i] = 178.0;
	}
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &at5, &s, err, sizeof(err)));
	ASSERT_EQ(1, s.ncases);
	EXPECT_EQ(2, s.nmoved[0]);
	EXPECT_TRUE(s.moved[0] && s.moved[4] && !s.moved[1] && !s.moved[2] && !s.moved[3]);
	EXPECT_CLOSE(9.0 / 8.4 - 1, s.spread[0], 1e-12);
	dpk_spread_free(&s);
	/* The round floors dropped: 4% is no move by the floors alone. */
	for (unsigned q = 0; q < 5; q++)
		fa.e[q].round_floor = NULL;
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &at5, &s, err, sizeof(err)));
	EXPECT_EQ(0, s.nmoved[0]);
	EXPECT_CLOSE(9.0 / 7.6 - 1, s.spread[0], 1e-12);
	dpk_spread_free(&s);
}

/* Five runs of a case whose rounds fall into regimes at 10 and 15.2 ticks, in shares
 * that move from run to run: the runs' medians jump between the two, each regime's figure
 * stays put, and a regime that moved in one run is over the limit. */
static void regimes_over_the_runs(void)
{
	static const unsigned slow[5] = {3, 27, 12, 20, 35};
	static const double a[5][CASES_MAX] = {{10.0}, {15.2}, {10.0}, {10.0}, {15.2}};
	static double p50[5][40], fl[5][40];
	static struct fake fa;
	const struct dpk_spread_options per_floor = {.limit = 0.05, .per_floor = true};
	struct dpk_spread s;
	char err[256];

	make(&fa, "a.json", 5, 1, a);
	for (unsigned q = 0; q < 5; q++) {
		struct dpk_res_entry *e = &fa.e[q];

		round_floors(fl[q], 40, 171);
		for (unsigned i = 0; i < 40; i++)
			p50[q][i] = (i < slow[q] ? 15.2 : 10.0) * (1.0 + 0.001 * (double)(i % 7));
		e->floor_rt = 171;
		e->round_floor = fl[q];
		e->round_p50 = p50[q];
		e->rounds_run = 40;
		e->nrounds = 40;
	}
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &at5, &s, err, sizeof(err)));
	ASSERT_EQ(1, s.ncases);
	EXPECT_TRUE(s.spread[0] > 0.3);
	ASSERT_EQ(2, s.nregimes[0]);
	EXPECT_EQ(1, s.with_regimes);
	EXPECT_EQ(0, s.regimes_over);
	for (unsigned q = 0; q < 5; q++) {
		EXPECT_EQ(40 - slow[q], s.regime_rounds[q]);
		EXPECT_EQ(slow[q], s.regime_rounds[5 + q]);
		EXPECT_CLOSE(10.0, s.regime_p50[q], 0.07);
		EXPECT_CLOSE(15.2, s.regime_p50[5 + q], 0.1);
	}
	EXPECT_TRUE(s.regime_spread[0] < 0.01 && s.regime_spread[1] < 0.01);
	EXPECT_TRUE(isnan(s.regime_spread[2]));
	dpk_spread_free(&s);
	/* Run 2 on SMT siblings throughout (floor 75): its rounds are not a regime. */
	static double p50b[40], flb[40];

	for (unsigned i = 0; i < 40; i++) {
		p50b[i] = 15.0;
		flb[i] = 75.0;
	}
	fa.e[1].round_p50 = p50b;
	fa.e[1].round_floor = flb;
	fa.e[1].floor_rt = 75;
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &at5, &s, err, sizeof(err)));
	ASSERT_EQ(2, s.nregimes[0]);
	EXPECT_EQ(0, s.regime_rounds[1]);
	EXPECT_EQ(0, s.regime_rounds[5 + 1]);
	EXPECT_TRUE(isnan(s.regime_p50[1]));
	dpk_spread_free(&s);
	fa.e[1].round_p50 = p50[1];
	fa.e[1].round_floor = fl[1];
	fa.e[1].floor_rt = 171;
	/* Over the floor: the same regimes, as multiples of it. */
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &per_floor, &s, err, sizeof(err)));
	ASSERT_EQ(2, s.nregimes[0]);
	EXPECT_CLOSE(10.0 / 171, s.regime_p50[0], 0.001);
	dpk_spread_free(&s);
	/* The fast regime 8% slower in run 3 (the slow one kept): that regime is over. */
	for (unsigned i = slow[2]; i < 40; i++)
		p50[2][i] *= 1.08;
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &at5, &s, err, sizeof(err)));
	ASSERT_EQ(2, s.nregimes[0]);
	EXPECT_EQ(1, s.regimes_over);
	EXPECT_TRUE(s.regime_spread[0] > 0.05 && s.regime_spread[1] < 0.01);
	dpk_spread_free(&s);
	/* One-lcore results (no round floors) are not cut. */
	for (unsigned q = 0; q < 5; q++)
		fa.e[q].round_floor = NULL;
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &at5, &s, err, sizeof(err)));
	EXPECT_EQ(0, s.nregimes[0]);
	EXPECT_EQ(0, s.with_regimes);
	dpk_spread_free(&s);
}

static void too_few_runs_is_an_error(void)
{
	static const double a[1][CASES_MAX] = {{100}};
	static struct fake fa;
	struct dpk_spread s;
	char err[256];

	make(&fa, "a.json", 1, 1, a);
	EXPECT_EQ(-EINVAL, dpk_spread_compute(&fa.r, 1, &at5, &s, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "1 run found") != NULL);
	dpk_spread_free(&s);
}

static void sets_count_every_subset(void)
{
	static const double a[5][CASES_MAX] = {
	        {100, 50}, {100, 50}, {100, 50}, {100, 50}, {110, 50}};
	static struct fake fa;
	struct dpk_spread_sets sets;
	struct dpk_spread s;
	char err[256];

	make(&fa, "a.json", 5, 2, a);
	ASSERT_EQ(0, dpk_spread_compute(&fa.r, 1, &at5, &s, err, sizeof(err)));
	/* Of the 10 sets of 3, the 6 with the fifth run hold c0 at 10%. */
	ASSERT_EQ(0, dpk_spread_sets(&s, 3, &sets));
	EXPECT_EQ(10, sets.total);
	EXPECT_EQ(4, sets.good);
	EXPECT_EQ(6, sets.miss[0]);
	EXPECT_EQ(0, sets.miss[1]);
	free(sets.miss);
	ASSERT_EQ(0, dpk_spread_sets(&s, 5, &sets));
	EXPECT_EQ(1, sets.total);
	EXPECT_EQ(0, sets.good);
	free(sets.miss);
	EXPECT_EQ(-EINVAL, dpk_spread_sets(&s, 6, &sets));
	EXPECT_EQ(-EINVAL, dpk_spread_sets(&s, 1, &sets));
	EXPECT_CLOSE(10, dpk_spread_choose(5, 3), 0);
	EXPECT_TRUE(dpk_spread_choose(40, 20) > DPK_SPREAD_SETS_MAX);
	dpk_spread_free(&s);
}

static void too_many_sets_is_an_error(void)
{
	static double a[40][CASES_MAX];
	static struct fake f[5];
	struct dpk_results files[5];
	struct dpk_spread_sets sets;
	struct dpk_spread s;
	char err[256];

	for (unsigned q = 0; q < 8; q++)
		a[q][0] = 100;
	for (unsigned i = 0; i < 5; i++) {
		make(&f[i], "x.json", 8, 1, a);
		files[i] = f[i].r;
	}
	ASSERT_EQ(0, dpk_spread_compute(files, 5, &at5, &s, err, sizeof(err)));
	ASSERT_EQ(40, s.nruns);
	EXPECT_EQ(-E2BIG, dpk_spread_sets(&s, 20, &sets));
	dpk_spread_free(&s);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(runs_are_files_and_repeats), DPK_TEST(patterns_cycles_and_slow_medians),
        DPK_TEST(too_few_runs_is_an_error),   DPK_TEST(sets_count_every_subset),
        DPK_TEST(too_many_sets_is_an_error),  DPK_TEST(runs_whose_floor_moved),
        DPK_TEST(floors_apart_beyond_noise),  DPK_TEST(runs_on_two_placements),
        DPK_TEST(regimes_over_the_runs),
};

DPK_TEST_MAIN(cases)
