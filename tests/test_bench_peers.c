/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peers' suites (DPDK's blocks, ck's ring) against dpkit's: every case a peer suite
 * has is the twin of a dpkit case (its name, kind, unit, parameters, group and counted
 * roles), an interleaved plan puts each one-lcore peer case in the group its twin leads,
 * and a suite whose library the build lacks is a stub that says why. Nothing is run.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include <errno.h>

#include <dpk/bench.h>

#include "dpk_test.h"
#include "engine.h"
#include "peers.h"
#include "session.h"

static bool is_stub(const struct dpk_bench_suite *s)
{
	return s->ncases == 1 && strcmp(s->cases[0].name, DPK_PEER_NOT_BUILT) == 0;
}

/* The dpkit case with @p c's name, kind and group key, or NULL. */
static const struct dpk_bench_case *twin_of(const struct dpk_bench_case *c)
{
	char kc[256], kt[256];
	const struct dpk_bench_suite *s;

	dpk_bench_group_key(c, kc, sizeof(kc));
	for (unsigned i = 0; (s = dpk_bench_dpkit_suites[i]); i++)
		for (unsigned j = 0; j < s->ncases; j++) {
			const struct dpk_bench_case *t = &s->cases[j];

			if (strcmp(t->name, c->name) == 0 && t->kind == c->kind &&
			    strcmp(dpk_bench_group_key(t, kt, sizeof(kt)), kc) == 0)
				return t;
		}
	return NULL;
}

static void every_peer_case_has_a_dpkit_twin(void)
{
	const struct dpk_bench_suite *s;
	unsigned checked = 0;

	for (unsigned i = 0; (s = dpk_bench_peer_suites[i]); i++) {
		if (is_stub(s))
			continue;
		for (unsigned j = 0; j < s->ncases; j++) {
			const struct dpk_bench_case *c = &s->cases[j], *t = twin_of(c);
			char params[96];

			if (!t) {
				dpk_test_fail(__FILE__, __LINE__, "%s/%s %s has no dpkit twin",
				              s->name, c->name,
				              dpk_bench_params_str(c, params, sizeof(params)));
				continue;
			}
			EXPECT_EQ((int)t->unit, (int)c->unit);
			EXPECT_EQ_U(t->counted_roles, c->counted_roles);
			EXPECT_EQ_U(t->ops_multiple, c->ops_multiple);
			checked++;
		}
	}
	if (checked == 0)
		DPK_SKIP("this build has no peer suite, only stubs");
	dpk_test_note("%u peer cases, each with its twin", checked);
}

static bool select_all(void *ctx, const struct dpk_bench_suite *s, const struct dpk_bench_case *c)
{
	(void)ctx;
	(void)s;
	(void)c;
	return true;
}

static bool is_dpkit(const struct dpk_bench_suite *s)
{
	for (unsigned i = 0; dpk_bench_dpkit_suites[i]; i++)
		if (dpk_bench_dpkit_suites[i] == s)
			return true;
	return false;
}

static void interleaved_plan_pairs_peers_with_twins(void)
{
	const struct dpk_bench_suite *all[32];
	struct dpk_bench_runner r;
	struct dpk_bench_plan plan;
	unsigned n = 0, paired = 0;

	for (unsigned i = 0; dpk_bench_dpkit_suites[i]; i++)
		all[n++] = dpk_bench_dpkit_suites[i];
	for (unsigned i = 0; dpk_bench_peer_suites[i]; i++)
		if (!is_stub(dpk_bench_peer_suites[i]))
			all[n++] = dpk_bench_peer_suites[i];
	all[n] = NULL;
	memset(&r, 0, sizeof(r));
	dpk_bench_options_default(&r.opt);
	for (unsigned p = 0; p < DPK_PLACE_COUNT; p++)
		r.opt.placement_on[p] = p == DPK_PLACE_SINGLE;
	ASSERT_EQ(0, dpk_bench_plan_make(&plan, &r, all, select_all, NULL, true));
	for (size_t i = 0; i < plan.n; i++) {
		const struct dpk_bench_item *it = &plan.item[i], *lead = &plan.item[plan.leader[i]];
		bool twin_in_group = false;

		if (is_dpkit(it->s))
			continue;
		EXPECT_TRUE(is_dpkit(lead->s));
		for (size_t j = 0; j < plan.n; j++)
			if (plan.leader[j] == plan.leader[i] && is_dpkit(plan.item[j].s) &&
			    strcmp(plan.item[j].c->name, it->c->name) == 0)
				twin_in_group = true;
		if (!twin_in_group)
			dpk_test_fail(__FILE__, __LINE__, "%s/%s is in no group with its twin",
			              it->s->name, it->c->name);
		paired++;
	}
	dpk_bench_plan_free(&plan);
	if (paired == 0)
		DPK_SKIP("this build has no peer suite, only stubs");
	dpk_test_note("%u one-lcore peer cases grouped with their twins", paired);
}

static void stubs_say_why_and_versions_name_the_libraries(void)
{
	const struct dpk_bench_suite *s;

	for (unsigned i = 0; (s = dpk_bench_peer_suites[i]); i++) {
		if (!is_stub(s))
			continue;
		EXPECT_EQ(0, strncmp(s->desc, "not available: ", 15));
		EXPECT_FALSE(s->default_on);
		EXPECT_NOT_NULL(s->cases[0].setup);
	}
	EXPECT_NOT_NULL(strstr(dpk_bench_peer_versions, "DPDK "));
	EXPECT_NOT_NULL(strstr(dpk_bench_peer_versions, "ck "));
	dpk_test_note("peers: %s", dpk_bench_peer_versions);
}

/* dpk_bench_library() takes a name and a version each, refuses what it cannot hold and
 * joins what it took, in order, for the environment block. */
static void libraries_are_noted_for_the_environment(void)
{
	char buf[DPK_BENCH_LIBRARIES_MAX * 128], longer[80];
	unsigned noted = 0;

	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	EXPECT_EQ(-EINVAL, dpk_bench_library(NULL, "1"));
	EXPECT_EQ(-EINVAL, dpk_bench_library("lib", ""));
	EXPECT_EQ(-EINVAL, dpk_bench_library(longer, "1"));
	dpk_bench_libraries(buf, sizeof(buf));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(0, dpk_bench_library("DPDK", dpk_bench_peer_dpdk));
	EXPECT_EQ(0, dpk_bench_library("ck", dpk_bench_peer_ck));
	dpk_bench_libraries(buf, sizeof(buf));
	EXPECT_EQ(0, strncmp(buf, "DPDK ", 5));
	EXPECT_NOT_NULL(strstr(buf, ", ck "));
	EXPECT_STREQ(dpk_bench_peer_versions, buf);
	for (noted = 2; dpk_bench_library("mine", "0.1") == 0; noted++)
		;
	EXPECT_EQ_U(DPK_BENCH_LIBRARIES_MAX, noted);
	EXPECT_EQ(-ENOSPC, dpk_bench_library("one", "more"));
}

static void peer_suites_pass_the_harness_checks(void)
{
	char err[256] = "";

	EXPECT_EQ(0, dpk_bench_suites_check(dpk_bench_peer_suites, err, sizeof(err)));
	if (err[0])
		dpk_test_note("%s", err);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(every_peer_case_has_a_dpkit_twin),
        DPK_TEST(interleaved_plan_pairs_peers_with_twins),
        DPK_TEST(stubs_say_why_and_versions_name_the_libraries),
        DPK_TEST(peer_suites_pass_the_harness_checks),
        DPK_TEST(libraries_are_noted_for_the_environment),
};

DPK_TEST_MAIN(cases)
